"""End to end in a real headless Chromium (Selenium): the referee's round trip on a real table,
and a sealed-bid game, through the page as a user drives it."""

from __future__ import annotations

import math
import statistics

import pytest
import yaml

from games.anasazi import legality as lg
from games.anasazi.actions import PlaceMarker, extend
from geomsim.cli import main
from geomsim.scenario import load_scenario
from geomsim.web.browser import point_at
from tests.web.conftest import SCENARIO

pytestmark = pytest.mark.xdist_group("browser")  # one browser per test session

WAIT = 10.0  # seconds an expected sight may take to appear


def robust(state, action: PlaceMarker, rules: tuple[str, ...]) -> PlaceMarker:
    """`action`, after checking that every pose within 2 mm of it gets the same verdict (the
    pointer lands on whole pixels, about 1.4 mm apart on the whole table)."""
    for dx in (-2.0, 0.0, 2.0):
        for dy in (-2.0, 0.0, 2.0):
            moved = PlaceMarker(action.expedition, action.x + dx, action.y + dy, action.heading)
            assert state.check(moved).rules == rules, (moved, state.check(moved))
    return action


def until(driver, test, what: str):
    """Wait for `test(driver)` to hold (the page redraws meanwhile: stale elements are retried)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.02, ignored_exceptions=(
            StaleElementReferenceException,)).until(test, message=what)
    except Exception:
        print(f"waiting for {what}: the page shows error {text(driver, 'error')!r}, verdict "
              f"{text(driver, 'verdict')!r}, status {text(driver, 'status')!r}")
        raise


def text(driver, id: str) -> str:
    return driver.find_element("id", id).text


def set_heading(driver, heading: float) -> None:
    box = driver.find_element("id", "heading")
    box.clear()
    box.send_keys(f"{heading}\n")


def click(driver, id: str) -> None:
    driver.find_element("id", id).click()


def test_place_see_why_apply_undo_save_and_replay(chromium, live_server, tmp_path, capsys):
    """Load a table; a ghost marker over an opponent's base camp shows anasazi/4.2/other-camp
    with the covered area drawn; moved clear it is legal; a click lays it; undo takes it back;
    saved as a scenario it replays with `geomsim run`, every ticked expectation holding."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import Select

    state = load_scenario(SCENARIO).state_at(16)
    covering = robust(state, extend(state, "E3", 128.7, along=12), (lg.OTHER_CAMP,))
    clear = robust(state, extend(state, "E3", 38.7, along=31), ())
    d = chromium
    d.get(live_server)
    until(d, lambda d: "step 22 of 22" in text(d, "status"), "the scenario's last step")
    for n in range(21, 15, -1):  # step back to step 16
        click(d, "back")
        until(d, lambda d, n=n: f"step {n} of 22" in text(d, "status"), f"step {n}")
    click(d, "tool-marker")
    Select(d.find_element("id", "param-expedition")).select_by_value("E3")
    # "From the ring" (the default): the ghost points from E3's start mark to the pointer.
    for turn in (-1.5, 0.0, 1.5):  # the pointer's pixel changes the heading by less than this
        assert state.check(extend(state, "E3", 128.7 + turn, along=0.01)).rules == (lg.OTHER_CAMP,)
    x, y, _ = lg.expedition_end(state.board(), "E3")
    far = math.radians(128.7)
    point_at(d, x + 120 * math.cos(far), y + 120 * math.sin(far))
    until(d, lambda d: lg.OTHER_CAMP in text(d, "verdict"), "other-camp from the ring")
    click(d, "from-anchor")  # now the ghost's centre follows the pointer
    set_heading(d, 128.7)
    point_at(d, covering.x, covering.y)
    until(d, lambda d: lg.OTHER_CAMP in text(d, "verdict"), "the other-camp verdict")
    verdict = text(d, "verdict")
    assert "mm²" in verdict and "player 0's base camp" in verdict
    assert d.find_elements("css selector", "#overlays path.overlap"), "the covered part is drawn"
    click(d, "expect-verdict")
    until(d, lambda d: "illegal: 1: marker E3" in text(d, "expectations"), "the verdict to expect")

    set_heading(d, 38.7)
    point_at(d, clear.x, clear.y)
    until(d, lambda d: d.find_elements("id", "verdict-legal"), "legal")
    assert not d.find_elements("css selector", "#overlays path.overlap")
    ActionChains(d).click().perform()
    until(d, lambda d: "step 17 of 17" in text(d, "status"), "the marker laid")
    assert "player 1 laid a marker of E3" in text(d, "events")

    click(d, "undo")
    until(d, lambda d: "step 16 of 16" in text(d, "status"), "undone")
    point_at(d, clear.x + 1.5, clear.y)  # the pointer moves again: a ghost, a verdict
    point_at(d, clear.x, clear.y)
    until(d, lambda d: d.find_elements("id", "verdict-legal"), "legal again")
    ActionChains(d).click().perform()
    until(d, lambda d: "step 17 of 17" in text(d, "status"), "laid again")
    box = d.find_element("xpath", "//label[contains(., 'step 17: player 1 laid a marker of E3')]"
                         ).get_attribute("for")
    click(d, box)
    until(d, lambda d: d.find_element("id", box).is_selected(), "ticked")

    click(d, "save-scenario")
    until(d, lambda d: "game: anasazi" in d.find_element("id", "scenario-text").get_attribute(
        "textContent"), "the scenario shown")
    saved = d.find_element("id", "scenario-text").get_attribute("textContent")
    data = yaml.safe_load(saved)
    assert len(data["steps"]) == 17 and data["steps"][16]["expect"][0]["event"] == "marker-laid"
    path = tmp_path / "saved.yaml"
    path.write_text(saved)
    capsys.readouterr()
    assert main(["run", str(path), "--no-outputs"]) == 0
    report = capsys.readouterr().out
    assert "2 passed, 0 failed" in report, report
    latencies = d.execute_script("return geomsim.latencies")
    # Another tab has a game of its own; this tab's is unchanged.
    first = d.current_window_handle
    d.switch_to.new_window("tab")
    d.get(live_server)
    until(d, lambda d: "step 22 of 22" in text(d, "status"), "a new tab's own game")
    d.close()
    d.switch_to.window(first)
    d.refresh()
    until(d, lambda d: "step 17 of 17" in text(d, "status"), "this tab's game after a reload")
    print(f"pointer move to verdict: median {statistics.median(latencies):.1f} ms over "
          f"{len(latencies)} moves")


