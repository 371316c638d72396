"""Scenario files: every scenario under scenarios/ passes; broken expectations fail with a clear
report; malformed files give one line naming the file, line and field (exit code 2); logs replay.

The machinery is also tested on the toy games of tests/toygames.py, extended here with a drawing,
an expectation kind and an output kind as a game would contribute them.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from geomsim import cli, registry
from geomsim import scenario as sc
from geomsim.registry import load_game
from tests.toygames import BidGame, GridGame, GridState

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("**/*.yaml"))
ERRORS = sorted((ROOT / "tests" / "scenario_errors").glob("*.yaml"))


# -- a toy game with the optional hooks ----------------------------------------------------
class DrawnGridState(GridState):
    def draw(self, ax=None, **options):
        from geomsim.plotting import new_axes

        ax = ax if ax is not None else new_axes(3, 3)
        for i, v in enumerate(self.board):
            ax.text(i % 3, 2 - i // 3, "." if v is None else "XO"[v], ha="center", va="center")
        ax.set_xlim(-0.5, 2.5)
        ax.set_ylim(-0.5, 2.5)
        return ax


def expect_cell(state, spec):
    """Game-contributed kind: `cell: N` holds player `mark` (null: empty)."""
    value = state.board[spec["cell"]]
    return value == spec.get("mark"), f"cell {spec['cell']} holds {value}"


expect_cell.schema = {"type": "object", "required": ["cell"], "additionalProperties": False,
                      "properties": {"cell": {"type": "integer", "minimum": 0, "maximum": 8},
                                     "mark": {"type": ["integer", "null"]}}}


def write_board(state, path, spec):
    """Game-contributed output: the board as text."""
    Path(path).write_text("".join("." if v is None else str(v) for v in state.board) + "\n")


class DrawnGrid(GridGame):
    def new_state(self, players=2, seed=None, setup=None):
        plain = super().new_state(players, seed, setup)
        return DrawnGridState(self, plain.board, plain.turn)

    def expectations(self):
        return {"cell": expect_cell}

    def outputs(self):
        return {"board_text": write_board}


TOYS = {"toy-grid": DrawnGrid(), "toy-bid": BidGame()}


def toy_or_real(name):
    return TOYS[name] if name in TOYS else load_game(name)


@pytest.fixture
def toys(monkeypatch):
    """Let scenario files (and logs) name the toy games."""
    monkeypatch.setattr(registry, "load_game", toy_or_real)


GRID = """\
game: toy-grid
players: 2
names: [Xena, Olaf]
seed: 1
steps:
  - "0: mark 0"
  - 1: mark 4
  - Xena: mark 8
  - name: probe
    expect:
      - illegal: "Olaf: mark 4"
        rule: toy/grid/empty
      - legal: mark 1
      - illegal: "0: mark 1"
        rule: engine/turn
      - to_move: [Olaf]
      - property: board[4]
        equals: 1
      - property: board
        length: 9
        contains: 0
      - cell: 4
        mark: 1
  - action: "1: mark 1"
    expect:
      - event: marked
        data: {cell: 1}
        count: 1
  - 0: mark 7
  - 1: mark 6
  - 0: mark 2
  - 1: mark 5
  - 0: mark 3
expect:
  - over: true
  - winners: [0, 1]
  - scores: [0, 0]
  - score: 0
    player: Olaf
outputs:
  - log: game.jsonl
  - state: probe.json
    at: probe
  - diagram: start.png
    at: 0
  - board_text: board.txt
