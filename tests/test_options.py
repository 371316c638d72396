"""Options and variants (geomsim.options): declarations, one-line errors, the command line's
--option/--variant and `rules --options`, scenarios' `options:`, the JSON round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geomsim
from geomsim.cli import main
from geomsim.options import Option, Variant, caption, chosen, declare, note, resolve
from geomsim.reading import DataError
from geomsim.scenario import parse_scenario

TOWERS = Option("towers_to_end", int, 4, "towers of a colour that end the game", ("x/5.0/end",),
                low=1, high=4)
SHARE = Option("share", str, "equal", "how the camp is shared", choices=("equal", "none"))
FLAG = Option("bonus", bool, True, "bonus treasures")
OPTIONS, VARIANTS = declare([TOWERS, SHARE, FLAG], [Variant("short", {"towers_to_end": 3})])


def test_resolve_gives_every_option_defaults_then_variant_then_given():
    assert resolve(OPTIONS) == {"towers_to_end": 4, "share": "equal", "bonus": True}
    assert resolve(OPTIONS, {"bonus": False}, VARIANTS, "short") == {
        "towers_to_end": 3, "share": "equal", "bonus": False}
    assert resolve(OPTIONS, {"towers_to_end": 2}, VARIANTS, "short")["towers_to_end"] == 2
    assert list(VARIANTS) == ["official", "short"]


@pytest.mark.parametrize(("given", "message"), [
    ({"towers_to_end": 7}, "options.towers_to_end: must be a whole number 1 to 4, not 7"),
    ({"towers_to_end": True}, "options.towers_to_end: must be a whole number 1 to 4, not True"),
    ({"share": "most"}, "options.share: must be one of equal, none, not 'most'"),
    ({"bonus": "yes"}, "options.bonus: must be true or false, not 'yes'"),
    ({"colour": 1}, "options.colour: unknown option (options: towers_to_end, share, bonus)"),
])
def test_a_bad_value_is_one_line_naming_the_option_and_its_allowed_values(given, message):
    with pytest.raises(DataError) as e:
        resolve(OPTIONS, given)
    assert str(e.value) == message and "\n" not in str(e.value)


def test_an_unknown_variant_lists_the_variants():
    with pytest.raises(DataError, match=r"unknown variant 'long' \(variants: official, short\)"):
        resolve(OPTIONS, None, VARIANTS, "long")


def test_a_variant_naming_a_value_its_option_refuses_is_refused_when_declared():
    with pytest.raises(DataError, match="towers_to_end"):
        declare([TOWERS], [Variant("bad", {"towers_to_end": 9})])
    with pytest.raises(DataError, match="must be"):
        Option("n", int, 9, "a default out of its own range", low=1, high=4)


@given(st.integers(1, 4), st.sampled_from(["equal", "none"]), st.booleans())
@settings(max_examples=30, deadline=None)
def test_command_line_text_reads_back_every_allowed_value(towers, share, bonus):
    texts = [f"towers_to_end={towers}", f"share={share}", f"bonus={str(bonus).lower()}"]
    assert chosen(OPTIONS, VARIANTS, None, texts) == {"towers_to_end": towers, "share": share,
                                                      "bonus": bonus}


def test_caption_and_note_name_only_the_options_that_are_not_the_rulebooks():
    values = resolve(OPTIONS, {"towers_to_end": 3})
    assert caption(OPTIONS, resolve(OPTIONS)) == "" and note(OPTIONS, resolve(OPTIONS), "towers_to_end") == ""
    assert caption(OPTIONS, values) == "options: towers_to_end=3"
    assert note(OPTIONS, values, "towers_to_end", "bonus") == " (option towers_to_end=3)"


@pytest.mark.parametrize("name", ["anasazi", "aztekz", "cibola"])
def test_every_game_declares_its_options_with_rule_ids_it_has(name):
    game = geomsim.load_game(name)
    assert "official" in game.variants
    for option in game.options.values():
        assert option.description and option.rules, option.name
        assert set(option.rules) <= set(game.rules), option.name
    state = game.new_state(2, seed=1)
    assert state.options == game.resolve_options()  # absent in the setup: the official rules


# -- the command line ---------------------------------------------------------------------------
def test_rules_options_lists_options_and_variants(capsys):
    assert main(["rules", "cibola", "--options"]) == 0
    out = capsys.readouterr().out
    assert "copy_totem" in out and "cibola/totem/copy-variant" in out
    assert "variant no-copy-totem: copy_totem=false" in out


def test_setup_takes_options_into_its_json(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert main(["setup", "cibola", "-p", "3", "--option", "rounds=4", "--variant", "no-copy-totem",
                 "--json", str(out)]) == 0
    setup = json.loads(out.read_text())
    assert setup["options"] == {"rounds": 4, "copy_totem": False}
    state = geomsim.load_game("cibola").new_state(3, setup=setup)
    assert state.options["rounds"] == 4 and len(state.deck) == 4 * 4 - 4  # round 1 revealed


@pytest.mark.parametrize("argv", [
    ["setup", "cibola", "--option", "rounds=99"],
    ["setup", "cibola", "--option", "colour=red"],
    ["setup", "cibola", "--option", "rounds"],
    ["setup", "cibola", "--variant", "fast"],
    ["analyze", "cibola", "-n", "2", "--option", "rounds=x"],
])
def test_a_bad_option_on_the_command_line_is_one_line(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and ("options." in err or "--option" in err or "variant" in err)
    assert not list(tmp_path.iterdir())  # nothing written


def test_analyze_plays_under_the_options(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["analyze", "cibola", "-n", "4", "-w", "1", "--no-plot", "-o", str(out),
                 "--option", "rounds=2"]) == 0
    rows = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    # 2 rounds of sends (4 players) and 4 takes each, besides rocks and totems: far below 8 rounds.
    assert all(r["length"] <= 2 * (4 + 4 * 3) for r in rows)
    assert json.loads((out / "batch.json").read_text())["options"] == {"rounds": 2}


SCENARIO = """
game: cibola
players: 2
seed: 3
options:
  explorers: 5
