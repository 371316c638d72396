"""`apply` skips the second exact check only for an action the state's own sampler has just
returned, the very object, in the very position; every other action is checked."""

from __future__ import annotations

import numpy as np
import pytest

from games.anasazi.actions import BuildCamp, Pass
from geomsim.rules import IllegalAction
from tests.anasazi.conftest import in_play


@pytest.fixture
def counted(monkeypatch):
    """A game in play whose exact checks are counted."""
    state = in_play()
    calls = []
    original = type(state)._violations
    monkeypatch.setattr(type(state), "_violations",
                        lambda self, a, p: calls.append(a) or original(self, a, p))
    return state, calls


def sampled_camp(state) -> BuildCamp:
    rng = np.random.default_rng(3)
    while True:
        action = state.legal_actions().sample(rng, 1)[0]
        if isinstance(action, BuildCamp):
            return action


def test_a_sampled_action_is_not_checked_twice(counted):
    state, calls = counted
    action = sampled_camp(state)
    state.apply(action)
    assert calls == [] and state.camps[-1].x == action.x


def test_an_equal_action_from_outside_is_checked(counted):
    state, calls = counted
    action = sampled_camp(state)
    state.apply(BuildCamp(action.x, action.y))
    assert calls == [BuildCamp(action.x, action.y)]


def test_a_proof_does_not_outlive_its_position_anasazi_4_1_not_on_camp(counted):
    """anasazi/4.1/not-on-camp: the sampled camp, applied again once it stands there, is
    checked and refused, the state unchanged."""
    state, calls = counted
    action = sampled_camp(state)
    state.apply(action)
    state.apply(Pass())  # the look the camp opened
    camps = list(state.camps)
    with pytest.raises(IllegalAction) as refused:
        state.apply(action)
    assert "anasazi/4.1/not-on-camp" in {v.rule for v in refused.value.verdict.violations}
    assert calls == [Pass(), action] and state.camps == camps


def test_a_clone_checks_what_the_original_sampled(counted):
    state, calls = counted
    action = sampled_camp(state)
    other = state.clone()
    other.apply(action)
    assert calls == [action]
