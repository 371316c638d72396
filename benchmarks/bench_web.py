"""The web app's live verdict: time from a pointer move over the board to the verdict shown.

Drives Debian's headless Chromium over `geomsim serve` (the scenario camp-exception at step 16,
a ghost marker of E3 swept over player 0's base camp and clear of it), and prints the medians:
page (pointer event to verdict drawn), server (`state.check` plus the shapes), and the same
request through Starlette's TestClient and `state.check` alone, in this process. Target: page
median under 50 ms.

    python benchmarks/bench_web.py [--moves 200] [--screenshot docs/images/web.png]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from games.anasazi.actions import PlaceMarker, extend
from geomsim.scenario import load_scenario
from geomsim.web import make_app
from geomsim.web.browser import chromium, live_server, point_at
from geomsim.web.serve import start_from

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "anasazi" / "camp-exception.yaml"
STEP = 16


def wait(driver, test, seconds: float = 10.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.005).until(test)


def sweep(state, moves: int) -> list[tuple[float, float]]:
    """Marker centres from over player 0's camp to clear of it, around E3's start mark."""
    a, b = extend(state, "E3", 128.7, along=12), extend(state, "E3", 128.7, along=40)
    t = np.linspace(0.0, 1.0, moves)
    return [(a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u + 2.0 * np.sin(9 * u)) for u in t]


def page_times(url: str, poses: list[tuple[float, float]], screenshot: Path | None) -> dict:
    from selenium.webdriver.support.ui import Select

    with chromium(tempfile.mkdtemp(prefix="geomsim-bench-")) as d:
        d.get(url)
        wait(d, lambda d: "step 22 of 22" in d.find_element("id", "status").text)
        for n in range(21, STEP - 1, -1):
            d.find_element("id", "back").click()
            wait(d, lambda d, n=n: f"step {n} of" in d.find_element("id", "status").text)
        d.find_element("id", "tool-marker").click()
        Select(d.find_element("id", "param-expedition")).select_by_value("E3")
        box = d.find_element("id", "heading")
        box.clear()
        box.send_keys("128.7\n")
        for x, y in poses:
            before = d.execute_script("return geomsim.latencies.length")
            point_at(d, x, y)
            try:
                wait(d, lambda d: d.execute_script("return geomsim.latencies.length") > before, 2)
            except Exception:
                continue  # the same pixel as before: no move, no verdict
        page = d.execute_script("return geomsim.latencies")
        server = d.execute_script("return geomsim.serverMs")
        if screenshot is not None:
            point_at(d, *poses[len(poses) // 5])
            wait(d, lambda d: "other-camp" in d.find_element("id", "verdict").text)
            Select(d.find_element("id", "analysis-reach-expedition")).select_by_value("E2")
            Select(d.find_element("id", "analysis-reach-markers")).select_by_value("2")
            d.find_element("id", "analysis-reach-run").click()
            wait(d, lambda d: "reach of E2" in d.find_element("id", "analysis-text").text)
            d.execute_script("window.scrollTo(0, 0); geomsim.box = [-260, 110, 570, 345];"
                             "document.getElementById('board').setAttribute('viewBox',"
                             " geomsim.box.join(' '));")  # the part of the table in play
            point_at(d, *poses[len(poses) // 5])
            time.sleep(0.5)
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            d.save_screenshot(str(screenshot))
    return {"page": page, "server": server}


def in_process(start, poses: list[tuple[float, float]]) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    client = TestClient(make_app(start), base_url="http://127.0.0.1")  # a Host the app accepts
    view = client.post("/api/sessions").json()["view"]
    sid = view["session"]
    while view["cursor"] > STEP:
        view = client.post(f"/api/s/{sid}/back", json={"version": view["version"]}).json()["view"]
    state = load_scenario(SCENARIO).state_at(STEP)
    request, check = [], []
    for x, y in poses:
        t = time.perf_counter()
        client.post(f"/api/s/{sid}/preview", json={"version": view["version"], "tool": "marker",
                                                   "params": {"expedition": "E3"}, "x": x, "y": y,
                                                   "heading": 128.7})
        request.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        state.check(PlaceMarker("E3", x, y, 128.7))
        check.append((time.perf_counter() - t) * 1000)
    return {"TestClient request": request, "state.check alone": check}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--screenshot", type=Path)
    parser.add_argument("--smoke", action="store_true",
                        help="a few iterations, only to prove the script runs (the tests do)")
    args = parser.parse_args()
    if args.smoke:
        args.moves = 2
    start = start_from(SCENARIO, None, None, None, 0)
    poses = sweep(load_scenario(SCENARIO).state_at(STEP), args.moves)
    with live_server(make_app(start)) as url:
        found = page_times(url, poses, args.screenshot)
    found.update(in_process(start, poses))
    print(f"{'what':40s} {'n':>5s} {'median ms':>10s} {'p90 ms':>8s}")
    for name, label in (("page", "page: pointer move to verdict shown"),
                        ("server", "server: preview handler"),
                        ("TestClient request", "TestClient request (in process)"),
                        ("state.check alone", "state.check alone")):
        values = found[name]
        print(f"{label:40s} {len(values):5d} {statistics.median(values):10.2f} "
              f"{float(np.percentile(values, 90)):8.2f}")


if __name__ == "__main__":
    main()