"""


def grid(text=GRID, name="grid.yaml"):
    return sc.parse_scenario(text, name, load=toy_or_real)


# -- the real scenarios --------------------------------------------------------------------
@pytest.mark.parametrize("path", SCENARIOS, ids=[str(p.relative_to(ROOT / "scenarios")) for p in SCENARIOS])
def test_scenario_passes(path, tmp_path):
    """Each scenario file runs, every expectation holds and its outputs are written."""
    try:
        scenario = sc.load_scenario(path)
    except sc.ScenarioError as e:
        if "kind" in e.message and not _has_hooks(yaml.safe_load(path.read_text())["game"]):
            pytest.skip(f"the game does not contribute this kind yet: {e}")
        raise
    report = sc.run_scenario(scenario, out=tmp_path)
    assert report.ok, str(report)
    assert report.count("pass") > 0
    assert len(report.written) == len(scenario.outputs)


def _has_hooks(name: str) -> bool:
    """True when the game returns scenario expectation kinds of its own."""
    return callable(getattr(load_game(name), "expectations", None))


def test_reach_kinds_through_the_game_hooks(tmp_path):
    """Anasazi's reach expectations and reach map, through the hooks a game returns (a game
    object with `expectations()`/`outputs()` from games.anasazi.reach, as AnasaziGame will)."""
    anasazi = pytest.importorskip("games.anasazi.reach")
    base = type(load_game("anasazi"))

    class WithReach(base):
        def expectations(self):
            return anasazi.EXPECTATIONS

        def outputs(self):
            return anasazi.OUTPUTS

    game = WithReach()
    path = ROOT / "scenarios" / "anasazi" / "reach.yaml"
    scenario = sc.load_scenario(path, load=lambda name: game)
    report = sc.run_scenario(scenario, out=tmp_path)
    assert report.ok and report.count("pass") == 7, str(report)
    assert json.loads(next(p for p in report.written if p.suffix == ".json").read_text())["player"] == 0
    broken = path.read_text().replace("unreachable: P22", "reachable: P22", 1)
    report = sc.run_scenario(sc.parse_scenario(broken, path, load=lambda name: game))
    fails = report.failures()
    assert len(fails) == 1 and "P22: unreachable" in fails[0].message, str(report)


def test_every_game_has_scenarios():
    """At least eight real scenarios for each game that has a folder under scenarios/."""
    folders = {p.parent.name for p in SCENARIOS}
    for game in folders:
        found = [p for p in SCENARIOS if p.parent.name == game]
        assert len(found) >= 8, f"{game}: only {len(found)} scenarios"


# -- breaking expectations -----------------------------------------------------------------
def _broken(spec: dict, state_players: int) -> dict | None:
    """A copy of one expectation that must fail, or None if this kind is not broken here."""
    spec = copy.deepcopy(spec)
    other = lambda p: (p + 1) % state_players if isinstance(p, int) else p  # noqa: E731
    if "legal" in spec:
        spec["illegal"] = spec.pop("legal")
    elif "illegal" in spec:
        if "rule" in spec:
            spec["rule"] = "engine/form"  # a rule no game action breaks
        else:
            return None
    elif "score" in spec:
        spec["score"] += 1
    elif "scores" in spec:
        spec["scores"] = [s + 1 for s in spec["scores"]]
    elif "winner" in spec:
        spec["winner"] = other(spec["winner"]) if isinstance(spec["winner"], int) else 0 if spec["winner"] else 1
        if state_players < 2:
            return None
    elif "winners" in spec:
        spec["winners"] = spec["winners"][:-1] if len(spec["winners"]) > 1 else [other(spec["winners"][0])]
    elif "over" in spec:
        spec["over"] = not spec["over"]
    elif "to_move" in spec:
        spec["to_move"] = spec["to_move"] + [99 % state_players] if len(spec["to_move"]) < state_players \
            else spec["to_move"][:-1]
    elif "property" in spec:
        if "equals" in spec:
            spec["equals"] = ["not", "this"]
        elif "length" in spec:
            spec["length"] += 1
        elif not _break_bound(spec):
            spec["contains"] = "no such thing"
    elif "event" in spec:
        spec["count"] = spec.get("count", 1) + 1
    elif "analysis" in spec:  # a batch question: a bound no measured value meets
        if "between" in spec:
            spec["between"] = [10**9, 10**9 + 1]
        elif not _break_bound(spec):
            spec["equals"] = "not this"
    elif "reachable" in spec or "unreachable" in spec:  # Anasazi's reach kinds: the opposite
        kind = "reachable" if "reachable" in spec else "unreachable"
        spec["unreachable" if kind == "reachable" else "reachable"] = spec.pop(kind)
    else:
        return None
    return spec


def _break_bound(spec: dict) -> bool:
    """Move an `at_least` or `at_most` bound out of reach; False when the spec has neither."""
    if "at_least" in spec:
        spec["at_least"] = 10**9
    elif "at_most" in spec:
        spec["at_most"] = -(10**9)
    else:
        return False
    return True


def _expectation_slots(data: dict):
    """(list holding an expectation, index) for every expectation in a scenario's data."""
    for holder in [s for s in data.get("steps", []) if isinstance(s, dict) and "expect" in s] + [data]:
        if "expect" not in holder:
            continue
        if isinstance(holder["expect"], dict):
            holder["expect"] = [holder["expect"]]
        for i in range(len(holder["expect"])):
            yield holder["expect"], i


