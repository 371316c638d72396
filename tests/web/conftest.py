"""Shared fixtures of the web app tests: the app over a real Anasazi position (the scenario
camp-exception: player 0's base camp lies in reach of expedition E3), a test client, and for the
end-to-end tests one live server and one headless Chromium per test session."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest

from geomsim.web import browser
from geomsim.web.serve import start_from
from geomsim.web.session import Start

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "anasazi" / "camp-exception.yaml"


@pytest.fixture(scope="session")
def start() -> Start:
    """The scenario camp-exception, all its 22 steps played (step 16: player 1 to move, one
    action left, player 0's base camp 4 next to E3's start mark)."""
    return start_from(SCENARIO, None, None, None, 0)


@pytest.fixture(scope="session")
def client(start: Start):
    from geomsim.web import make_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's note on httpx versions
        from starlette.testclient import TestClient

        # Without a token (the app's default): the token's own tests are in test_protection.
        return TestClient(make_app(start), base_url="http://127.0.0.1",
                          raise_server_exceptions=False)


@pytest.fixture(scope="session")
def live_server(start: Start):
    """The app served by uvicorn on a free port of 127.0.0.1, in a thread, with a token as
    `geomsim serve` makes one: the address it would print (``/?token=...``)."""
    from geomsim.web import make_app

    token = secrets.token_urlsafe(24)
    with browser.live_server(make_app(start, token=token)) as url:
        yield f"{url}?token={token}"


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole test session (a fresh profile). Missing, the tests
    are skipped, except where GEOMSIM_REQUIRE_BROWSER is set (CI): there they fail."""
    missing = browser.browser_missing()
    if missing:
        if os.environ.get("GEOMSIM_REQUIRE_BROWSER"):
            pytest.fail(missing)
        pytest.skip(missing)
    profile = tempfile.mkdtemp(prefix="geomsim-chromium-")
    with browser.chromium(profile) as driver:
        yield driver
    shutil.rmtree(profile, ignore_errors=True)
