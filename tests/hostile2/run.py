"""Feed one class of tests/hostile2's cases to the code it targets, in this process, and print
one JSON line per case: its name, the problem found (null when the case held) and its seconds.
tests/test_hostile_classes.py runs this in a subprocess under the limits of tests/test_hostile.py
(address space, CPU time); each case here also gets a wall-clock budget (SIGALRM), so a reader
that blocks on a FIFO or a bot that never stops costs one case, not the run.

    python -m tests.hostile2.run CLASS SCRATCH_FOLDER SECONDS

The first line is the plan (every case's name, so a run killed from outside still says which
case it was on); the last is this process's peak memory, as in tests/hostile/run.py.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import os
import re
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from tests.hostile.run import emit, peak_kb
from tests.hostile2.generate import HIDDEN_SETUP, WEB_EXPECT, Case, cases

MAX_TIMEOUTS = 3  # cases of one class over the budget before the rest are left out
TOKEN = "hostile2-token"
# A raw exception's name in a message meant for a user.
ERROR_NAME = re.compile(r"\b[A-Z][a-z]+[A-Za-z]*(Error|Exception)\b")


class Timeout(BaseException):
    """The case's time budget ran out (a BaseException: `except Exception` in the code under
    test must not swallow it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout


# -- the command line ----------------------------------------------------------------------------
def run_cli(argv: list[str]) -> tuple[int | None, str, str | None]:
    """`geomsim --debug ARGV` in this process: exit code (None if it raised), stderr, traceback.
    stdout is strict UTF-8, as a real terminal or pipe is: a lone surrogate printed fails."""
    from geomsim import cli

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
    crash = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: int | None = cli.main(["--debug", *argv])
        except Exception:  # --debug lets what the command did not handle through
            code, crash = None, traceback.format_exc(limit=-3)
    err.flush()
    return code, err.buffer.getvalue().decode("utf-8"), crash


def error_lines(stderr: str) -> list[str]:
    """stderr without click's usage preamble (``Usage: ...``, ``Try '...' for help.``)."""
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith(("Usage:", "Try '"))]


def refusal_problem(code: int | None, stderr: str, crash: str | None, file: str | None = None,
                    names: str | None = None) -> str | None:
    """What is wrong with a refusal: it must exit 2 with one line, no exception's name, naming
    `names`, and for a scenario `file` its line (or a limit)."""
    if crash is not None:
        return "traceback: " + " | ".join(crash.strip().splitlines()[-3:])
    if code != 2:
        return f"exit {code}, not 2: {stderr.strip()[:200]!r}"
    lines = error_lines(stderr)
    if len(lines) != 1:
        return f"{len(lines)} lines on stderr, not 1: {stderr[:300]!r}"
    line = lines[0]
    if ERROR_NAME.search(line):
        return f"a raw exception's name: {line[:300]}"
    if not line.startswith("geomsim: error: "):
        return f"not one error line: {line[:300]}"
    if file is not None:
        where = re.match(re.escape(f"geomsim: error: {file}:") + r"(\d+: )?(.*)$", line)
        if not (where and (where.group(1) or "limit" in where.group(2))):
            return f"does not name the file and line: {line[:300]}"
    if names is not None and names not in line:
        return f"does not name {names!r}: {line[:300]}"
    return None


def fill(text: str, ctx: dict[str, Any]) -> str:
    """The runner's placeholders: {tmp}, {case}, {setup}, {pueblo}, {scenario:SETUP LINE} (a Cibola
    scenario file with that setup line, written now)."""
    found = re.fullmatch(r"\{scenario:(.*)\}", text, re.S)
    if found:
        path = ctx["tmp"] / f"scenario-{len(list(ctx['tmp'].glob('scenario-*')))}.yaml"
        line = found.group(1).replace("{tmp}", str(ctx["tmp"]))
        path.write_text(f"game: cibola\nplayers: 2\n{line}\n", encoding="utf-8")
        return str(path)
    case = ctx["tmp"] / f"case-{ctx['case']}"
    case.mkdir(exist_ok=True)
    return text.format(tmp=ctx["tmp"], case=case, setup=ctx["setup"], pueblo=ctx["pueblo"])