def _break_each_kind(data: dict, players: int) -> list[tuple[str, dict]]:
    """One broken copy of the scenario data per core expectation kind that it uses."""
    copies, kinds_done = [], set()
    slots = list(_expectation_slots(copy.deepcopy(data)))
    for n in range(len(slots)):
        mutated = copy.deepcopy(data)
        holder, i = list(_expectation_slots(mutated))[n]
        kind = next(k for k in holder[i] if k in sc.CORE_EXPECTATIONS or k not in ("player", "note"))
        broken = _broken(holder[i], players)
        if kind in kinds_done or broken is None:
            continue
        holder[i] = broken
        kinds_done.add(kind)
        copies.append((kind, mutated))
    return copies


def test_broken_toy_expectations_fail_clearly():
    """A broken copy of each kind of expectation fails, naming what it found and what it expected."""
    data = yaml.safe_load(GRID)
    copies = _break_each_kind(data, 2)
    assert {k for k, _ in copies} >= {"illegal", "legal", "to_move", "property", "event", "over", "winners",
                                      "scores", "score"}
    for kind, mutated in copies:
        report = sc.run_scenario(grid(yaml.safe_dump(mutated, sort_keys=False)))
        fails = report.failures()
        assert len(fails) == 1, (kind, str(report))
        assert fails[0].line and "expected" in fails[0].message, (kind, str(fails[0]))


@pytest.mark.parametrize("edit, words", [
    ({"legal": "Olaf: mark 0"}, ["'Olaf: mark 0' is illegal, expected legal", "toy/grid/empty"]),
    ({"illegal": "Olaf: mark 2"}, ["'Olaf: mark 2' is legal, expected illegal"]),
    ({"illegal": "Olaf: mark 0", "rule": "toy/grid/on-board"},
     ["illegal by toy/grid/empty, expected by toy/grid/on-board"]),
    ({"legal": "mark 2", "player": 0}, ["engine/turn", "player 0 is not to move"]),
    ({"score": 1, "player": 1}, ["score of player 1 (Olaf) is 0, expected 1"]),
    ({"winner": "Xena"}, ["winners: nobody (the game is not over), expected player 0 (Xena)"]),
    ({"over": True}, ["the game is not over"]),
    ({"property": "board[9]", "equals": 0}, ["no item 9 in board (a list of 9)"]),
    ({"property": "turns", "equals": 0}, ["no key 'turns' in the root (keys: board, turn)"]),
    ({"property": "turn", "at_least": 5}, ["state turn is 1: expected at least 5"]),
    ({"property": "board", "contains": 7}, ["expected it to contain 7"]),
    ({"property": "turn", "of": "observe", "player": 0, "equals": 0}, ["observe(0) turn is 1: expected 0"]),
    ({"cell": 4, "mark": 0}, ["cell 4 holds 1"]),
])
def test_each_broken_expectation_reports_why(edit, words):
    """The failure report of each kind says what was found, what was expected, and the rule."""
    text = GRID.replace("      - cell: 4\n        mark: 1\n",
                        "      - " + json.dumps(edit) + "\n")
    report = sc.run_scenario(grid(text))
    fails = report.failures()
    assert len(fails) == 1, str(report)
    assert fails[0].line == 22 and fails[0].where == "step 4"
    for w in words:
        assert w in fails[0].message, fails[0].message
    if "rule" in edit:
        assert fails[0].rules == (edit["rule"],)


def test_broken_event_expectation():
    text = GRID.replace("count: 1", "count: 2")
    fails = sc.run_scenario(grid(text)).failures()
    assert len(fails) == 1 and "1 x event 'marked' with {\"cell\": 1}, expected exactly 2" in fails[0].message


def test_illegal_step_stops_the_scenario_and_names_the_rule():
    report = sc.run_scenario(grid(GRID.replace("1: mark 6", "1: mark 8")))
    fails = report.failures()
    assert len(fails) == 1 and fails[0].rules == ("toy/grid/empty",)
    assert "'Olaf: mark 8' is illegal: toy/grid/empty: cell 8 is taken (the scenario stops here)" in fails[0].message
    assert report.count("skip") == 1 and "4 expectation(s) not checked" in str(report)


