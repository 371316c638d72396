"""Hostile input (issue 14): every reader of user data bounds what it accepts and refuses the
rest in one line naming the file, line and field, or the limit; a state that loads plays.

The corpus under tests/hostile/ (made by tests/hostile/make_corpus.py from a fixed seed) runs in
a subprocess limited to `MEMORY_LIMIT` of address space, one input at a time: no traceback, no
input over `SECONDS` s, no refused scenario without file and line (or a limit), no state that
loads and then breaks. Hypothesis mutates valid state JSON of every game the same way, and
hostile action JSON.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geomsim.reading import DataError
from geomsim.registry import load_game
from geomsim.scenario import ScenarioError, parse_scenario
from geomsim.scenario.source import MAX_BYTES, MAX_DEPTH, MAX_ITEMS, MAX_NODES
from geomsim.testing import check_from_state, random_playout

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
MEMORY_LIMIT = 500 * 2**20
SECONDS = 10.0
GAMES = ("anasazi", "aztekz", "cibola")

# What the hand-made attacks must say (besides file and line).
EXPECTED = {
    "laughs-in-setup": "more than 200,000 values once anchors and aliases are expanded (the limit)",
    "laughs-at-top": "(the limit)", "laughs-in-steps": "(the limit)",
    "nested-flow-1000": f"nested deeper than {MAX_DEPTH} levels (the limit)",
    "nested-block-400": "nested deeper than", "nested-map-300": "nested deeper than",
    "nul-byte": "the control character #x00 is not allowed", "bel-byte": "the control character #x07",
    "set-tag": "names: the tag !!set is not allowed", "binary-tag": "the tag !!binary",
    "omap-tag": "the tag !!omap", "timestamp-tag": "the tag !!timestamp", "merge-key": "the tag !!merge",
    "duplicate-mapping-scalar": "expect[0].to_move: duplicate field 'to_move' (first at line 5)",
    "duplicate-list-int": "steps: duplicate field 'steps'", "duplicate-in-step": "steps[0].player: duplicate",
    "deck-mixed-types": ":4: setup.deck[1]: cibola rejects it: expected `int`, got `str`",
    "deck-lists": "setup.deck[0]: cibola rejects it", "deck-mappings": "setup.deck[0]: cibola rejects it",
    "totems-unhashable": "setup.totems[0]: cibola rejects it",
    "long-bad-action": "steps[0].action: cannot parse cibola action 'send send",
    "aztekz-players-huge": "players: aztekz is played by 2 to 4 players, not 100000000",
    "anasazi-marker-huge": "marker x must be a number from -1e+06 to 1e+06, not inf",
    "anasazi-marker-1e308": "marker x must be a number from -1e+06 to 1e+06, not 1e+308",
    "anasazi-setup-coordinates": "setup.mesas[0].polygon[1][0]: anasazi rejects it: expected `float` <= 10000.0",
    "not-utf8": ":4: not UTF-8 text: byte 0xe9 at column 17", "not-utf8-late": ":6: not UTF-8 text: byte 0xff",
    "utf16": ":1: not UTF-8 text",
}


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (300, 300))


def _run(*args: str) -> list[dict]:
    """tests/hostile/run.py in a subprocess under the limits: its JSON lines, the last of them
    its own peak memory (VmHWM since its exec: not the pages of the test process it forked from)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-m", "tests.hostile.run", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, preexec_fn=_limited, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    *lines, last = [json.loads(line) for line in done.stdout.splitlines()]
    assert last["peak_kb"] * 1024 < MEMORY_LIMIT, f"a process reached {last['peak_kb'] / 2**10:.0f} MB"
    return lines


