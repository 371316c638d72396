"""Make the corpus of hostile inputs that tests/test_hostile.py feeds to every reader.

    python tests/hostile/make_corpus.py        # rewrites tests/hostile/scenarios/ and states.jsonl.xz

Everything comes from a fixed seed: the same code makes the same corpus. Scenario files are
the shipped scenarios mutated at the text level (lines deleted, doubled, swapped, values made
hostile, bytes inserted, the text cut), plus hand-made attacks (billion laughs in setup, at the
top level and in steps; deep nesting; control characters; bytes that are not UTF-8; tags JSON
lacks; duplicate keys of other shapes; bad deck entries; a long bad action). States are the JSON
of states of every game at a few moments, mutated (a value replaced by a hostile one, a field
removed, an item doubled, raw text such as NaN or 1e400 spliced in).
"""

from __future__ import annotations

import json
import lzma
import random
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SEED = 14  # issue 14
MUTANTS_PER_SCENARIO = 6
MUTANTS_PER_STATE = 40

HOSTILE_SCALARS = [
    "-1", "0", "3", "100000000", "1e400", "-1e308", ".nan", ".inf", "1" * 400, "null", "~", "true",
    "''", "{}", "[]", "!!set {a, b}", "!!binary aGVsbG8=", "!!timestamp 2001-12-14", "*nowhere",
    "&a [*a]", "[[[[[[[[[[]]]]]]]]]]", '"\\0"', '"\\a"', "x" * 5000, "{a: 1, a: [2]}",
]
HOSTILE_BYTES = [b"\x00", b"\x07", b"\xff", b"\xc3", b"\t", b"\r", b"{", b"&", b"*", b"!", b"%"]


