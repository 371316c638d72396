"""A live server in a thread and Debian's headless Chromium: what the end-to-end tests and the
web benchmark drive (Selenium is a test dependency, imported only here)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,950")


def browser_missing() -> str:
    """Why the browser cannot run here ("" when it can)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    return (f"{', '.join(missing)} not installed (apt-get install chromium chromium-driver)"
            if missing else "")


@contextmanager
def live_server(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """`app` served by uvicorn on a free port of `host` in a daemon thread: its base URL."""
    import uvicorn

    from geomsim.web.serve import bind

    sock = bind(host, 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://{host}:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(5)


@contextmanager
def chromium(profile: str) -> Iterator[Any]:
    """A headless Chromium (Selenium WebDriver) with a fresh profile in the folder `profile`,
    where downloads go too."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_experimental_option("prefs", {"download.default_directory": profile,
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def point_at(driver: Any, x: float, y: float) -> None:
    """Move the pointer over table point (x, y) of the page's board."""
    from selenium.webdriver.common.action_chains import ActionChains

    board = driver.find_element("id", "board")
    # From the board's centre: what Selenium's offsets start from, whatever the page's scroll.
    dx, dy = driver.execute_script(
        "const p = geomsim.clientPoint(arguments[0], arguments[1]);"
        "const r = document.getElementById('board').getBoundingClientRect();"
        "return [p.x - r.left - r.width / 2, p.y - r.top - r.height / 2];", x, y)
    ActionChains(driver).move_to_element_with_offset(board, round(dx), round(dy)).perform()