def judge_command(case: Case, ctx: dict[str, Any]) -> str | None:
    """files and cli: a control exits 0; every other case exits 2 in one line (or 0 where
    `expect` is "either")."""
    code, stderr, crash = run_cli([fill(arg, ctx) for arg in case["argv"]])
    if case["expect"] == "ok":
        return None if code == 0 else f"control failed: exit {code}: {stderr[:300]!r} {crash or ''}"
    if case["expect"] == "either" and code == 0:
        return None
    return refusal_problem(code, stderr, crash, names=case.get("names"))


def judge_scenario(case: Case, ctx: dict[str, Any]) -> str | None:
    """yaml: `check`, then (when check accepts and the case need not be refused) `run`."""
    path = ctx["tmp"] / (re.sub(r"[^\w-]", "_", case["name"]) + ".yaml")
    path.write_text(case["text"], encoding="utf-8")
    code, stderr, crash = run_cli(["check", str(path)])
    if case.get("control"):
        if code != 0:
            return f"control refused by check: {stderr[:300]!r} {crash or ''}"
    elif code != 0 or case["must_refuse"]:  # a case to refuse is not run: it may never end
        problem = refusal_problem(code, stderr, crash, file=str(path))
        return f"check: {problem}" if problem else None
    code, stderr, crash = run_cli(["run", "--out", str(ctx["tmp"] / "out"), str(path)])
    if case.get("control") and code != 0:
        return f"control failed in run: exit {code}: {stderr[:300]!r} {crash or ''}"
    if code == 2 or crash is not None:
        problem = refusal_problem(code, stderr, crash, file=str(path))
        return f"passes check, then run: {problem}" if problem else None
    return None if code in (0, 1) else f"run: exit {code}"


# -- the library -----------------------------------------------------------------------------------
def judge_setup(case: Case, ctx: dict[str, Any]) -> str | None:
    """A setup is refused with a DataError naming a field, or its state's JSON reads back equal."""
    from geomsim.reading import DataError
    from geomsim.registry import load_game

    game = load_game(case["game"])
    try:
        state = game.new_state(case["players"], seed=case["seed"], setup=case["setup"])
    except DataError as e:
        if case.get("control"):
            return f"control refused: {e}"
        return None if e.path and "\n" not in str(e) else f"a DataError without a field path: {str(e)[:200]}"
    except Exception as e:
        return f"{type(e).__name__}, not DataError: {str(e)[:200]}"
    try:
        back = game.state_from_json(state.to_json())
    except Exception as e:
        return f"accepted, but its state JSON does not read back: {type(e).__name__}: {str(e)[:200]}"
    return None if back == state else "accepted, but its state JSON reads back as another state"


def judge_action(case: Case, ctx: dict[str, Any]) -> str | None:
    """Action JSON is refused with a DataError, or the action's text parses back to it."""
    from geomsim.reading import DataError
    from geomsim.registry import load_game

    game = load_game(case["game"])
    try:
        action = game.action_from_json(case["obj"])
    except DataError as e:
        if case.get("control"):
            return f"control refused: {e}"
        return None if "\n" not in str(e) else f"a DataError of several lines: {str(e)[:200]!r}"
    except Exception as e:
        return f"{type(e).__name__}, not DataError: {str(e)[:200]}"
    text = str(action)
    try:
        back = game.parse_action(text)
    except Exception as e:
        return f"action_from_json accepts it, but its text {text[:60]!r} does not parse: {str(e)[:150]}"
    return None if back == action else f"its text {text[:60]!r} parses as another action: {back!r:.100}"


# -- the web app ---------------------------------------------------------------------------------
def web_clients() -> dict[str, Any]:
    """An app over an Anasazi game; a client that holds the server's token (where the app has
    one: this is the place to adapt when the token lands) and one that never had it."""
    import warnings

    from geomsim.registry import load_game
    from geomsim.web import make_app
    from geomsim.web.session import Start

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's note on httpx versions
        from starlette.testclient import TestClient
    start = Start(load_game("anasazi"), 2, seed=3, title="hostile2")
    has_token = "token" in inspect.signature(make_app).parameters
    app = make_app(start, token=TOKEN) if has_token else make_app(start)  # type: ignore[call-arg]
    base = "http://127.0.0.1:8765"
    client = TestClient(app, base_url=base, raise_server_exceptions=False)
    if has_token:
        client.get(f"/?token={TOKEN}")  # the printed URL: the token exchanged for the cookie
    anonymous = TestClient(app, base_url=base, raise_server_exceptions=False)
    # Entered for the run (never left: the process ends with os._exit): one event loop for
    # every request instead of one each.
    ctx = {"client": client.__enter__(), "anonymous": anonymous}
    for game in ("anasazi", "cibola"):  # what the first requests import, outside the budgets
        sid, view = new_session(ctx, {"game": game})
        client.post(f"/api/s/{sid}/options", json={"viewer": 1})
    return ctx


