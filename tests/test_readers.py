"""Readers and specs that must bound what they accept (issue 25, item 3): bot budgets, files
that are not regular files, seeds, and scenario text that YAML builds into something JSON and
the rest of geomsim cannot hold (recursive aliases, keys that are equal once built, lone
surrogates, integers Python will not convert)."""

from __future__ import annotations

import pytest

from geomsim.bots import MAX_ITERATIONS, MAX_ROLLOUT_DEPTH, MAX_SAMPLES, MAX_SECONDS, make_bot
from geomsim.registry import load_game


# -- bot budgets -----------------------------------------------------------------------------
@pytest.mark.parametrize("spec, words", [
    ("ismcts:1e300s", f"seconds must be a positive number at most {MAX_SECONDS:g}, not '1e300'"),
    ("ismcts:infs", "seconds must be a positive number at most"),
    (f"ismcts:{MAX_SECONDS * 1.01}s", "seconds must be a positive number at most"),
    ("ismcts:1000000000", f"iterations must be a positive integer at most {MAX_ITERATIONS:,}"),
    (f"ismcts:{MAX_ITERATIONS + 1}", f"iterations must be a positive integer at most {MAX_ITERATIONS:,}"),
    (f"ismcts:10:{MAX_ROLLOUT_DEPTH + 1}", f"rollout depth must be a positive integer at most {MAX_ROLLOUT_DEPTH:,}"),
    (f"greedy:{MAX_SAMPLES + 1}", f"candidate samples must be a positive integer at most {MAX_SAMPLES:,}"),
    ("ismcts:" + "9" * 5000, "iterations must be a positive integer at most"),
])
def test_a_budget_over_its_cap_is_refused_in_one_line(spec, words):
    with pytest.raises(ValueError) as e:
        make_bot(spec)
    message = str(e.value)
    assert words in message and message.startswith("bot ") and "\n" not in message and len(message) < 200


def test_the_planners_placements_are_capped():
    anasazi = load_game("anasazi")
    with pytest.raises(ValueError, match=f"bot planner:{MAX_SAMPLES + 1}: placements per expedition "
                                         f"must be a positive integer at most {MAX_SAMPLES:,}"):
        make_bot(f"planner:{MAX_SAMPLES + 1}", anasazi)
    assert make_bot(f"planner:{MAX_SAMPLES}", anasazi).samples == MAX_SAMPLES


def test_budgets_at_their_caps_are_taken():
    assert make_bot(f"ismcts:{MAX_SECONDS:g}s").seconds == MAX_SECONDS
    assert make_bot(f"ismcts:{MAX_ITERATIONS}:{MAX_ROLLOUT_DEPTH}").iterations == MAX_ITERATIONS
    assert make_bot(f"greedy:{MAX_SAMPLES}").samples == MAX_SAMPLES