@pytest.fixture(scope="module")
def scenario_results(tmp_path_factory) -> list[dict]:
    """Every corpus file, and two made here: a 50 MB file and one with too many steps."""
    tmp = tmp_path_factory.mktemp("hostile")
    huge = tmp / "huge.yaml"
    with open(huge, "wb") as out:  # sparse: refused from its size, never read
        out.write(b"game: cibola\nplayers: 2\nsteps:\n")
        out.truncate(50 * 2**20)
    many = tmp / "many-steps.yaml"
    many.write_text("game: cibola\nplayers: 2\nsteps:\n" + "  - send 1\n" * (MAX_ITEMS + 1))
    files = sorted(str(p) for p in (HOSTILE / "scenarios").glob("*.yaml")) + [str(huge), str(many)]
    return _run("scenarios", *files)


def test_the_corpus_is_large():
    assert len(list((HOSTILE / "scenarios").glob("*.yaml"))) >= 150
    assert set(EXPECTED) <= {p.stem for p in (HOSTILE / "scenarios").glob("*.yaml")}


def test_hostile_scenarios_give_one_clear_line(scenario_results):
    """0 tracebacks, 0 runs over 10 s, each refusal one line naming the file and the line (or
    the limit), never an exception's name."""
    refused = 0
    for r in scenario_results:
        assert r["crash"] is None, f"{r['file']}: {r['crash']}"
        assert r["seconds"] < SECONDS, f"{r['file']} took {r['seconds']:.1f} s"
        assert r["code"] in (0, 1, 2), r
        if r["code"] != 2:
            continue
        refused += 1
        lines = r["stderr"].splitlines()
        assert len(lines) == 1, r["stderr"]
        where = re.match(re.escape(f"geomsim: error: {r['file']}:") + r"(\d+: )?(.*)$", lines[0])
        assert where and (where.group(1) or "limit" in where.group(2)), lines[0]
        assert not re.search(r"\b[A-Z][a-z]+[A-Za-z]*(Error|Exception)\b", lines[0]), lines[0]
        assert len(lines[0]) < 400, lines[0][:400]
    assert refused >= 150


def test_hand_made_attacks_say_what_is_wrong(scenario_results):
    by_name = {Path(r["file"]).stem: r["stderr"] for r in scenario_results}
    for name, words in EXPECTED.items():
        assert words in by_name[name], f"{name}: {by_name[name]}"
    assert by_name["long-bad-action"].count("'send") == 1  # quoted once, cut short
    assert len(by_name["long-bad-action"]) < 300
    assert f"over the limit of {MAX_BYTES:,} bytes" in by_name["huge"]
    assert f"over the limit of {MAX_ITEMS:,}" in by_name["many-steps"]


def test_hostile_states_are_refused_or_play():
    """Of the corrupted states: 0 tracebacks, 0 loaded that then break, refusals in one line
    naming the field, none over 10 s."""
    results = _run("states", str(HOSTILE / "states.jsonl.xz"))
    assert len(results) >= 200
    for r in results:
        assert r["outcome"] in ("refused", "plays"), f"{r['what']}: {r['message']}"
        assert r["seconds"] < SECONDS, r["what"]
        if r["outcome"] == "refused":
            assert "\n" not in r["message"] and len(r["message"]) < 300, r["message"]
            assert not re.search(r"\b[A-Z][a-z]+[A-Za-z]*(Error|Exception)\b", r["message"]), r["message"]
    assert sum(r["outcome"] == "refused" for r in results) > 0.7 * len(results)


# -- hypothesis: mutated state JSON of every game ------------------------------------------------
_BASES: dict[str, str] = {}


def _base(name: str) -> str:
    """A state of `name` some way into a game, as JSON (made once)."""
    if name not in _BASES:
        steps = {"anasazi": 12, "aztekz": 40, "cibola": 20}[name]
        _BASES[name] = random_playout(load_game(name), 3, 7, max_steps=steps).to_json()
    return _BASES[name]


