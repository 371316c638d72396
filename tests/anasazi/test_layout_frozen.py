"""The random Anasazi table of each seed stays the one it is: `layout_seeds.json` holds the hash
of the setup JSON of seeds 0-50, made by the layout code of commit 0937e48 (issue 30, item 2:
the new layout changed every seed's table on purpose, README changelog of 2026-12-03, night;
the hashes before it were made at eb13b06). A seed whose table has to change again is listed
in the README's changelog and in `CHANGED` below, or the fixture is made anew and says why.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from games.anasazi.layout import make_setup

FIXTURE = json.loads((Path(__file__).with_name("layout_seeds.json")).read_text())
FROZEN = FIXTURE["setups"]
# Seeds whose setup changed on purpose since the fixture was made (named in the README's
# changelog).
CHANGED: frozenset[int] = frozenset()


def digest(seed: int) -> str:
    """The hash the fixture keeps for `seed` (its player count varies with the seed)."""
    text = json.dumps(make_setup(2 + seed % 3, seed), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_each_seed_lays_the_table_it_laid_when_the_fixture_was_made() -> None:
    """Seeds 0-50: the same setup JSON, byte for byte, as the fixture's layout code made."""
    changed = sorted(int(s) for s, h in FROZEN.items() if digest(int(s)) != h)
    assert len(FROZEN) == 51
    assert changed == sorted(CHANGED)


def test_the_fixture_names_the_rules_version_its_tables_belong_to() -> None:
    """Rows of batches say which rules made them (`Game.rules_version`), and a seed's table is
    part of what a row was played on: a fixture made anew for tables changed on purpose comes
    with a new version, so that rows of the old tables and the new never mix."""
    from games.anasazi import GAME

    assert FIXTURE["rules_version"] == GAME.rules_version
