"""Statistics of batch rows that analysis, metrics, reports and scenarios share.

Intervals (Wilson's score interval of a proportion), descriptions of a sample, a batch's
summary (win rates by seat and by bot, scores, lengths, figures) and the way these numbers are
printed in tables. Pure functions of rows and numbers: nothing here plays, reads or writes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from geomsim.rules import win_shares

Z95 = 1.959963984540054  # the normal's 97.5% quantile: a two-sided 95% interval
BOOTSTRAP_RESAMPLES = 1000


def scipy_stats() -> Any:
    """`scipy.stats`, imported on first use: importing it costs about 1.3 s of CPU, which every
    command and worker process that imports this module (nearly all do, through the scenarios,
    batches and setups) would pay though most never test anything (issue 30, item 5)."""
    from scipy import stats

    return stats


def chisquare_p(counts: np.ndarray) -> float:
    """The p-value of a chi-square test that every one of `counts` is equally likely (1.0 when
    all are zero)."""
    return float(scipy_stats().chisquare(counts).pvalue) if counts.sum() > 0 else 1.0


# -- intervals and samples -------------------------------------------------------------------------


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (successes may be fractional shares)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def describe(values: Sequence[float]) -> dict[str, float]:
    """Count, mean, standard deviation, min, quartiles and max of `values`."""
    a = np.sort(np.asarray(values, dtype=float))
    if a.size == 0:
        return {"n": 0}
    q25, median, q75 = np.quantile(a, [0.25, 0.5, 0.75])
    return {"n": int(a.size), "mean": float(a.mean()), "std": float(a.std()), "min": float(a[0]),
            "q25": float(q25), "median": float(median), "q75": float(q75), "max": float(a[-1])}


def win_share(row: dict[str, Any], seat: int) -> float:
    """The share of a row's win that went to `seat` (a win shared by k players counts 1/k)."""
    return win_shares(row["players"], row["winners"])[seat]


