"""The statistics module (geomsim.stats): Wilson's interval against published values and its
defining property, and the old import path from geomsim.analysis with its deprecation warning."""

from __future__ import annotations

import importlib
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from geomsim import stats


# Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Statistics in Medicine 17, Table I, method 3 (score interval, no continuity
# correction), 95%.
@pytest.mark.parametrize(("wins", "n", "low", "high"), [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_interval_matches_newcombes_published_values(wins: int, n: int, low: float,
                                                            high: float) -> None:
    found = stats.wilson(wins, n)
    assert (round(found[0], 4), round(found[1], 4)) == (low, high)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_bounds_are_where_the_score_test_just_rejects(case: tuple[int, int]) -> None:
    """Wilson's interval is the set of proportions p the score test keeps:
    (observed - p)^2 <= z^2 p (1 - p) / n; an inner bound is a root of the equality."""
    wins, n = case
    observed = wins / n
    low, high = stats.wilson(wins, n)
    # At 0 or n wins a bound may fall a rounding error inside the rate (analysis's plot knows).
    assert 0.0 <= low <= observed + 1e-12 and observed - 1e-12 <= high <= 1.0
    for bound in (low, high):
        if 0.0 < bound < 1.0:
            score = (observed - bound) ** 2 - stats.Z95 ** 2 * bound * (1 - bound) / n
            assert math.isclose(score, 0.0, abs_tol=1e-12)


def test_wilson_of_no_games_is_the_whole_range() -> None:
    assert stats.wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("name", ["Z95", "wilson", "describe", "Summary", "summarize",
                                  "summary_markdown"])
def test_moved_names_still_import_from_analysis_with_a_deprecation_warning(name: str) -> None:
    analysis = importlib.import_module("geomsim.analysis")
    with pytest.warns(DeprecationWarning, match=rf"geomsim\.stats\.{name}\b"):
        old = getattr(analysis, name)
    assert old is getattr(stats, name)


def test_private_statistics_are_not_kept_in_analysis() -> None:
    analysis = importlib.import_module("geomsim.analysis")
    for name in ("_share", "_pct", "_num", "_rate", "no_such_name"):
        assert not hasattr(analysis, name)