def _paths(data, here=()):
    found = [here]
    if isinstance(data, dict):
        for k, v in data.items():
            found += _paths(v, here + (k,))
    elif isinstance(data, list) and not (here and here[-1] in ("shell", "holes", "mesas", "pueblos")):
        for i, v in enumerate(data):
            found += _paths(v, here + (i,))
    return found


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, 1, 2, 3, 4, 5, -1, 100_000_000, "E1", "red", "P3s", "M0", "send", "play", "over",
                       "1,0", "0,0", "take", "look:M0"]) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6)


@settings(max_examples=90, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(GAMES), data=st.data())
def test_mutated_state_json_is_refused_or_plays(name, data):
    """Each mutation of a valid state's JSON is refused with a `DataError` naming a field, or
    loads as a state that passes the harness (`check_from_state`)."""
    doc = json.loads(_base(name))
    path = data.draw(st.sampled_from(_paths(doc)[1:]))
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(JSON_VALUES)
    game = load_game(name)
    try:
        state = game.state_from_json(json.dumps(doc))
    except DataError as e:
        assert "\n" not in str(e) and len(str(e)) < 300
        return
    check_from_state(state, checked_steps=2)


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(GAMES), data=st.data())
def test_action_json_is_an_action_or_a_data_error(name, data):
    """`action_from_json` of anything: an action (whose JSON reads back to it) or a `DataError`."""
    game = load_game(name)
    kinds = [k.kind for k in game.action_types]
    obj = data.draw(st.dictionaries(st.sampled_from(["x", "y", "heading", "expedition", "sector", "colour",
                                                      "source", "hero", "side", "kind", "n", "slot",
                                                      "column", "chamber", "totem", "direction", "along",
                                                      "across", "player", "rotation", "cell"]),
                                    JSON_VALUES, max_size=5) | JSON_VALUES)
    if isinstance(obj, dict) and data.draw(st.booleans()):
        obj["kind"] = data.draw(st.sampled_from(kinds))
    try:
        action = game.action_from_json(obj)
    except DataError as e:
        assert "\n" not in str(e)
        return
    assert game.action_from_json(json.loads(json.dumps(action.to_json()))) == action
    str(action)


@pytest.mark.parametrize("name", ["anasazi", "cibola", "aztekz"])
def test_a_field_named_by_the_data_is_shown_on_one_line(name):
    """An unknown field whose name holds a line break or a NUL is named with them escaped: the
    error stays one line (hypothesis found a field named "\\n" that broke it in two)."""
    game = load_game(name)
    kind = game.action_types[0].kind
    for field, shown in (("\n", "\\n"), ("a\x00b", "a\\x00b"), ("é\r", "é\\r")):
        with pytest.raises(DataError) as caught:
            game.action_from_json({"kind": kind, field: 1})
        assert str(caught.value).startswith(f"{shown}: unknown field of a {kind} action")
        assert str(caught.value).isprintable()


def test_huge_numbers_in_an_action_are_refused_by_name():
    from games.anasazi.actions import PlaceMarker

    for value, shown in ((10**400, "1000000000"), (1e308, "1e+308"), (float("inf"), "inf")):
        with pytest.raises(ValueError, match="marker x must be a number from -1e.06 to 1e.06, not "
                           + re.escape(shown)):
            PlaceMarker("E1", value, 0, 0)
    with pytest.raises(DataError, match=r"^marker action: marker x must be a number from"):
        load_game("anasazi").action_from_json({"kind": "marker", "expedition": "E1", "x": 1e308,
                                               "y": 0.0, "heading": 0.0})


def test_aztekz_state_for_a_hundred_million_players_is_refused_at_once():
    doc = json.loads(_base("aztekz"))
    doc["players"] = 100_000_000
    with pytest.raises(DataError, match=r"^players: expected `int` <= 4$"):
        load_game("aztekz").state_from_json(json.dumps(doc))


def test_state_json_over_the_byte_limit_is_refused_before_parsing():
    from geomsim.reading import MAX_JSON_BYTES

    with pytest.raises(DataError, match=f"over the limit of {MAX_JSON_BYTES:,} bytes"):
        load_game("cibola").state_from_json(" " * (MAX_JSON_BYTES + 1))