expect:
  - illegal: "0: send 6"
    rule: cibola/send/count
"""


def test_a_scenario_states_options_and_the_command_line_lays_its_own_over(tmp_path):
    scenario = parse_scenario(SCENARIO)
    assert scenario.new_state().explorers == [5, 5]
    over = parse_scenario(SCENARIO, options={"explorers": "7"})
    assert over.new_state().explorers == [7, 7]
    with pytest.raises(geomsim.InputError, match=r":6: options.explorers: must be a whole number 0 to 30"):
        parse_scenario(SCENARIO.replace("explorers: 5", "explorers: 99"))
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    assert main(["run", "--no-outputs", str(path)]) == 0
    assert main(["run", "--no-outputs", str(path), "--option", "explorers=8"]) == 1  # send 6 is legal


def test_old_json_without_options_is_the_official_game():
    game = geomsim.load_game("cibola")
    state = game.new_state(2, seed=4, options={"camp_share": "none"})
    data = json.loads(state.to_json())
    assert data["options"] == {"camp_share": "none"}
    assert game.state_from_json(state.to_json()).to_json() == state.to_json()
    del data["options"]
    assert game.state_from_json(json.dumps(data)).options == game.resolve_options()


def test_the_engine_module_has_no_game_and_no_click():
    text = Path(geomsim.options.__file__).read_text()
    assert "import click" not in text and "games." not in text


@pytest.mark.parametrize(("name", "options", "shown"), [
    ("cibola", {"rounds": 4}, "options: rounds=4"),
    ("aztekz", {"pile_scoring": "square"}, "options: pile_scoring=square"),
    ("anasazi", {"markers": 44, "camp_theft": False}, "options: markers=44, camp_theft=false"),
])
def test_every_diagram_shows_the_options_that_are_not_the_rulebooks(name, options, shown):
    import matplotlib.pyplot as plt

    game = geomsim.load_game(name)

    def lines(state):
        ax = state.draw()
        found = [t.get_text() for t in ax.texts if t.get_gid() == "options"]
        plt.close(ax.figure)
        return found

    assert lines(game.new_state(2, seed=0, options=options)) == [shown]
    assert lines(game.new_state(2, seed=0)) == []


def test_the_pettingzoo_env_plays_under_rule_options_with_their_spaces():
    pytest.importorskip("pettingzoo")
    from geomsim.envs.pettingzoo import raw_env

    official, more = raw_env("cibola", 2), raw_env("cibola", 2, rules={"explorers": 20})
    more.reset(seed=1)
    assert more.state.explorers == [20, 20]
    # send 0..40 where the official game has send 0..24: 16 ids more
    assert more.action_space("player_0").n == official.action_space("player_0").n + 16
    with pytest.raises(DataError, match="options.explorers: must be a whole number 0 to 30"):
        raw_env("cibola", 2, rules={"explorers": 99})


@pytest.mark.parametrize("name", ["anasazi", "aztekz", "cibola"])
def test_random_option_draws_round_trip_in_setup_and_state_json(name):
    """Every option round-trips: a state under a random draw writes JSON that reads back to
    the same state and options, and its setup makes the same start."""
    import numpy as np

    from geomsim.testing import playable_options

    game = geomsim.load_game(name)
    rng = np.random.default_rng(29)
    for seed in range(3):
        options = playable_options(game, 2, rng, seed)
        state = game.new_state(2, seed=seed, options=options)
        assert state.options == game.resolve_options(options)
        again = game.state_from_json(state.to_json())
        assert again.options == state.options and again.to_json() == state.to_json()
        remade = game.new_state(2, setup=json.loads(json.dumps(game.make_setup(2, seed, options))))
        assert remade.options == state.options


def test_serve_starts_its_games_under_the_options():
    pytest.importorskip("uvicorn")
    from geomsim.cli.serve import _with_options
    from geomsim.web.serve import start_from

    start = _with_options(start_from(None, None, "aztekz", 2, 3), ("slave_steps=2",), "free-placement")
    assert start.new_state().options["slave_steps"] == 2
    assert start.new_state().options["placement_mandatory"] is False