# -- scenario files --------------------------------------------------------------------------
def laughs(levels: int = 9) -> str:
    """The anchors of a billion laughs: level k lists level k - 1 nine times."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for k in range(1, levels):
        refs = ", ".join([f"*a{k - 1}"] * 9)
        lines.append(f"a{k}: &a{k} [{refs}]")
    return "\n".join(lines)


def handmade() -> dict[str, bytes]:
    """Attacks written out: name -> file bytes."""
    head = "game: cibola\nplayers: 2\nseed: 1\n"
    nested = "[" * 1000 + "]" * 1000
    block = "".join("  " * i + "- \n" for i in range(400))
    deep_map = "".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "v\n"
    files = {
        "laughs-in-setup": "game: cibola\nplayers: 2\nsetup:\n" + "\n".join(
            "  " + line for line in laughs().splitlines()) + "\n",
        "laughs-at-top": head + laughs() + "\n",
        "laughs-in-steps": head + "steps:\n  - name: x\n    note: [" + laughs().splitlines()[0].split(": ", 1)[1]
        + "]\n" + "\n".join(f"  - &s{k} [" + ", ".join([f"*s{k - 1}" if k else '"send 1"'] * 9) + "]"
                            for k in range(9)) + "\n",
        "nested-flow-1000": head + f"description: {nested}\n",
        "nested-block-400": head + "description:\n" + block,
        "nested-map-300": head + "description:\n" + "".join("  " + line + "\n" for line in deep_map.splitlines()),
        "nul-byte": head + "description: a\x00b\n",
        "bel-byte": head + "description: ring \x07\n",
        "set-tag": head + "names: !!set {Ann, Bob}\n",
        "binary-tag": head + "description: !!binary aGVsbG8=\n",
        "omap-tag": head + "setup: !!omap [{torch: 1}]\n",
        "timestamp-tag": head + "description: !!timestamp 2001-12-14\n",
        "merge-key": head + "steps:\n  - &s {action: send 1, player: 0}\n  - <<: *s\n    player: 1\n",
        "duplicate-mapping-scalar": head + "expect:\n  - to_move: [0, 1]\n    to_move: 3\n",
        "duplicate-list-int": head + "steps: [send 1]\nsteps: 4\n",
        "duplicate-in-step": head + "steps:\n  - action: send 1\n    player: 0\n    player: [1]\n",
        "deck-mixed-types": "game: cibola\nplayers: 2\nsetup:\n  deck: [1, '2', 3]\n",
        "deck-lists": "game: cibola\nplayers: 2\nsetup:\n  deck: [[1], [2]]\n",
        "deck-mappings": "game: cibola\nplayers: 2\nsetup:\n  deck: [{a: 1}, 2]\n  totems: [[1], 2]\n",
        "totems-unhashable": "game: cibola\nplayers: 2\nsetup:\n  totems: [[1], [2], 3, 4, 5]\n",
        "long-bad-action": head + "steps:\n  - \"0: " + "send " * 4_000 + "\"\n",
        "long-bad-key": head + "k" * 20_000 + ": 1\n",
        "aztekz-players-huge": "game: aztekz\nplayers: 100000000\n",
        "anasazi-marker-huge": "game: anasazi\nplayers: 2\nseed: 1\nexpect:\n  - legal: "
        "\"0: marker E1 at " + "9" * 400 + ",0 heading 0\"\n",
        "anasazi-marker-1e308": "game: anasazi\nplayers: 2\nseed: 1\nexpect:\n  - illegal: "
        "\"0: marker E1 at 1e308,1e308 heading 0\"\n",
        "anasazi-setup-coordinates": "game: anasazi\nplayers: 2\nsetup:\n  mesas: [{id: M0, ring: centre, "
        "polygon: [[0, 0], [1.0e+308, 0], [0, 1.0e+308]]}]\n  pueblos: []\n  expedition_camps: []\n",
    }
    found = {name: text.encode("utf-8") for name, text in files.items()}
    found["not-utf8"] = head.encode() + b"description: caf\xe9\n"
    found["not-utf8-late"] = head.encode() + b"steps:\n  - send 1\n  - send \xff\xfe\n"
    found["utf16"] = (head + "description: x\n").encode("utf-16")
    return found


def mutants(rng: random.Random, text: str) -> list[bytes]:
    """`MUTANTS_PER_SCENARIO` text-level mutations of a valid scenario file."""
    found = []
    for _ in range(MUTANTS_PER_SCENARIO):
        lines = text.splitlines(keepends=True)
        op = rng.randrange(7)
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[j])
        elif op == 2:
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and ":" in lines[i]:
            key = lines[i].split(":", 1)[0]
            lines[i] = f"{key}: {rng.choice(HOSTILE_SCALARS)}\n"
        elif op == 4:
            lines[i] = " " * rng.randrange(1, 4) + lines[i]
        data = "".join(lines).encode("utf-8")
        if op == 5:
            at = rng.randrange(len(data) + 1)
            data = data[:at] + rng.choice(HOSTILE_BYTES) + data[at:]
        elif op == 6:
            data = data[: rng.randrange(len(data) + 1)]
        found.append(data)
    return found


def scenario_corpus(rng: random.Random) -> dict[str, bytes]:
    files = {f"{name}.yaml": data for name, data in handmade().items()}
    for path in sorted((ROOT / "scenarios").glob("**/*.yaml")):
        text = path.read_text(encoding="utf-8")
        for k, data in enumerate(mutants(rng, text)):
            files[f"{path.parent.name}-{path.stem}-m{k}.yaml"] = data
    return files


# -- states ------------------------------------------------------------------------------------
BASES = [("cibola", 2, 3, 0), ("cibola", 4, 5, 40), ("aztekz", 2, 1, 30), ("aztekz", 4, 2, 200),
         ("anasazi", 2, 1, 0), ("anasazi", 3, 4, 30)]
HOSTILE_VALUES: list[Any] = [-1, 0, 1, 4, 5, 100_000_000, 2**63, 1e308, -1e308, 0.5, "x", "", None,
                             True, [], {}, [0] * 5000, {"a": 1}, "E1", "red", "setup", [None]]
HOSTILE_RAW = ["NaN", "Infinity", "-Infinity", "1e400", "1" * 400, "[" * 3000 + "]" * 3000,
               '{"a": ' * 2000 + "1" + "}" * 2000, '"\\ud800"']


def paths(data: Any, here: tuple = ()) -> list[tuple]:
    """Every field path of `data` (the table's polygons left out but for one: they are many)."""
    found = [here]
    if isinstance(data, dict):
        for k, v in data.items():
            found += paths(v, here + (k,))
    elif isinstance(data, list):
        items = list(enumerate(data))
        if len(here) and here[-1] in ("shell", "holes", "mesas", "pueblos", "sectors"):
            items = items[:1]
        for i, v in items:
            found += paths(v, here + (i,))
    return found


def mutate(rng: random.Random, data: Any) -> tuple[str, str]:
    """One mutation of the state data: (what was done, the JSON text)."""
    path = rng.choice(paths(data)[1:])
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    where = "/".join(map(str, path))
    op = rng.randrange(4)
    if op == 0:
        value = rng.choice(HOSTILE_VALUES)
        parent[last] = value
        return f"{where} = {json.dumps(value)[:40]}", json.dumps(data)
    if op == 1:
        del parent[last]
        return f"del {where}", json.dumps(data)
    if op == 2 and isinstance(parent[last], list) and parent[last]:
        parent[last].append(parent[last][0])
        return f"{where} += its first item", json.dumps(data)
    raw = rng.choice(HOSTILE_RAW)
    parent[last] = "@@RAW@@"
    return f"{where} = {raw[:20]}", json.dumps(data).replace('"@@RAW@@"', raw)


def state_corpus(rng: random.Random) -> list[dict[str, str]]:
    sys.path.insert(0, str(ROOT))
    from geomsim.registry import load_game
    from geomsim.testing import random_playout

    found = []
    for name, players, seed, steps in BASES:
        game = load_game(name)
        text = random_playout(game, players, seed, max_steps=steps).to_json()
        for _ in range(MUTANTS_PER_STATE):
            what, mutated = mutate(rng, json.loads(text))
            found.append({"game": name, "what": f"{name} {players}p seed {seed} step {steps}: {what}",
                          "text": mutated})
        found.append({"game": name, "what": f"{name}: truncated", "text": text[: len(text) // 2]})
        found.append({"game": name, "what": f"{name}: not an object", "text": "[1, 2]"})
    return found


def main() -> None:
    rng = random.Random(SEED)
    folder = HERE / "scenarios"
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.yaml"):
        old.unlink()
    files = scenario_corpus(rng)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    # The Anasazi scenarios read their tables from tables/ beside them: so do their mutants.
    shutil.copytree(ROOT / "scenarios" / "anasazi" / "tables", folder / "tables", dirs_exist_ok=True)
    states = state_corpus(rng)
    text = "".join(json.dumps(s) + "\n" for s in states).encode("utf-8")
    # xz: its window spans many states, so each game's table is stored about once.
    (HERE / "states.jsonl.xz").write_bytes(lzma.compress(text, preset=9))
    print(f"{len(files)} scenario files, {len(states)} states")


if __name__ == "__main__":
    main()