def test_scenario_limits_in_one_line():
    """Billion laughs, nesting and long lists are refused by the limit they exceed."""
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdef", "bcdefg"))
    with pytest.raises(ScenarioError, match=f"more than {MAX_NODES:,} values"):
        parse_scenario("game: cibola\nplayers: 2\n" + laughs)
    with pytest.raises(ScenarioError, match=r"^<string>:3: nested deeper than"):
        parse_scenario("game: cibola\nplayers: 2\nx: " + "[" * 200 + "]" * 200)


def test_event_data_that_cannot_be_written_back_is_refused():
    """An event number past 64 bits reads as JSON but could not be written again (found by
    the mutation test): refused by name when the state is read."""
    doc = json.loads(_base("aztekz"))
    doc["history"][2]["events"].append({"kind": "x", "player": None, "data": {"": -2**63 - 1}})
    with pytest.raises(DataError, match=r"history\[2\]\.events\[\d+\]\.data: cannot write"):
        load_game("aztekz").state_from_json(json.dumps(doc))


def test_aztekz_soul_kinds_that_are_not_names_are_refused():
    """Soul kinds must be distinct one-word names; a list among them is refused by name
    (found by the mutation test: it raised `TypeError: unhashable type`)."""
    doc = json.loads(_base("aztekz"))
    doc["components"] = {**(doc["components"] or {}), "souls": {"kinds": [["sun"]], "per_kind": 8}}
    with pytest.raises(DataError, match="souls.kinds"):
        load_game("aztekz").state_from_json(json.dumps(doc))


# Recursive aliases (issue 25): the alias counter looped on them and grew to a MemoryError.
RECURSIVE = {
    "recursive-list": ("game: cibola\nplayers: 2\nseed: 0\ndescription: &a [*a]\n",
                       ":4: description[0]: an alias inside the value its anchor names"),
    "recursive-mapping": ("game: cibola\nplayers: 2\nsetup: &r {a: *r}\n", ":3: setup.a: an alias inside"),
    "recursive-deep": ("game: cibola\nplayers: 2\nsteps: &s\n  - {x: [1, {y: *s}]}\n",
                       ":3: steps[0].x[1].y: an alias inside"),
    "recursive-key": ("game: cibola\nplayers: 2\nx: &k {? *k : 1}\n", ":3: "),
    # many aliases of one value that holds a recursive one: the laughs limit and the refusal both hold
    "recursive-in-laughs": ("a: &a [x, x, &b [*b], x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdef", "cdefgh"))
        + "game: cibola\nplayers: 2\n", ":1: a[2][0]: an alias inside"),
}


def test_recursive_aliases_are_refused_at_once_by_line_and_field(tmp_path):
    """Under the memory limit, within the time limit: one line naming the file, line and field."""
    for name, (text, _) in RECURSIVE.items():
        (tmp_path / f"{name}.yaml").write_text(text)
    results = _run("scenarios", *(str(tmp_path / f"{name}.yaml") for name in RECURSIVE))
    for r, (name, (_, words)) in zip(results, RECURSIVE.items()):
        assert r["crash"] is None and r["code"] == 2 and r["seconds"] < SECONDS, r
        assert r["stderr"].startswith(f"geomsim: error: {tmp_path / name}.yaml{words}"), r["stderr"]
        assert "recursive data" in r["stderr"] and r["stderr"].count("\n") == 1, r["stderr"]


def test_shared_aliases_that_do_not_recurse_still_load():
    """The same anchor used twice, or inside a sibling, is no recursion."""
    from geomsim.scenario.source import parse_yaml

    data = parse_yaml("names: &n [a, b]\nsetup: {p: *n, q: [*n, {r: *n}]}\n").data
    assert data["setup"] == {"p": ["a", "b"], "q": [["a", "b"], {"r": ["a", "b"]}]}
