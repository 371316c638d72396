"""Shared fixtures of the web app tests: the app over a real Anasazi position (the scenario
camp-exception: player 0's base camp lies in reach of expedition E3), a test client, and for the
end-to-end tests one live server and one headless Chromium per test session."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
import warnings
from pathlib import Path

import pytest

from geomsim.web.serve import start_from
from geomsim.web.session import Start

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "anasazi" / "camp-exception.yaml"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,950")


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

        return TestClient(make_app(start), raise_server_exceptions=False)


@pytest.fixture(scope="session")
def live_server(start: Start):
    """The app served by uvicorn on a free port of 127.0.0.1, in a thread: its base URL."""
    import uvicorn

    from geomsim.web import make_app
    from geomsim.web.serve import bind

    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(make_app(start), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    server.should_exit = True
    thread.join(5)


def _browser_missing() -> str:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    return f"{', '.join(missing)} not installed (apt-get install chromium chromium-driver)" if missing else ""


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the whole test session (a fresh profile). Missing, the tests
    are skipped, except where GEOMSIM_REQUIRE_BROWSER is set (CI): there they fail."""
    missing = _browser_missing()
    if missing:
        if os.environ.get("GEOMSIM_REQUIRE_BROWSER"):
            pytest.fail(missing)
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="geomsim-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_experimental_option("prefs", {"download.default_directory": profile,
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def free_port() -> int:
    """A port free now on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
