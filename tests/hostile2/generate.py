"""A second generator of hostile inputs (issue 25), one class of weakness at a time, from a fixed seed.

    python -m tests.hostile2.generate CLASS     # print the cases of CLASS, one JSON line each

Its operators are new: none of `tests/hostile/make_corpus.py` (which cuts, doubles and swaps
lines of shipped scenarios and splices hostile scalars into state JSON). Each case is plain data;
`tests/hostile2/run.py` feeds it to the reader it targets, under the limits of
tests/test_hostile.py, and says what went wrong. The classes and their operators:

yaml     Scenario files built field by field from a valid one per game, one field made hostile:
         - recursive aliases (`&a [*a]`, `&r {a: *r}`, nested, as a key) in every position: the
           alias counter must refuse them at once with file and line, not loop until MemoryError;
         - integers over Python's 4,300-digit limit in every position: `int()` raises a raw
           ValueError there;
         - NUL in text and in paths (`setup: "a\\0b.json"`, an output path): `open` raises a raw
           ValueError on a path with NUL;
         - lone surrogates (`"\\uD800"`) in text and paths: they pass `check`, then a report
           written to UTF-8 stdout raises UnicodeEncodeError;
         - duplicate keys that are equal only once built (`0`/`0x0`, `1`/`true`, `1`/`1.0`):
           a text comparison of keys lets the second silently replace the first;
         - seeds -1, 2**64 and -2**63 - 1 (numpy refuses them with a raw ValueError);
         - bot specs with absurd budgets in `analysis.bots` (`ismcts:1e300s`,
           `ismcts:1000000000`): they pass `check` and `run` never ends.
         Every file goes through `geomsim check` and, when check accepts it, `geomsim run`.
files    Paths that are not regular files where a file is read (/dev/zero, /dev/urandom, a FIFO,
         /dev/stdin held open, a directory, a symlink named .json to /dev/zero): a scenario's
         `setup:` and `setup: {from:}`, `setup --from`, `reach --setup`, `reach --state`, `check`,
         `replay`, `analyze --from`. `st_size` is 0 for a device: a reader trusting it reads
         without limit or blocks for ever. Each must exit 2 in one line naming the file.
setups   Mutants of each game's valid setup (`game.make_setup`, what `geomsim setup --json`
         writes): numbers +-1, -1, huge, number-like text, lists lengthened, shortened, doubled,
         keys dropped, added, renamed. `new_state(setup=...)` must raise `DataError` naming a
         field, or give a state whose JSON reads back equal (what loads must read back).
actions  Mutants of legal actions' JSON (numbers out of range, long and odd text, wrong types,
         fields dropped or added, another kind): `action_from_json` must refuse them with
         `DataError`, or the action's text form must parse back to it (both forms accept the
         same set).
cli      Seeds -1 and -2**63 - 1 for `reach --seed`, `analyze -s`, `setup -s`, and absurd bot
         budgets for `analyze -b`: exit 2 in one line, no traceback (2**64, which numpy takes,
         may also be accepted) (`serve -s -1` is left out: before the
         fix it serves for ever).
web      Malformed requests to every POST endpoint of the web app (`geomsim/web/app.py`): 30,000
         `[`, 1e308, 1e400, -1, 2**64 in each number field, bodies as text/plain, a foreign Host or
         Origin, no token. Each must be a 4xx with a one-line JSON error, never a 500; the
         status each kind of request must get is the table `WEB_EXPECT` (the issue's statuses).
hidden   For each game, determinizations of states at several moments must not carry the true
         setup seed, nor any seed from which `make_setup` deals the true hidden setup
         (`HIDDEN_SETUP`); and a sealed Cibola send must not be shown to the next viewer in
         the web page.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

SEED = 25  # issue 25
GAMES = ("anasazi", "aztekz", "cibola")
CLASSES = ("yaml", "files", "setups", "actions", "cli", "web", "hidden")
Case = dict[str, Any]

# -- yaml ----------------------------------------------------------------------------------------
RECURSIVE = ["&a [*a]", "&r {a: *r}", "&n [1, {k: [2, *n]}]", "&m {x: [{y: *m}]}", "{? &k [*k] : 1}"]
EQUAL_KEYS = [("0", "0x0"), ("1", "true"), ("0", "false"), ("1", "1.0"), ("0", "-0"), ("2", "0b10"),
              ("10", "012"), ("1000", "1_000")]
BOT_BUDGETS = ["ismcts:1e300s", "ismcts:1000000000", "ismcts:1e300s:1000000000",
               "ismcts:99999999999999999999", "greedy:1000000000", "ismcts:1e18s:5"]
POSITIONS = ["description", "names", "seed", "setup", "steps", "expect", "outputs", "players"]


def base_fields(game: str) -> dict[str, str]:
    """A valid scenario of `game` as its top-level fields (YAML text each): two steps of a random
    game (their texts from the rules, so they are legal) and, for Cibola, a small analysis."""
    import numpy as np

    from geomsim.registry import load_game

    rules = load_game(game)
    state, rng, steps = rules.new_state(2, seed=3), np.random.default_rng(0), []
    for _ in range(2):
        player = state.to_move()[0]
        action = state.legal_actions(player).sample(rng, 1)[0]
        state.apply(action, player)
        steps.append(f'\n  - "{player}: {action}"')
    fields = {"game": game, "description": "base", "players": "2", "names": "[Ann, Bob]", "seed": "3",
              "steps": "".join(steps), "expect": "\n  - to_move: " + json.dumps(list(state.to_move()))}
    if game == "cibola":
        fields["expect"] += ("\n  - analysis: {bots: [random, random], games: 2, seed: 0}"
                             "\n    seat: 0\n    between: [0, 1]")
    return fields


def render(fields: dict[str, str]) -> str:
    return "".join(f"{key}: {value}\n" for key, value in fields.items())


def _huge(rng: random.Random) -> str:
    """An integer of 4,301 to 5,000 digits, either sign (Python's str-to-int limit is 4,300)."""
    return rng.choice(["", "-"]) + "9" * rng.randrange(4_301, 5_000)


def yaml_cases(rng: random.Random) -> Iterator[Case]:
    """Scenario files with one hostile field each; `must_refuse` where the issue says refused."""
    bases = {game: base_fields(game) for game in GAMES}
    for game, fields in bases.items():
        yield {"name": f"control-{game}", "text": render(fields), "must_refuse": False, "control": True}

    def case(name: str, game: str, must_refuse: bool, **changes: str) -> Case:
        return {"name": name, "text": render({**bases[game], **changes}), "must_refuse": must_refuse}

    # Recursive aliases in every position, each position its own shape.
    for position in POSITIONS + ["zzz_unknown"]:
        form = rng.choice(RECURSIVE)
        yield case(f"recursive-{position}", rng.choice(GAMES), True, **{position: form})
    yield case("recursive-in-step", "cibola", True, steps='\n  - "0: send 1"\n  - &s [*s]')
    yield case("recursive-in-bots", "cibola", True,
               expect="\n  - analysis: {bots: &b [random, *b], games: 2}\n    seat: 0\n    at_least: 0")
    yield case("recursive-setup-from", "cibola", True, setup="&r {from: *r}")
    # Integers past 4,300 digits where a number, a text, a key or a setup value belongs.
    for position in ("seed", "players", "description", "names"):
        yield case(f"huge-int-{position}", rng.choice(GAMES), False, **{position: _huge(rng)})
    yield case("huge-int-setup", "cibola", False, setup=f"{{torch: {_huge(rng)}}}")
    yield case("huge-int-step-player", "cibola", False, steps=f"\n  - {{{_huge(rng)}: send 1}}")
    yield case("huge-int-analysis", "cibola", False,
               expect=f"\n  - analysis: {{bots: random, games: {_huge(rng)}}}\n    seat: 0\n    at_least: 0")
    # NUL: in text it may pass; in a path it must be refused in one line.
    yield case("nul-description", "aztekz", False, description='"a\\0b"')
    yield case("nul-setup-path", "cibola", True, setup='"a\\0b.json"')
    yield case("nul-setup-from", "anasazi", True, setup='{from: "t\\0.json"}')
    yield case("nul-output-path", "cibola", False, outputs='\n  - log: "g\\0.jsonl"')
    # Lone surrogates: check must refuse them, or run must write them without a crash.
    for position, text in (("description", '"\\uD800"'), ("names", '["\\uDFFF", Bob]'),
                           ("setup", '"\\uD834.json"'), ("outputs", '\n  - log: "\\uDC00.jsonl"')):
        yield case(f"surrogate-{position}", rng.choice(GAMES) if position != "setup" else "cibola",
                   False, **{position: text})
    yield case("surrogate-step-note", "cibola", False,
               steps='\n  - action: "0: send 1"\n    note: "x\\uD800y"\n    name: "\\uDBFF"')
    # Keys equal only once built: the second must not silently replace the first.
    for first, second in rng.sample(EQUAL_KEYS, 5):
        yield case(f"equal-keys-{first}-{second}", "cibola", True,
                   steps=f'\n  - {{{first}: "send 1", {second}: "send 2"}}')
    yield case("equal-keys-in-event-data", "cibola", True,
               expect='\n  - event: sent\n    data: {1: a, true: b}')
    # Seeds numpy refuses.
    for seed in ("-1", str(2**64), str(-2**63 - 1)):
        yield case(f"seed-{seed[:6]}", rng.choice(GAMES), False, seed=seed)
    yield case("analysis-seed--1", "cibola", False,
               expect="\n  - analysis: {bots: random, games: 2, seed: -1}\n    seat: 0\n    at_least: 0")
    # Absurd bot budgets, as a list and as "a,b" text.
    for k, spec in enumerate(BOT_BUDGETS):
        bots = f"[{spec}, random]" if k % 2 else f'"random,{spec}"'
        yield case(f"bot-budget-{spec}", "cibola", True,
                   expect=f"\n  - analysis: {{bots: {bots}, games: 1}}\n    seat: 0\n    at_least: 0")


# -- files ---------------------------------------------------------------------------------------
# Placeholders the runner fills: {tmp} its scratch folder, {case} a folder of the case's own,
# {setup} a valid Anasazi setup file,
# {scenario} a valid Cibola scenario, {pueblo} a pueblo of that setup.
HOSTILE_PATHS = {"zero": "/dev/zero", "urandom": "/dev/urandom", "fifo": "{tmp}/fifo",
                 "stdin": "/dev/stdin", "dir": "{tmp}/dir", "zero-link": "{tmp}/zero-link.json"}


def file_cases(rng: random.Random) -> Iterator[Case]:
    """Every reader of a user's file, pointed at each path that is not a regular file."""
    yield {"name": "control-setup-from", "argv": ["setup", "anasazi", "--from", "{setup}", "--json",
                                                   "{tmp}/out.json"], "expect": "ok", "control": True}
    readers: dict[str, Callable[[str], list[str]]] = {
        "scenario-setup": lambda p: ["check", _scenario_file(f"setup: {json.dumps(p)}")],
        "scenario-from": lambda p: ["check", _scenario_file(f"setup: {{from: {json.dumps(p)}}}")],
        "setup-from": lambda p: ["setup", "cibola", "--from", p, "--json", "{tmp}/out.json"],
        "reach-setup": lambda p: ["reach", "--setup", p, "-e", "E1", "-p", "{pueblo}", "-n", "1"],
        "reach-state": lambda p: ["reach", "--setup", "{setup}", "--state", p, "-e", "E1", "-p",
                                  "{pueblo}", "-n", "1"],
        "check": lambda p: ["check", p],
        "replay": lambda p: ["replay", p, "-o", "{tmp}/replay.gif"],
        "analyze-from": lambda p: ["analyze", "cibola", "--from", p, "-n", "1", "-w", "1", "--no-plot",
                                   "-o", "{case}/analyze"],
    }
    # The blocking paths (FIFO, stdin) last: a reader that blocks costs the full time budget.
    for kind in ("zero", "urandom", "dir", "zero-link", "fifo", "stdin"):
        for reader, argv in readers.items():
            yield {"name": f"{reader}-{kind}", "argv": argv(HOSTILE_PATHS[kind]), "expect": "refused",
                   "names": HOSTILE_PATHS[kind].rsplit("/", 1)[-1]}


def _scenario_file(setup_line: str) -> str:
    """A placeholder the runner replaces by a Cibola scenario file with this setup line."""
    return "{scenario:" + setup_line + "}"


# -- setups --------------------------------------------------------------------------------------
SETUP_BASES = [("anasazi", 2, 11), ("anasazi", 3, 12), ("cibola", 2, 13), ("cibola", 4, 14),
               ("aztekz", 2, 15), ("aztekz", 4, 16)]
MUTANTS_PER_SETUP = 10
NUMBER_TEXT = ["NaN", "inf", "-0", "1e400", "0x10", "١", " 3"]


def paths(data: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into `data`; of long lists (polygons, sectors) only the first two items."""
    found = [here]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, here + (key,))
    elif isinstance(data, list):
        for i, value in list(enumerate(data))[:2 if len(data) > 8 else len(data)]:
            found += paths(value, here + (i,))
    return found


def mutate_setup(rng: random.Random, setup: Any) -> tuple[str, Any]:
    """One mutation of a setup (a copy): what was done, the data."""
    data = copy.deepcopy(setup)
    path = rng.choice(paths(data)[1:])
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    last, where = path[-1], "/".join(map(str, path))
    value = parent[last]
    if isinstance(value, bool) or not isinstance(value, (int, float, list, dict)):
        ops = ["huge", "number-text", "negative", "drop"]
    elif isinstance(value, (int, float)):
        ops = ["plus-one", "minus-one", "negative", "huge", "number-text"]
    elif isinstance(value, list):
        ops = ["lengthen", "shorten", "double", "reverse"] if value else ["lengthen-empty"]
    else:
        ops = ["drop-key", "add-key", "rename-key"] if value else ["add-key"]
    op = rng.choice(ops)
    if op in ("plus-one", "minus-one"):
        parent[last] = value + (1 if op == "plus-one" else -1)
    elif op == "negative":
        parent[last] = -1
    elif op == "huge":
        parent[last] = rng.choice([10**12, 2**64, -2**63 - 1, 1e308])
    elif op == "number-text":
        parent[last] = rng.choice(NUMBER_TEXT)
    elif op == "drop":
        del parent[last]
    elif op == "lengthen":
        value.append(copy.deepcopy(value[-1]))
    elif op == "lengthen-empty":
        value.append(rng.choice([0, "x", None]))
    elif op == "shorten":
        value.pop()
    elif op == "double":
        value.extend(copy.deepcopy(value))
    elif op == "reverse":
        value.reverse()
    elif op == "drop-key":
        del value[rng.choice(list(value))]
    elif op == "add-key":
        value["hostile2"] = 1
    else:
        key = rng.choice(list(value))
        value[key + "_" if isinstance(key, str) else key] = value.pop(key)
    return f"{where}: {op}", data


def setup_cases(rng: random.Random) -> Iterator[Case]:
    from geomsim.registry import load_game

    for game, players, seed in SETUP_BASES:
        setup = load_game(game).make_setup(players, seed)
        yield {"name": f"control-{game}-{players}p", "game": game, "players": players, "seed": seed,
               "setup": setup, "control": True}
        for k in range(MUTANTS_PER_SETUP):
            what, data = mutate_setup(rng, setup)
            yield {"name": f"{game}-{players}p-m{k} {what}", "game": game, "players": players,
                   "seed": seed, "setup": data}


# -- actions -------------------------------------------------------------------------------------
ACTION_VALUES: list[Any] = [-1, 10**9, 2**63, -2**63 - 1, 1e308, 3.5, True, None, "", " ", "A" * 100_000,
                            "a\x00b", "é", "NaN", "1,0", "0x1", [1], {"a": 1}]
ACTIONS_PER_GAME = 6
MUTANTS_PER_ACTION = 4


def legal_actions_json(game: str, rng: random.Random) -> list[dict[str, Any]]:
    """The JSON of `ACTIONS_PER_GAME` legal actions of different moments of a random game."""
    import numpy as np

    from geomsim.registry import load_game

    rules = load_game(game)
    state, sample = rules.new_state(3, seed=rng.randrange(1000)), np.random.default_rng(rng.randrange(1000))
    found: dict[str, dict[str, Any]] = {}
    for _ in range(60):
        if state.is_over():
            break
        player = state.to_move()[0]
        action = state.legal_actions(player).sample(sample, 1)[0]
        found[str(action)] = action.to_json()
        state.apply(action, player)
    texts = sorted(found)
    return [found[t] for t in rng.sample(texts, min(ACTIONS_PER_GAME, len(texts)))]


def mutate_action(rng: random.Random, obj: dict[str, Any], kinds: list[str]) -> tuple[str, Any]:
    data = dict(obj)
    op = rng.choice(["value", "value", "value", "drop", "add", "kind"])
    fields = [k for k in data if k != "kind"] or ["kind"]
    if op == "value":
        field, value = rng.choice(fields), rng.choice(ACTION_VALUES)
        data[field] = value
        return f"{field} = {json.dumps(value)[:20]}", data
    if op == "drop":
        field = rng.choice(fields)
        del data[field]
        return f"del {field}", data
    if op == "add":
        data["hostile2"] = rng.choice(ACTION_VALUES[:4])
        return "added a field", data
    data["kind"] = rng.choice(kinds)
    return f"kind = {data['kind']}", data


def action_cases(rng: random.Random) -> Iterator[Case]:
    from geomsim.registry import load_game

    for game in GAMES:
        kinds = [k.kind for k in load_game(game).action_types]
        for i, obj in enumerate(legal_actions_json(game, rng)):
            yield {"name": f"{game}-a{i}-control", "game": game, "obj": obj, "control": True}
            for k in range(MUTANTS_PER_ACTION):
                what, data = mutate_action(rng, obj, kinds)
                yield {"name": f"{game}-a{i}-m{k} {what}", "game": game, "obj": data}


# -- cli -----------------------------------------------------------------------------------------
BAD_SEEDS = ["-1", str(2**64), str(-2**63 - 1)]


def cli_cases(rng: random.Random) -> Iterator[Case]:
    """Seeds numpy refuses and absurd bot budgets: exit 2, one line."""
    analyze = ["analyze", "cibola", "-n", "1", "-w", "1", "--no-plot", "-o", "{case}/analyze"]
    yield {"name": "control-setup", "argv": ["setup", "cibola", "-s", "3", "--json", "{tmp}/s.json"],
           "expect": "ok", "control": True}
    yield {"name": "control-reach", "argv": ["reach", "--setup", "{setup}", "-e", "E1", "-p", "{pueblo}",
                                             "-n", "1", "--seed", "0"], "expect": "ok", "control": True}
    yield {"name": "control-analyze", "argv": [*analyze, "-s", "3", "--force"], "expect": "ok", "control": True}
    for seed in BAD_SEEDS:
        expect = "refused" if seed.startswith("-") else "either"  # numpy takes seeds past 64 bits
        yield {"name": f"reach-seed-{seed[:6]}", "argv": ["reach", "--setup", "{setup}", "-e", "E1", "-p",
                                                           "{pueblo}", "-n", "1", "--seed", seed],
               "expect": expect}
        yield {"name": f"analyze-seed-{seed[:6]}", "argv": [*analyze, "-s", seed, "--force"], "expect": expect}
        yield {"name": f"setup-seed-{seed[:6]}", "argv": ["setup", rng.choice(GAMES), "-s", seed, "--json",
                                                           "{tmp}/s.json"], "expect": expect}
    for spec in rng.sample(BOT_BUDGETS, 3):
        yield {"name": f"analyze-bots-{spec}", "argv": [*analyze, "-b", f"random,{spec}", "--force"],
               "expect": "refused"}


# -- web -----------------------------------------------------------------------------------------
# The status each kind of request must get (the issue's): adapt here when the server's answers
# are settled. "4xx" is any status from 400 to 499.
WEB_EXPECT: dict[str, set[int] | str] = {  # a set of statuses, "4xx" or "below 500"
    "control": {200},
    "malformed": "4xx",  # 30,000 `[`, a seed numpy refuses, a bot spec without bounds
    # 1e308, 1e400, -1, 2**64 in a number field: a 4xx where the endpoint reads the field, any
    # answer below 500 where it does not (options ignores a version; a heading may be turned)
    "hostile-number": "below 500",
    "text-plain": "4xx",  # a JSON body sent as text/plain (415 or another 4xx)
    "foreign-host": {403},  # DNS rebinding: Host evil.example
    "foreign-origin": {403},  # a cross-origin POST
    "null-origin": {403},
    "no-token": {403},  # a client that never had the server's token
}
POST_ENDPOINTS = ["sessions", "options", "preview", "check", "apply", "undo", "back", "forward", "seats",
                  "bots", "expect", "tick", "analysis"]
# A plausible body per endpoint: its number fields are the ones made hostile.
BODIES: dict[str, dict[str, Any]] = {
    "sessions": {"game": "cibola", "players": 2, "seed": 1},
    "options": {"viewer": 0, "reveal": False},
    "preview": {"tool": "marker", "params": {"expedition": "E1"}, "x": 0.0, "y": 0.0, "heading": 0.0,
                "player": 0},
    "check": {"action": "look P2s", "player": 0},
    "apply": {"action": "look P2s", "player": 0},
    "undo": {}, "back": {}, "forward": {},
    "seats": {"seats": [None, "random"]},
    "bots": {},
    "expect": {"action": "look P2s", "player": 0},
    "tick": {"id": 0, "ticked": True},
    "analysis": {"name": "reach", "params": {"markers": 2, "expedition": "E1"}},
}
NESTING = ["[" * 30_000, '{"a":' * 12_000, '[{"a":' * 10_000]  # deep, yet under the 64 kB body limit
HOSTILE_NUMBERS = ["1e308", "1e400", "-1e400", "-1", str(2**64), "1" + "0" * 5_000]


def _numbers(body: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of the number fields of `body` (bools are not numbers here)."""
    if isinstance(body, dict):
        return [p for k, v in body.items() for p in _numbers(v, path + (k,))]
    if isinstance(body, list):
        return [p for i, v in enumerate(body) for p in _numbers(v, path + (i,))]
    return [path] if isinstance(body, (int, float)) and not isinstance(body, bool) else []


def _with_raw(body: dict[str, Any], path: tuple[Any, ...], raw: str) -> str:
    """`body` as JSON text (with its version) with the value at `path` written as `raw`."""
    data = copy.deepcopy({**body, "version": "%VERSION%"})
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = "@RAW@"
    return json.dumps(data).replace('"@RAW@"', raw).replace('"%VERSION%"', "%VERSION%")


def web_cases(rng: random.Random) -> Iterator[Case]:
    """Each POST endpoint: nested, out-of-range numbers, text/plain, foreign Host/Origin, no token."""
    yield {"name": "control-new-session", "endpoint": "sessions", "body": {}, "expect": "control",
           "control": True}
    yield {"name": "control-options", "endpoint": "options", "body": {"reveal": False}, "expect": "control",
           "control": True}
    yield {"name": "control-check", "endpoint": "check", "body": {"action": "{first}"}, "expect": "control",
           "control": True}
    for endpoint in POST_ENDPOINTS:
        body = BODIES[endpoint]
        yield {"name": f"{endpoint}-nested", "endpoint": endpoint, "raw": rng.choice(NESTING),
               "expect": "malformed"}
        numbers = _numbers(body) + [("version",)]
        for path in rng.sample(numbers, min(2, len(numbers))):
            raw = rng.choice(HOSTILE_NUMBERS)
            yield {"name": f"{endpoint}-{'.'.join(map(str, path))}={raw[:8]}", "endpoint": endpoint,
                   "raw": _with_raw(body, path, raw), "expect": "hostile-number"}
        yield {"name": f"{endpoint}-text-plain", "endpoint": endpoint, "body": body, "expect": "text-plain",
               "headers": {"content-type": "text/plain"}}
        yield {"name": f"{endpoint}-foreign-host", "endpoint": endpoint, "body": body,
               "expect": "foreign-host", "headers": {"host": "evil.example"}}
        origin = rng.choice(["http://evil.example", "http://127.0.0.1.evil.example", "https://localhost"])
        yield {"name": f"{endpoint}-foreign-origin", "endpoint": endpoint, "body": body,
               "expect": "foreign-origin", "headers": {"origin": origin}}
        yield {"name": f"{endpoint}-null-origin", "endpoint": endpoint, "body": body, "expect": "null-origin",
               "headers": {"origin": "null"}}
        yield {"name": f"{endpoint}-no-token", "endpoint": endpoint, "body": body, "expect": "no-token",
               "anonymous": True}
    # The two the issue saw answered with a 500.
    yield {"name": "preview-x=1e308", "endpoint": "preview", "raw": _with_raw(BODIES["preview"], ("x",), "1e308"),
           "expect": "hostile-number"}
    yield {"name": "analysis-markers=1e400", "endpoint": "analysis",
           "raw": _with_raw(BODIES["analysis"], ("params", "markers"), "1e400"), "expect": "hostile-number"}
    yield {"name": "sessions-seed--1", "endpoint": "sessions", "body": {"game": "cibola", "seed": -1},
           "expect": "malformed"}
    yield {"name": "sessions-seed--2**63-1", "endpoint": "sessions",
           "body": {"game": "aztekz", "seed": -2**63 - 1}, "expect": "malformed"}
    yield {"name": "sessions-seed-text", "endpoint": "sessions", "body": {"game": "aztekz", "seed": "7"},
           "expect": "malformed"}
    yield {"name": "sessions-players-10**9", "endpoint": "sessions", "body": {"game": "cibola",
                                                                             "players": 10**9},
           "expect": "malformed"}
    # Last: before the fix a seat with such a bot holds the session for ever.
    for spec in ("ismcts:1e300s", "ismcts:1000000000"):
        yield {"name": f"seats-{spec}", "endpoint": "seats", "body": {"seats": [spec, spec]},
               "expect": "malformed"}


# -- hidden --------------------------------------------------------------------------------------
# The parts of each game's setup a player does not see: a seed that deals them again leaks them.
HIDDEN_SETUP = {"anasazi": ("towers", "objectives"), "cibola": ("deck", "totems", "boxed_totems"),
                "aztekz": ("deck", "souls")}


def hidden_cases(rng: random.Random) -> Iterator[Case]:
    for game in GAMES:
        for players in (2, 3):
            seed = rng.randrange(10**6, 10**9)  # distinctive: no other number of a state equals it
            for steps in (0, rng.randrange(3, 12), rng.randrange(12, 40)):
                yield {"name": f"{game}-{players}p-seed{seed}-step{steps}", "game": game, "players": players,
                       "seed": seed, "steps": steps, "player": rng.randrange(players)}
    yield {"name": "web-sealed-send", "game": "cibola", "players": 3, "seed": rng.randrange(1000),
           "web": True}


GENERATORS: dict[str, Callable[[random.Random], Iterator[Case]]] = {
    "yaml": yaml_cases, "files": file_cases, "setups": setup_cases, "actions": action_cases,
    "cli": cli_cases, "web": web_cases, "hidden": hidden_cases}


def cases(cls: str) -> list[Case]:
    """The cases of class `cls`, the same on every run (each class from its own fixed seed)."""
    return list(GENERATORS[cls](random.Random(f"{SEED}-{cls}")))


if __name__ == "__main__":
    for found in cases(sys.argv[1]):
        print(json.dumps(found, default=repr)[:300])
