"""Batch claims of scenarios (``analysis`` expectations), decided as statistics allow.

A claim compares a figure of a batch (a win rate by turn position, player number or bot, or a
metric of `geomsim.metrics`) with a bound (``at_least``, ``at_most``, ``between``, ``equals``)
or with another figure (``more_than``, ``less_than``; of the same batch, paired by game, or of
another batch, paired by seed where the seeds match). Each claim gets two one-sided p-values:
that it holds and that it fails. The claims of a scenario are tested together, so both are
adjusted by Holm's method over them. A claim then **holds** or **fails** when its adjusted
p-value is below 5%, and is **undecided** otherwise. An undecided claim says about how many more
games would decide it if the estimate stayed where it is.

Tests: a share of games by the score test (the one Wilson's interval inverts), a mean over
games by Student's t, a difference of figures by a paired t-test on the per-game differences
(Welch's when the games are not paired), and Balance by its bootstrap replicates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from geomsim import metrics as mt
from geomsim.scenario.paths import lookup, property_path
from geomsim.stats import (holm, ordinal, paired_test, partial_wins, pct,
                           proportion_test, scipy_stats, turn_values, welch_test, wilson,
                           win_share)

ALPHA = 0.05
MEASURES = ("turn", "seat", "bot", "metric")
BOUNDS = ("between", "equals", "at_least", "at_most")
VERSUS = ("more_than", "less_than")
Row = dict[str, Any]


# -- figures of a batch ------------------------------------------------------------------------------
@dataclass
class Figure:
    """A figure of a batch: its value, 95% interval and what its tests need (`per_game`: one
    value per game by seed, for a share or a mean; `replicates`: bootstrap replicates of a
    statistic)."""

    label: str
    value: float
    ci95: tuple[float, float]
    games: int
    kind: str  # "share", "mean", "statistic" or "fixed" (no interval: a count, a median)
    per_game: dict[int, float] = field(default_factory=dict)
    weights: dict[int, float] = field(default_factory=dict)  # a bot's seats in each game
    replicates: np.ndarray | None = None
    # Balance: `stats.spread_replicates`, the bootstrap error of the positions' means together
    spread: np.ndarray | None = None

    def words(self) -> str:
        """The figure in words with its interval."""
        if self.kind == "fixed":
            return f"{self.label} is {_value(self.value, False)}"
        share = self.kind == "share" or 0 <= self.ci95[0] <= self.ci95[1] <= 1
        low, high = (_value(x, share) for x in self.ci95)
        return f"{self.label} is {_value(self.value, share)} (95% CI {low}–{high})"


def _value(x: float, share: bool) -> str:
    return pct(x) if share else f"{x:.4g}"


def measure(rows: Sequence[Row], spec: Mapping[str, Any]) -> Figure:
    """The figure `spec` names in `rows`: ``turn: k`` (the win rate of the player k-th to move,
    counted from 0), ``seat: p`` (of player number p), ``bot: name`` or ``metric: name or path``.
    Raises LookupError when the batch has no such figure."""
    if "turn" in spec:
        k = int(spec["turn"])
        return _share(f"the win rate of the {ordinal(k + 1)} to move",
                      {r["seed"]: win_share(r, r["turn_order"][k]) for r in rows
                       if len(r.get("turn_order") or ()) > k})
    if "seat" in spec:
        p = int(spec["seat"])
        return _share(f"the win rate of player {p}", {r["seed"]: win_share(r, p) for r in rows})
    if "bot" in spec:
        return _bot(rows, str(spec["bot"]))
    return _metric(rows, str(spec["metric"]))


def _share(label: str, per_game: dict[int, float], weights: dict[int, float] | None = None
           ) -> Figure:
    if not per_game:
        raise LookupError(f"no game of the batch gives {label}")
    weights = weights or {s: 1.0 for s in per_game}
    n = int(sum(weights.values()))
    wins = sum(per_game[s] * weights[s] for s in per_game)
    return Figure(label, wins / n, wilson(wins, n), n, "share", per_game, weights)


def _bot(rows: Sequence[Row], name: str) -> Figure:
    per_game, weights = {}, {}
    for r in rows:
        seats = [s for s, b in enumerate(r["bots"]) if b == name]
        if seats:
            per_game[r["seed"]] = sum(win_share(r, s) for s in seats) / len(seats)
            weights[r["seed"]] = float(len(seats))
    if not per_game:
        raise LookupError(f"no bot {name!r} in the batch (bots: "
                          f"{', '.join(sorted({b for r in rows for b in r['bots']}))})")
    return _share(f"the win rate of {name}", per_game, weights)


def _metric(rows: Sequence[Row], name: str) -> Figure:
    if name in mt.BY_NAME:
        metric = mt.BY_NAME[name]
        per_game = {r["seed"]: v for r in rows if (v := metric.per_game(r)) is not None}
        if not per_game:
            raise LookupError(f"no game of the batch has a {name}")
        if metric.kind == "share":
            return _share(name, per_game)
        est = metric.estimate(rows)
        assert est is not None
        return Figure(name, est["value"], tuple(est["ci95"]), est["games"], "mean", per_game)
    if name == "Balance":
        columns = [w for r in rows if (w := turn_values(r, partial_wins(r))) is not None]
        if not columns or len(columns[0]) < 2:
            raise LookupError("the batch records no turn order: no Balance")
        found = mt.balance_of_columns(np.asarray(columns, dtype=float).T)
        return Figure("Balance", found["value"], tuple(found["ci95"]), found["games"], "statistic",
                      spread=found["spread"])
    value = lookup(mt.metrics(rows), property_path(name))
    if isinstance(value, Mapping) and "ci95" in value:
        centre = value.get("value", value.get("share", value.get("win_rate")))
        if isinstance(centre, (int, float)):
            return Figure(name, float(centre), tuple(value["ci95"]), int(value.get("games", 0)),
                          "statistic", replicates=None)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LookupError(f"{name} is not a number: give a path to one (e.g. {name}.mean)")
    return Figure(name, float(value), (float(value), float(value)), len(rows), "fixed")


# -- one-sided p-values ----------------------------------------------------------------------------
def _against(f: Figure, bound: float) -> tuple[float, float, float]:
    """p-values that the figure is above and below `bound`, and its standard error."""
    if f.kind == "share":
        p = proportion_test(f.value * f.games, f.games, bound)
        se = math.sqrt(max(f.value * (1 - f.value), 1e-12) / f.games)
        return p["p_above"], p["p_below"], se
    if f.kind == "mean":
        t = paired_test([v - bound for v in f.per_game.values()])
        return t["p_above"], t["p_below"], t["se"]
    se = (f.ci95[1] - f.ci95[0]) / (2 * 1.96)
    if f.spread is not None and f.spread.size:
        # Balance lies within [value - s, min(1, value + s)] for a replicate error s: above
        # `bound` unless an error as large as value - bound; below it unless one of bound - value.
        size = f.spread.size + 1
        below = 0.0 if bound > 1.0 else float((f.spread >= bound - f.value).sum() + 1) / size
        return float((f.spread >= f.value - bound).sum() + 1) / size, min(1.0, below), se
    if f.replicates is not None and f.replicates.size:
        r, size = f.replicates, f.replicates.size + 1
        return (float((r <= bound).sum() + 1) / size, float((r >= bound).sum() + 1) / size, se)
    # a figure with only its interval (or none): decided by the interval alone
    return (0.0 if f.ci95[0] > bound else 1.0, 0.0 if f.ci95[1] < bound else 1.0, se)


def _difference(a: Figure, b: Figure, margin: float, ka: float = 1.0, kb: float = 1.0
                ) -> tuple[dict[str, Any], str]:
    """The test of ka a - kb b against `margin`, paired by seed where both figures have the
    same games."""
    if a.kind in ("share", "mean") and b.kind in ("share", "mean"):
        common = sorted(set(a.per_game) & set(b.per_game))
        if common and len(common) == len(a.per_game) == len(b.per_game):
            return (paired_test([ka * a.per_game[s] - kb * b.per_game[s] - margin
                                 for s in common]), "paired by game")
        return welch_test([ka * v - margin for v in a.per_game.values()],
                          [kb * v for v in b.per_game.values()]), "unpaired (Welch)"
    raise LookupError(f"{a.label} and {b.label}: only win rates and per-game metrics compare")


# -- claims ----------------------------------------------------------------------------------------
@dataclass
class Claim:
    """One ``analysis`` expectation, measured: what it says, the p-values that it holds and that
    it fails (before Holm's adjustment), and what to say of it."""

    text: str
    p_holds: float
    p_fails: float
    distance: float  # how far the estimate is from deciding: the gap to the bound
    se: float
    games: int

    def verdict(self, p_holds: float, p_fails: float, claims: int) -> tuple[str, str]:
        """("pass" | "fail" | "undecided", message) at adjusted p-values."""
        tested = f"p = {p_holds if p_holds < p_fails else p_fails:.3g}" + (
            f" (Holm, {claims} claims)" if claims > 1 else "")
        if p_holds < ALPHA:
            return "pass", f"{self.text}: holds, {tested}"
        if p_fails < ALPHA:
            return "fail", f"{self.text}: fails, {tested}"
        return "undecided", f"{self.text}: undecided, {self._more(claims)}"

    def _more(self, claims: int) -> str:
        """About how many more games would decide the claim if the estimate stayed put."""
        if self.distance == 0 or not math.isfinite(self.se) or self.se == 0:
            return (f"{self.games} games; the estimate sits on the bound: more games do not "
                    "decide it unless it moves")
        z = float(scipy_stats().norm.ppf(1 - ALPHA / claims))
        needed = self.games * (z * self.se / abs(self.distance)) ** 2
        more = max(1, math.ceil(needed - self.games))
        return f"{self.games} games; about {more:,} more would decide it at this estimate"


def claim(rows: Sequence[Row], spec: Mapping[str, Any], other_rows: Sequence[Row] | None,
          where: str) -> Claim:
    """Measure the claim of an ``analysis`` expectation on its batch's `rows` (and the rows of
    the batch it is compared with, `other_rows`; None: the same batch)."""
    f = measure(rows, spec)
    for key in VERSUS:
        if key in spec:
            other = measure(rows if other_rows is None else other_rows, spec[key])
            margin, k = float(spec.get("margin", 0.0)), versus_factor(spec, key)
            sign = 1 if key == "more_than" else -1
            a, b, ka, kb = (f, other, 1.0, k) if sign == 1 else (other, f, k, 1.0)
            test, pairing = _difference(a, b, margin, ka, kb)
            low, high = (sign * x for x in test["ci95"])
            word = "more than" if sign == 1 else "less than"
            scaled = f"{k:g} x " if k != 1 else ""
            text = (f"{where}, {f.words()} and {other.words()}; this minus {scaled}that"
                    f"{f' minus {margin:g}' if margin else ''}: {sign * test['mean']:+.4g} "
                    f"(95% CI {min(low, high):.4g} to {max(low, high):.4g}, {pairing}), expected "
                    f"{word} {scaled}that" + (f" by {margin:g}" if margin else ""))
            return Claim(text, test["p_above"], test["p_below"], test["mean"], test["se"],
                         test["n"])
    above, below, se = {}, {}, 0.0
    bounds = [(k, spec[k]) for k in BOUNDS if k in spec]
    p_holds, p_fails, distance = 0.0, 1.0, math.inf
    for key, wanted in bounds:
        for bound, need in _bound_sides(key, wanted):
            if bound not in above:
                above[bound], below[bound], se = _against(f, bound)
            holds, fails = (above[bound], below[bound]) if need == "above" else (below[bound], above[bound])
            p_holds = max(p_holds, holds)
            p_fails = min(p_fails, 2 * fails if key in ("between", "equals") else fails)
            distance = min(distance, abs(f.value - bound))
        if key == "equals":
            p_holds = 0.0 if f.per_game and all(v == wanted for v in f.per_game.values()) else \
                (0.0 if f.kind == "fixed" and f.value == wanted else 1.0)
            if f.kind == "fixed":
                p_fails = 1.0 - p_holds
    text = f"{where}, {f.words()}, expected {_bounds_words(bounds)}"
    return Claim(text, p_holds, min(p_fails, 1.0), distance, se, f.games)


def versus_factor(spec: Mapping[str, Any], key: str) -> float:
    """The multiple k of the other figure a comparison claims: "less than by 10%" claims
    this < 0.9 x that, "more than by 10%" this > 1.1 x that, ``ratio: r`` r x that; else 1."""
    if "ratio" in spec:
        return float(spec["ratio"])
    by = spec.get("by", 0)
    share = float(by.rstrip("%")) / 100 if isinstance(by, str) else float(by)
    return 1 - share if key == "less_than" else 1 + share


def _bound_sides(key: str, wanted: Any) -> list[tuple[float, str]]:
    """The one-sided tests a bound asks for: (bound, "above" | "below")."""
    if key == "at_least":
        return [(float(wanted), "above")]
    if key == "at_most":
        return [(float(wanted), "below")]
    if key == "between":
        return [(float(wanted[0]), "above"), (float(wanted[1]), "below")]
    return [(float(wanted), "above"), (float(wanted), "below")]  # equals: both sides may fail


def _bounds_words(bounds: Sequence[tuple[str, Any]]) -> str:
    words = {"at_least": "at least", "at_most": "at most", "equals": "equal to"}
    return "; ".join(f"between {w[0]:g} and {w[1]:g}" if k == "between" else f"{words[k]} {w:g}"
                     for k, w in bounds)


def settle(claims: Sequence[Claim]) -> list[tuple[str, str]]:
    """The verdict of each claim, tested together: Holm's adjustment over the claims."""
    holds, fails = holm([c.p_holds for c in claims]), holm([c.p_fails for c in claims])
    return [c.verdict(h, f, len(claims)) for c, h, f in zip(claims, holds, fails)]