def bootstrap_replicates(columns: Sequence[float] | Sequence[Sequence[float]] | np.ndarray,
                         statistic: Callable[[np.ndarray], np.ndarray] | None = None,
                         resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> np.ndarray:
    """`statistic` of the column means of per-game values, over `resamples` resamplings of the
    games (`columns`: one column per quantity, one value per game; a flat sequence is one
    column). `statistic` maps means of shape (resamples, k) to (resamples,); None: the mean of
    the one column. The stream is fixed by `seed`, so the replicates are reproducible."""
    values = np.asarray(columns, dtype=float)
    values = values.reshape(1, -1) if values.ndim == 1 else values
    n = values.shape[1]
    if n == 0:
        return np.empty(0)
    stat = statistic or (lambda means: means[:, 0])
    rng = np.random.default_rng(seed)
    found = []
    chunk = max(1, min(resamples, 2_000_000 // n))  # bounded memory on big batches
    for done in range(0, resamples, chunk):
        picks = rng.integers(0, n, size=(min(chunk, resamples - done), n))
        found.append(stat(values[:, picks].mean(axis=2).T))
    return np.concatenate(found)


def bootstrap_interval(columns: Sequence[float] | Sequence[Sequence[float]] | np.ndarray,
                       statistic: Callable[[np.ndarray], np.ndarray] | None = None,
                       resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of `statistic` (see `bootstrap_replicates`)."""
    found = bootstrap_replicates(columns, statistic, resamples, seed)
    if not found.size:
        return (math.nan, math.nan)
    low, high = np.percentile(found, [2.5, 97.5])
    return (float(low), float(high))


def spread_replicates(columns: Sequence[Sequence[float]] | np.ndarray,
                      resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0) -> np.ndarray:
    """Bootstrap replicates of the error of several means taken together (one column per
    quantity, one value per game): per resampling of the games, the largest minus the smallest
    deviation of a column's mean from its mean over all games. With c its 95% quantile, every
    difference between two columns' means lies within c of its estimate at once (simultaneous,
    max-type bootstrap intervals), so a function of those differences, such as the largest
    (`largest_gap_interval`), gets an interval that covers it at least as often."""
    values = np.asarray(columns, dtype=float)
    centre = values.mean(axis=1) if values.shape[1:] != (0,) else np.zeros(values.shape[0])

    def spread(means: np.ndarray) -> np.ndarray:
        off = means - centre
        return np.asarray(off.max(axis=1) - off.min(axis=1))

    return bootstrap_replicates(values, spread, resamples, seed)


def largest_gap_interval(columns: Sequence[Sequence[float]] | np.ndarray, spread: np.ndarray
                         ) -> tuple[float, float, float]:
    """The largest difference between two columns' means, and its 95% interval from
    `spread_replicates` of the same columns: [gap - c, gap + c], never below 0. Unlike a
    percentile bootstrap of the largest difference (whose replicates sit above the estimate, as
    every maximum of noisy means does, and whose interval therefore misses a true gap of 0
    nearly always), it covers the true gap at least 95% of the time, 0 included."""
    means = np.asarray(columns, dtype=float).mean(axis=1)
    gap = float(means.max() - means.min())
    c = float(np.quantile(spread, 0.95)) if spread.size else math.nan
    return gap, max(0.0, gap - c), gap + c


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of p-values tested together (each claim keeps its order)."""
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted, running = [1.0] * len(pvalues), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def ranks(row: dict[str, Any]) -> list[float]:
    """Each player's rank in a game as Ludii ranks a game ended by score: 1 is the best, tied
    players share the mean of the places they span (two tied for first are 1.5 each). The
    winners (after the rulebook's tie-break) come first, the others by score; an unfinished
    game ranks every player equal (Ludii's draw rank for players not yet ranked)."""
    n = row["players"]
    if not row["finished"]:
        return [(n + 1) / 2] * n
    winners = set(row["winners"])
    keys = [(p in winners, row["scores"][p]) for p in range(n)]
    placed = sorted(range(n), key=lambda p: keys[p], reverse=True)
    found = [0.0] * n
    start = 0
    while start < n:
        end = start
        while end + 1 < n and keys[placed[end + 1]] == keys[placed[start]]:
            end += 1
        for p in placed[start:end + 1]:
            found[p] = (start + end) / 2 + 1
        start = end + 1
    return found


def partial_wins(row: dict[str, Any]) -> list[float]:
    """Ludii's partial win of each player: (utility + 1) / 2 with utility 1 - (rank - 1) * 2 /
    (n - 1), i.e. 1 for the sole first, 0 for the sole last, 0.5 for all tied."""
    n = row["players"]
    return [1 - (r - 1) / (n - 1) for r in ranks(row)] if n > 1 else [1.0]


def turn_values(row: dict[str, Any], values: Sequence[float]) -> list[float] | None:
    """Per-player `values` of a game reordered by turn position (index 0: the first to move),
    None for a row that does not record its turn order (made before geomsim 0.2)."""
    order = row.get("turn_order")
    return [values[p] for p in order] if order else None


def paired_test(differences: Sequence[float]) -> dict[str, Any]:
    """The mean of paired per-game differences, its 95% interval (Student t) and the one-sided
    p-values of "the mean is above 0" and "below 0" (a paired t-test)."""
    d = np.asarray(differences, dtype=float)
    n = d.size
    if n < 2:
        return {"n": int(n), "mean": float(d.mean()) if n else math.nan, "ci95": [-math.inf, math.inf],
                "p_above": 1.0, "p_below": 1.0, "se": math.inf}
    mean, se = float(d.mean()), float(d.std(ddof=1) / math.sqrt(n))
    if se == 0:
        above, below = (0.0 if mean > 0 else 1.0), (0.0 if mean < 0 else 1.0)
        return {"n": n, "mean": mean, "ci95": [mean, mean], "p_above": above, "p_below": below,
                "se": 0.0}
    dist = scipy_stats().t(n - 1)
    t = float(dist.ppf(0.975))
    return {"n": n, "mean": mean, "ci95": [mean - t * se, mean + t * se], "se": se,
            "p_above": float(dist.sf(mean / se)), "p_below": float(dist.cdf(mean / se))}


def welch_test(a: Sequence[float], b: Sequence[float]) -> dict[str, Any]:
    """The difference of the means of two independent samples (a - b), its 95% interval and the
    one-sided p-values of "above 0" and "below 0" (Welch's t-test)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 2 or y.size < 2:
        return {"n": int(min(x.size, y.size)), "mean": math.nan, "ci95": [-math.inf, math.inf],
                "p_above": 1.0, "p_below": 1.0, "se": math.inf}
    vx, vy = x.var(ddof=1) / x.size, y.var(ddof=1) / y.size
    mean, se = float(x.mean() - y.mean()), float(math.sqrt(vx + vy))
    if se == 0:
        return {"n": int(min(x.size, y.size)), "mean": mean, "ci95": [mean, mean], "se": 0.0,
                "p_above": 0.0 if mean > 0 else 1.0, "p_below": 0.0 if mean < 0 else 1.0}
    dof = (vx + vy) ** 2 / (vx ** 2 / (x.size - 1) + vy ** 2 / (y.size - 1))
    dist = scipy_stats().t(dof)
    t = float(dist.ppf(0.975))
    return {"n": int(min(x.size, y.size)), "mean": mean, "ci95": [mean - t * se, mean + t * se],
            "se": se, "p_above": float(dist.sf(mean / se)), "p_below": float(dist.cdf(mean / se))}


def proportion_test(successes: float, n: int, bound: float) -> dict[str, float]:
    """One-sided score-test p-values of a proportion being above and below `bound` (the test
    Wilson's interval inverts)."""
    if n == 0 or not 0 < bound < 1:
        p = successes / n if n else math.nan
        above = 0.0 if n and bound <= 0 < p else 1.0
        below = 0.0 if n and bound >= 1 > p else 1.0
        return {"p_above": above, "p_below": below}
    z = (successes / n - bound) / math.sqrt(bound * (1 - bound) / n)
    normal = scipy_stats().norm
    return {"p_above": float(normal.sf(z)), "p_below": float(normal.cdf(z))}


# -- a batch's summary -----------------------------------------------------------------------------


def _rate(wins: float, n: int) -> dict[str, Any]:
    low, high = wilson(wins, n)
    return {"games": n, "wins": wins, "win_rate": wins / n if n else 0.0, "ci95": [low, high]}


class Summary(dict[str, Any]):
    """The summary of a batch (`summarize`): a dict, shown in notebooks as its Markdown tables."""

    def _repr_html_(self) -> str:
        from geomsim.notebook import markdown_html

        return markdown_html(summary_markdown(self))


def summarize(rows: Iterable[dict[str, Any]]) -> Summary:
    """Win rates by turn position (who moved first, second, ...), by player number and by bot
    (Wilson 95%), scores, length and figures of the rows.

    A win shared by k players counts 1/k for each. Unfinished games count as played, not won.
    Rows that do not record their turn order are left out of the turn positions.
    The result does not depend on the order of `rows`.
    """
    rows = sorted(rows, key=lambda r: r["seed"])
    if not rows:
        return Summary(games=0)
    players = rows[0]["players"]
    shares = [win_shares(r["players"], r["winners"]) for r in rows]
    seats = []
    for s in range(players):
        wins = sum(share[s] for share in shares)
        seats.append({"seat": s, **_rate(wins, len(rows)),
                      "score": describe([r["scores"][s] for r in rows])})
    bots: dict[str, dict[str, list[float]]] = {}
    for r, share in zip(rows, shares):
        for s, name in enumerate(r["bots"]):
            entry = bots.setdefault(name, {"wins": [], "scores": []})
            entry["wins"].append(share[s])
            entry["scores"].append(r["scores"][s])
    by_bot = [{"bot": name, **_rate(sum(e["wins"]), len(e["wins"])), "score": describe(e["scores"])}
              for name, e in sorted(bots.items())]
    by_turn = []
    ordered = [(turn_values(r, share), turn_values(r, r["scores"])) for r, share in zip(rows, shares)]
    known = [(w, sc) for w, sc in ordered if w is not None and sc is not None]
    if known:
        for k in range(players):
            by_turn.append({"turn": k, **_rate(sum(w[k] for w, _ in known), len(known)),
                            "score": describe([sc[k] for _, sc in known])})
    return Summary({
        "game": rows[0]["game"], "players": players, "games": len(rows),
        "finished": sum(bool(r["finished"]) for r in rows),
        "shared_wins": sum(len(r["winners"]) > 1 for r in rows),
        "seeds": [rows[0]["seed"], rows[-1]["seed"]],
        "even_chance": 1 / players,
        "by_turn": by_turn, "by_seat": seats, "by_bot": by_bot,
        "length": describe([r["length"] for r in rows]),
        "figures": _figures(rows),
    })


def _figures(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Statistics of each numeric game figure (non-numeric figures are left out)."""
    names = sorted({k for r in rows for k in r.get("figures", {})})
    found = {}
    for name in names:
        values = [r["figures"][name] for r in rows if name in r.get("figures", {})]
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            found[name] = describe(values)
    return found


# -- in tables -------------------------------------------------------------------------------------


def ordinal(k: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def pct(x: float) -> str:
    """A share as a percentage with one decimal (0.125 is 12.5%)."""
    return f"{100 * x:.1f}%"


def num(x: float) -> str:
    """A statistic in a table: 3 significant digits below 100, one decimal above, never an
    exponent for the numbers of a game (999.5 is 999.5, not 1e+03)."""
    if math.isfinite(x) and x == int(x):
        return f"{int(x)}"
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.1f}".removesuffix(".0")


def _wins(x: float) -> str:
    """A count of wins, shared wins counted 1/k each: exact to two decimals (942.5, 333.33)."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _stats_cells(d: dict[str, float]) -> list[str]:
    return [num(d[k]) for k in ("mean", "std", "min", "median", "max")] if d.get("n") else ["-"] * 5


def summary_markdown(summary: dict[str, Any]) -> str:
    """The summary as Markdown tables (also printed by ``geomsim analyze``)."""
    if not summary.get("games"):
        return "No games.\n"
    lines = [
        f"# {summary['game']}: {summary['games']} games, {summary['players']} players",
        "",
        f"Seeds {summary['seeds'][0]} to {summary['seeds'][1]}; {summary['finished']} finished; "
        f"{summary['shared_wins']} shared wins (each winner counts 1/k). Even chance: "
        f"{pct(summary['even_chance'])}. Intervals: Wilson 95%.",
        "",
        "## Win rate by bot",
        "",
        "| bot | seats played | wins | win rate | 95% CI | score mean | std | min | median | max |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for b in summary["by_bot"]:
        lines.append(_rate_line(b["bot"], b))
    if summary.get("by_turn"):
        lines += ["", "## Win rate by turn position (1st = the first to move)", "",
                  "| turn | games | wins | win rate | 95% CI | score mean | std | min | median | max |",
                  "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
        for t in summary["by_turn"]:
            lines.append(_rate_line(ordinal(t["turn"] + 1), t))
    lines += ["", "## Win rate by player number (not the turn order)", "",
              "| player | games | wins | win rate | 95% CI | score mean | std | min | median | max |",
              "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for s in summary["by_seat"]:
        lines.append(_rate_line(str(s["seat"]), s))
    lines += ["", "## Game length and figures", "",
              "| measure | mean | std | min | median | max |", "|---|---:|---:|---:|---:|---:|",
              "| length (actions) | " + " | ".join(_stats_cells(summary["length"])) + " |"]
    for name, d in summary["figures"].items():
        lines.append(f"| {name} | " + " | ".join(_stats_cells(d)) + " |")
    return "\n".join(lines) + "\n"


def _rate_line(label: str, d: dict[str, Any]) -> str:
    low, high = d["ci95"]
    return (f"| {label} | {d['games']} | {_wins(d['wins'])} | {pct(d['win_rate'])} | "
            f"{pct(low)}–{pct(high)} | " + " | ".join(_stats_cells(d["score"])) + " |")