def test_broken_copies_of_real_scenarios_fail():
    """For every real scenario, a broken copy of each kind of expectation it uses fails."""
    checked = set()
    for path in SCENARIOS:
        try:
            sc.load_scenario(path)
        except sc.ScenarioError:
            continue  # a kind its game does not contribute yet (test_scenario_passes skips it)
        data = yaml.safe_load(path.read_text())
        for kind, mutated in _break_each_kind(data, data["players"]):
            if (data["game"], kind) in checked:
                continue
            checked.add((data["game"], kind))
            report = sc.run_scenario(sc.parse_scenario(yaml.safe_dump(mutated, sort_keys=False), path))
            assert not report.ok, f"{path}: broken {kind} passed:\n{report}"
    if SCENARIOS:
        assert checked


# -- the Python API ------------------------------------------------------------------------
def test_state_at_by_number_and_name():
    s = grid()
    assert s.state_at(0).board == [None] * 9
    assert s.state_at("probe").board == s.state_at(4).board == s.state_at(3).board
    assert s.state_at("probe").board[4] == 1
    assert s.state_at("end").is_over()
    with pytest.raises(KeyError, match="no step named 'nope'"):
        s.state_at("nope")
    with pytest.raises(KeyError, match="steps are 0"):
        s.state_at(99)