def new_session(ctx: dict[str, Any], body: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    r = ctx["client"].post("/api/sessions", json=body or {})
    if r.status_code != 200:
        raise RuntimeError(f"cannot make a session: {r.status_code} {r.text[:200]}")
    return r.json()["session"], r.json()["view"]


def judge_web(case: Case, ctx: dict[str, Any]) -> str | None:
    """The request gets the status `WEB_EXPECT` gives its kind; an error is one line of JSON."""
    if case["endpoint"] == "sessions":
        url, version, first = "/api/sessions", 0, ""
    else:
        sid, view = new_session(ctx)
        url, version = f"/api/s/{sid}/{case['endpoint']}", view["version"]
        offered = [a for space in view["actions"].values() for a in space["items"]]
        first = offered[0] if offered else ""
    if "raw" in case:
        content = case["raw"].replace("%VERSION%", str(version))
    else:
        content = json.dumps({"version": version, **case["body"]}).replace("{first}", first)
    headers = {"content-type": "application/json", **case.get("headers", {})}
    client = ctx["anonymous"] if case.get("anonymous") else ctx["client"]
    r = client.post(url, content=content.encode(), headers=headers)
    expected = WEB_EXPECT[case["expect"]]
    if expected == "4xx":
        right = 400 <= r.status_code < 500
    else:
        right = r.status_code < 500 if expected == "below 500" else r.status_code in expected
    if not right:
        return f"HTTP {r.status_code}, expected {expected}: {r.text[:200]}"
    if r.status_code < 400:
        return None
    try:
        error = r.json()["error"]
    except Exception:
        return f"HTTP {r.status_code} without a JSON error: {r.text[:200]!r}"
    if not isinstance(error, str) or "\n" in error or ERROR_NAME.search(error):
        return f"HTTP {r.status_code}, not one clear line: {str(error)[:200]!r}"
    return None


# -- hidden information ----------------------------------------------------------------------------
def seeds_in(data: Any, here: str = "") -> list[tuple[str, int]]:
    """Every integer of `data` under a key that names a seed: (its path, its value)."""
    if isinstance(data, dict):
        return [s for k, v in data.items() for s in seeds_in(v, f"{here}.{k}")]
    if isinstance(data, list):
        return [s for i, v in enumerate(data) for s in seeds_in(v, f"{here}[{i}]")]
    if isinstance(data, int) and not isinstance(data, bool) and "seed" in here.rsplit(".", 1)[-1].lower():
        return [(here, data)]
    return []


def judge_hidden(case: Case, ctx: dict[str, Any]) -> str | None:
    """A determinization carries neither the true seed nor a seed that deals the true hidden setup."""
    import numpy as np

    from geomsim.registry import load_game

    if case.get("web"):
        return judge_sealed_send(case, ctx)
    game, players, seed = load_game(case["game"]), case["players"], case["seed"]
    state, rng = game.new_state(players, seed=seed), np.random.default_rng(seed)
    for _ in range(case["steps"]):
        if state.is_over():
            break
        mover = state.to_move()[0]
        state.apply(state.legal_actions(mover).sample(rng, 1)[0], mover)
    det = state.determinize(case["player"], np.random.default_rng(1))
    found = seeds_in(json.loads(det.to_json()), "state")
    for name in ("seed", "setup.seed", "deal.seed"):  # attributes a caller can read
        value: Any = det
        for part in name.split("."):
            value = getattr(value, part, None)
        if isinstance(value, int) and not isinstance(value, bool):
            found.append((f"det.{name}", value))
    truth = game.make_setup(players, seed)
    for where, value in found:
        if value == seed:
            return f"the determinization carries the true setup seed at {where}"
        if 0 <= value < 2**63:
            dealt = game.make_setup(players, value)
            if all(dealt.get(f) == truth.get(f) for f in HIDDEN_SETUP[case["game"]]):
                return f"make_setup({where}) deals the true hidden setup ({', '.join(HIDDEN_SETUP[case['game']])})"
    return None


def judge_sealed_send(case: Case, ctx: dict[str, Any]) -> str | None:
    """Player 0 sends explorers in Cibola (sealed) with viewer 1 chosen: neither the answer to the
    send nor the page's view may show the number sent."""
    client = ctx["client"]
    sid, view = new_session(ctx, {"game": case["game"], "players": case["players"], "seed": case["seed"]})
    r = client.post(f"/api/s/{sid}/options", json={"viewer": 1})
    if r.status_code != 200:
        return f"cannot choose viewer 1: {r.status_code} {r.text[:200]}"
    r = client.post(f"/api/s/{sid}/apply", json={"action": "send 3", "player": 0,
                                                 "version": r.json()["view"]["version"]})
    if r.status_code != 200:
        return f"cannot send: {r.status_code} {r.text[:200]}"
    answer = r.json()
    shown = {"applied": answer.get("applied"), "events": answer.get("events"),
             "history": answer.get("view", {}).get("history")}
    leaks = [key for key, value in shown.items() if "send 3" in json.dumps(value)]
    return f"the sealed 'send 3' of player 0 is shown to viewer 1 in: {', '.join(leaks)}" if leaks else None


# -- the run ---------------------------------------------------------------------------------------
JUDGES = {"yaml": judge_scenario, "files": judge_command, "cli": judge_command, "setups": judge_setup,
          "actions": judge_action, "web": judge_web, "hidden": judge_hidden}


def prepare(cls: str, tmp: Path) -> dict[str, Any]:
    """The scratch folder's fixtures: a valid Anasazi setup file, a FIFO, a folder, a symlink
    named .json to /dev/zero; the web clients."""
    from geomsim.registry import load_game

    setup = load_game("anasazi").make_setup(2, 3)
    (tmp / "anasazi-setup.json").write_text(json.dumps(setup), encoding="utf-8")
    for name, make in (("fifo", os.mkfifo), ("dir", os.mkdir)):
        if not (tmp / name).exists():
            make(tmp / name)
    if not (tmp / "zero-link.json").is_symlink():
        (tmp / "zero-link.json").symlink_to("/dev/zero")
    ctx: dict[str, Any] = {"tmp": tmp, "setup": str(tmp / "anasazi-setup.json"),
                           "pueblo": setup["pueblos"][0]["id"]}
    if cls in ("web", "hidden"):
        ctx.update(web_clients())
    return ctx


class Watchdog(threading.Thread):
    """A backstop for a case the alarm cannot stop (a loop that never returns to Python, but
    lets other threads run): after three budgets it reports that case and those left, and
    ends the run."""

    def __init__(self, found: list[Case], seconds: float):
        super().__init__(daemon=True)
        self.found, self.seconds = found, seconds
        self.current = 0  # the case running ...
        self.started: float | None = None  # ... since when (None: none is)

    def run(self) -> None:
        while True:
            time.sleep(0.5)
            started = self.started
            if started is not None and time.perf_counter() - started > 3 * self.seconds:
                left = self.found[self.current:]
                emit(name=left[0]["name"], seconds=3 * self.seconds,
                     problem=f"still running after {3 * self.seconds:g} s: the alarm did not stop it")
                for case in left[1:]:
                    emit(name=case["name"], problem="not run: the case before never ended", seconds=0.0)
                emit(peak_kb=peak_kb())
                sys.stdout.flush()
                os._exit(0)


def main(cls: str, tmp: Path, seconds: float) -> None:
    found = cases(cls)
    emit(plan=[case["name"] for case in found])
    ctx = prepare(cls, tmp)
    signal.signal(signal.SIGALRM, _alarm)
    timeouts = 0
    watchdog = Watchdog(found, seconds)
    watchdog.start()  # now: under the memory limit a thread may not start once memory is short
    for k, case in enumerate(found):
        ctx["case"] = k
        if timeouts >= MAX_TIMEOUTS:
            emit(name=case["name"], problem=f"not run: {MAX_TIMEOUTS} cases already took over {seconds:g} s",
                 seconds=0.0)
            continue
        start = watchdog.started = time.perf_counter()
        watchdog.current = k
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            problem = JUDGES[cls](case, ctx)
        except Timeout:
            problem, timeouts = f"no answer within {seconds:g} s", timeouts + 1
        except Exception:
            problem = "the harness failed: " + " | ".join(traceback.format_exc(limit=-2).splitlines()[-3:])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            watchdog.started = None
        emit(name=case["name"], problem=problem, seconds=time.perf_counter() - start)
    emit(peak_kb=peak_kb())
    sys.stdout.flush()
    os._exit(0)  # threads a case left running (a bot in the web app) must not keep this alive


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), float(sys.argv[3]))