def new_cibola_game(d, live_server):
    """The page with a new two-player Cibola game started from its "new game" form, at the
    first (simultaneous) send."""
    from selenium.webdriver.support.ui import Select

    d.get(live_server)
    until(d, lambda d: "step" in text(d, "status"), "the page")
    Select(d.find_element("id", "ng-game")).select_by_value("cibola")
    players = d.find_element("id", "ng-players")
    players.clear()
    players.send_keys("2")
    d.find_element("css selector", "#newgame button").click()
    until(d, lambda d: "to move: player 0, 1" in text(d, "status"), "a simultaneous send")
    return d


def test_sealed_bids_by_hand_in_a_new_game(chromium, live_server):
    """A new Cibola game from the page: each player's send entered in their own panel, hidden
    in the history and the last events until both have chosen."""
    d = new_cibola_game(chromium, live_server)
    assert d.find_elements("css selector", "#content svg"), "the game's own drawing"
    d.find_element("css selector", "#mover-0 summary").click()
    d.find_element("xpath", "//*[@id='mover-0']//button[text()='send 2']").click()
    until(d, lambda d: "to move: player 1" in text(d, "status"), "player 1's turn to send")
    assert "(a sealed choice)" in text(d, "history") and "send 2" not in text(d, "history")
    # Every text the page prints of that step goes through the view (issue 25, item 5).
    assert text(d, "events") == "applied 0: (a sealed choice)"
    for shown in ("status", "summary", "expectations", "error"):
        assert "send 2" not in text(d, shown), shown
    d.find_element("xpath", "//*[@id='mover-1']//button[text()='send 1']").click()
    until(d, lambda d: "0: send 2" in text(d, "history"), "both sends revealed")
    assert "1: send 1" in text(d, "history")


def test_a_seated_bot_moves_in_the_background_and_the_page_shows_it(chromium, live_server):
    """A bot seated from the page moves after the request that asked it has been answered (the
    server's bots think off the request threads); the page reads the view again until it has."""
    from selenium.webdriver.support.ui import Select

    d = new_cibola_game(chromium, live_server)
    Select(d.find_element("id", "seat-1")).select_by_value("random")
    click(d, "seats-apply")
    until(d, lambda d: "step 1 of 1" in text(d, "status"), "the bot's sealed send")
    assert "1: (a sealed choice) [random]" in text(d, "history")
    d.find_element("xpath", "//*[@id='mover-0']//button[text()='send 1']").click()
    until(d, lambda d: "0: send 1" in text(d, "history"), "the round resolved")
    until(d, lambda d: "a bot is thinking" not in text(d, "status"), "the bot done for now")
    assert "player 0" in text(d, "status")