def test_outputs_and_report(tmp_path):
    report = sc.run_scenario(grid(), out=tmp_path)
    assert report.ok, str(report)
    folder = tmp_path / "toy-grid" / "grid"
    assert sorted(p.name for p in report.written) == ["board.txt", "game.jsonl", "probe.json", "start.png"]
    final = grid().state_at("end").board
    assert (folder / "board.txt").read_text() == "".join(map(str, final)) + "\n"
    assert json.loads((folder / "probe.json").read_text())["board"][4] == 1
    lines = (folder / "game.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    assert header["game"] == "toy-grid" and header["players"] == 2 and header["seed"] == 1
    assert [json.loads(line)["action"] for line in lines[1:]][:3] == ["mark 0", "mark 4", "mark 8"]
    assert (folder / "start.png").read_bytes()[:4] == b"\x89PNG"
    text = str(report)
    assert "wrote" in text and "passed, 0 failed" in text


def test_output_at_a_step_not_reached_is_skipped(tmp_path):
    report = sc.run_scenario(grid(GRID.replace("1: mark 6", "1: mark 8")), out=tmp_path)
    assert any(r.status == "skip" and "game.jsonl: end was not reached" in r.message for r in report.results)


# -- command line --------------------------------------------------------------------------
def _write(tmp_path, text, name="grid.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_run_command_exit_codes(tmp_path, toys, capsys):
    good = _write(tmp_path, GRID)
    bad = _write(tmp_path, GRID.replace("score: 0", "score: 3"), "bad.yaml")
    broken = _write(tmp_path, GRID.replace("seed: 1", "seed: one"), "broken.yaml")
    assert cli.main(["run", str(good), "--out", str(tmp_path / "out")]) == 0
    assert "pass" in capsys.readouterr().out
    assert cli.main(["run", str(good), str(bad), "--no-outputs", "-q"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "score of player 1 (Olaf) is 0, expected 3" in out and "pass " not in out
    assert cli.main(["run", str(good), str(broken), "--no-outputs"]) == 2
    err = capsys.readouterr().err
    assert f"{broken}:4: seed: expected an integer, got a string 'one'" in err


def test_check_command(tmp_path, toys, capsys):
    good = _write(tmp_path, GRID)
    assert cli.main(["check", str(good)]) == 0
    assert "ok (toy-grid, 2 players, 10 steps, 12 expectations, 4 outputs)" in capsys.readouterr().out


def test_replay_frames_and_gif(tmp_path, toys, capsys):
    sc.run_scenario(grid(), out=tmp_path)
    log = tmp_path / "toy-grid" / "grid" / "game.jsonl"
    assert cli.main(["replay", str(log), "-o", str(tmp_path / "frames")]) == 0
    frames = sorted((tmp_path / "frames").glob("*.png"))
    assert len(frames) == 10  # the start and nine marks
    assert "wrote 10 frames" in capsys.readouterr().out
    from PIL import Image

    assert cli.main(["replay", str(log), "-o", str(tmp_path / "game.gif"), "--fps", "5"]) == 0
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == 10


def test_replay_frames_are_the_games_own_pictures_of_each_moment(tmp_path, toys):
    """A frame is what `State.draw` makes of that moment alone (its title, no axis ticks)."""
    sc.run_scenario(grid(), out=tmp_path)
    log = sc.read_log(tmp_path / "toy-grid" / "grid" / "game.jsonl")
    frames = sc.replay(log, tmp_path / "frames")
    from PIL import Image, ImageChops

    from geomsim.plotting import caption, save

    for number, (title, state) in enumerate(log.frames()):
        fig = state.draw().figure
        caption(fig, title)
        alone = save(fig, tmp_path / f"alone-{number}.png")
        with Image.open(alone) as a, Image.open(frames[number]) as f:
            assert a.size == f.size
            assert ImageChops.difference(a.convert("RGB"), f.convert("RGB")).getbbox() is None


def test_replay_errors(tmp_path, toys, capsys):
    log = _write(tmp_path, '{"format": "geomsim-log", "version": 1, "game": "toy-grid", "players": 2, "seed": 1}\n'
                           '{"step": 1, "player": 0, "action": "mark 0", "action_json": {"kind": "mark", "cell": 0}}\n'
                           '{"step": 2, "player": 1, "action": "mark 0", "action_json": {"kind": "mark", "cell": 0}}\n',
                 "game.jsonl")
    assert cli.main(["replay", str(log), "-o", str(tmp_path / "f")]) == 2
    assert f"{log}:3: action: 'mark 0' is illegal: toy/grid/empty" in capsys.readouterr().err
    assert cli.main(["replay", str(log), "-o", str(tmp_path / "x.mp4")]) == 2
    assert "x.mp4: give a name ending in .gif (or a folder" in capsys.readouterr().err
    not_log = _write(tmp_path, "{}\n", "x.jsonl")
    assert cli.main(["replay", str(not_log), "-o", str(tmp_path / "f")]) == 2
    assert f"{not_log}:1: not a geomsim game log" in capsys.readouterr().err


# -- malformed files -----------------------------------------------------------------------
def _expected(path: Path) -> str:
    """What follows the file name in the error: the first line of the file reads
    ``# error: LINE: FIELD: start of the message``."""
    first = path.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    assert first.startswith("# error: "), f"{path.name}: first line must be '# error: LINE: FIELD: words'"
    return first.removeprefix("# error: ")


def test_there_are_thirty_error_files():
    assert len(ERRORS) >= 30


@pytest.mark.parametrize("path", ERRORS, ids=[p.name for p in ERRORS])
def test_malformed_file_gives_one_clear_line(path, toys, capsys):
    """A malformed file: exit code 2 and one line naming the file, the line and the field."""
    expected = _expected(path)
    assert cli.main(["check", str(path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"geomsim: error: {path}:{expected}"), lines[0]
    assert "Traceback" not in captured.err and captured.out == ""


def test_malformed_file_through_a_subprocess():
    """The installed command reports a malformed file in one line with exit code 2."""
    path = ROOT / "tests" / "scenario_errors" / "unknown-game.yaml"
    done = subprocess.run([sys.executable, "-m", "geomsim.cli", "run", str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "unknown game 'chess'" in done.stderr
    assert "Traceback" not in done.stderr


def test_run_through_a_subprocess(tmp_path):
    """`geomsim run` on a real scenario exits 0; on a copy with a wrong score it exits 1."""
    path = ROOT / "scenarios" / "cibola" / "two-players.yaml"
    broken = tmp_path / "two-players.yaml"
    broken.write_text(path.read_text().replace("equals: [12, 12]", "equals: [12, 11]"))
    done = [subprocess.run([sys.executable, "-m", "geomsim.cli", "run", str(p), "--no-outputs", "-q"],
                           capture_output=True, text=True, cwd=ROOT) for p in (path, broken)]
    assert [d.returncode for d in done] == [0, 1], [d.stdout + d.stderr for d in done]
    assert "FAIL  line 15" in done[1].stdout and "expected [12, 11]" in done[1].stdout
