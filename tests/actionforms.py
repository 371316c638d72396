"""Hypothesis strategies for the property that an action's text and its JSON accept the same
actions (`geomsim.testing.check_action_json`, `check_action_text`), for any game."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from hypothesis import strategies as st

from geomsim.rules import Game


def field_values(words: Sequence[str]) -> st.SearchStrategy[object]:
    """Values a field of an action's JSON may hold: numbers of every size (and the edges of
    the ranges games use), the game's own words, any text (long too), other types."""
    return st.one_of(
        st.integers(-5, 70), st.integers(-2**70, 2**70), st.sampled_from([10**9, 10**9 + 1, -10**9 - 1, 2**63]),
        st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(list(words)),
        st.text(max_size=50), st.text(alphabet="abcxyz_0", min_size=30, max_size=60),
        st.just("x" * 100_000), st.booleans(), st.none(), st.lists(st.integers(), max_size=2))


def action_json(game: Game, words: Sequence[str]) -> st.SearchStrategy[dict[str, object]]:
    """The JSON of an action of `game`: a kind, and its fields (some left out, one more at
    times), each any of `field_values(words)`."""
    values = field_values(words)
    kinds = []
    for kind in game.action_types:
        names = [f.name for f in dataclasses.fields(kind)]  # type: ignore[arg-type]
        kinds.append(st.fixed_dictionaries({"kind": st.just(kind.kind), **{n: values for n in names}},
                                           optional={"extra": values}))
        kinds.append(st.fixed_dictionaries({"kind": st.just(kind.kind)},
                                           optional={n: values for n in names}))
    return st.one_of(kinds)


def action_text(game: Game, notation) -> st.SearchStrategy[str]:
    """Texts each form of `notation` matches (so they reach the builders' checks), and others."""
    forms = [st.from_regex(form.regex, fullmatch=True) for form in notation.forms.values()]
    return st.one_of(*forms, st.text(max_size=40))


def action_form_tests(game: Game, notation, words: Sequence[str]) -> tuple:
    """The two properties every game's actions keep (issue 25): any action JSON the game reads
    has a text form that reads back to it, and any text it reads has a JSON that reads back."""
    from hypothesis import given, settings

    from geomsim.testing import check_action_json, check_action_text

    # 200 examples a property and a game (Anasazi's took 5 s of CPU at 400): each property
    # runs on every run, with fresh examples, so the breadth grows from run to run.
    @settings(max_examples=200, deadline=None)
    @given(action_json(game, words))
    def json_reads_back(obj):
        check_action_json(game, obj)

    @settings(max_examples=200, deadline=None)
    @given(action_text(game, notation))
    def text_reads_back(text):
        check_action_text(game, text)

    return json_reads_back, text_reads_back
