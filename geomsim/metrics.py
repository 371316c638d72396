"""Game metrics of a batch, computed from its rows (`geomsim analyze`'s ``games.jsonl``).

A metric named after one of Ludii's (its "Evaluation" metrics, `metrics.single.*` in the Ludii
source) is computed as Ludii's source defines it; a geomsim quantity that differs has a name
of its own. docs/metrics.md gives each metric's definition, source and range.

Every metric carries its 95% interval: Wilson's for a share of games, a bootstrap over games
(percentile, 1,000 resamples, fixed stream) for the others. Each is computed from one value
per game (`Metric.per_game`), so two batches on the same seeds compare game by game.

Ludii ranks the players of a game (1 = best, ties share the mean of their places) and counts
"partial wins" (1 for the sole first, 0 for the sole last, 0.5 for all tied): see
`geomsim.stats.ranks`. Ludii's "player 1" is the first to move: here the turn positions
(`State.turn_order`), not the player numbers. Lead and decisiveness follow each game's
outcome scores (`State.outcome_scores`: the scores if the game ended now, everything hidden
revealed), where Ludii uses a search's state evaluation.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from geomsim.files import write_text
from geomsim.stats import (bootstrap_interval, chisquare_p, describe, largest_gap_interval, num,
                           ordinal, partial_wins, pct, ranks, spread_replicates, summarize,
                           turn_values, wilson, win_share)

Row = dict[str, Any]
DOCS = "docs/metrics.md"


# -- what a game's trace says ----------------------------------------------------------------------
def score_trace(row: Row) -> list[tuple[int, list[float]]] | None:
    """The outcome scores of a game as ``(decision, scores)`` whenever they changed (None for a
    row without them: compiled games and rows made before geomsim 0.2)."""
    found = row.get("trace", {}).get("scores")
    return [(int(d), [float(x) for x in s]) for d, s in found] if found else None


def leaders_before(row: Row) -> list[frozenset[int]] | None:
    """The leading players (highest outcome score) before each action of a game, then after the
    last one: ``length + 1`` sets."""
    trace = score_trace(row)
    if trace is None:
        return None
    out: list[frozenset[int]] = []
    k = 0
    for i in range(row["length"] + 1):
        while k + 1 < len(trace) and trace[k + 1][0] <= i:
            k += 1
        scores = trace[k][1]
        best = max(scores)
        out.append(frozenset(p for p, s in enumerate(scores) if s == best))
    return out


def scores_before(row: Row) -> list[list[float]] | None:
    """The outcome scores before each action of a game (``length`` vectors, the end left out)."""
    trace = score_trace(row)
    if trace is None:
        return None
    out, k = [], 0
    for i in range(row["length"]):
        while k + 1 < len(trace) and trace[k + 1][0] <= i:
            k += 1
        out.append(trace[k][1])
    return out


# -- one value per game ------------------------------------------------------------------------------
def lead_change(row: Row) -> float | None:
    """Ludii's Lead Change of one game: how often the set of leaders differs from the one
    before, over the states before each action (the first counts: Ludii starts from no
    leader; the end does not), divided by the actions."""
    leaders = leaders_before(row)
    if leaders is None or not row["length"]:
        return None
    before = leaders[:-1]
    changes = sum(1 for i, now in enumerate(before) if i == 0 or now != before[i - 1])
    return changes / int(row["length"])


def decisiveness_threshold(row: Row) -> float | None:
    """Ludii's Decisiveness Threshold of one game: the highest outcome score any player who is
    not a winner reached before an action (finished games only)."""
    before = scores_before(row)
    if before is None or not row["finished"] or not before:
        return None
    losers = [p for p in range(row["players"]) if p not in row["winners"]]
    return max((s[p] for s in before for p in losers), default=None)


def decisiveness_moves(row: Row) -> float | None:
    """Ludii's Decisiveness Moves of one game: the share of its actions played before a winner
    first scored above the Decisiveness Threshold (1 when none did before the end)."""
    threshold, before = decisiveness_threshold(row), scores_before(row)
    if threshold is None or before is None:
        return None
    for i, scores in enumerate(before):
        if any(scores[p] > threshold for p in row["winners"]):
            return i / int(row["length"])
    return 1.0


def lead_for_good(row: Row) -> int | None:
    """The number of actions after which the sole winner led alone (by outcome score) to the
    end; the length when only the end put it alone ahead (a tie-break win, say); None for a
    shared win, an unfinished game or a row without a trace."""
    leaders = leaders_before(row)
    if leaders is None or not row["finished"] or len(row["winners"]) != 1:
        return None
    alone, taken = frozenset(row["winners"]), int(row["length"])
    for i in range(row["length"], -1, -1):
        if leaders[i] != alone:
            break
        taken = i
    return taken


def decided_at_end(row: Row) -> float | None:
    """1 when the sole winner led alone only after the last action (or never), else 0."""
    k = lead_for_good(row)
    return None if k is None else float(k >= row["length"])


def decision_moves(row: Row) -> float | None:
    """Ludii's Decision Moves of one game: the share of decisions with more than one legal
    action (a continuous decision counts as one)."""
    choices: list[int | None] = row.get("trace", {}).get("choices") or []
    if not choices:
        return None
    return sum(c is None or c > 1 for c in choices) / len(choices)


def branching_factor(row: Row) -> float | None:
    """Ludii's Branching Factor (Avg) of one game: legal actions per decision, averaged; None
    when a decision of the game is continuous (see `finite_branching_factor`)."""
    choices: list[int | None] = row.get("trace", {}).get("choices") or []
    counts = [c for c in choices if c is not None]
    if not choices or len(counts) < len(choices):
        return None
    return sum(counts) / len(counts)


def finite_branching_factor(row: Row) -> float | None:
    """Legal actions per finite decision of a game whose other decisions are continuous (None
    when every decision is finite: `branching_factor` covers it)."""
    choices = row.get("trace", {}).get("choices", [])
    counts = [c for c in choices if c is not None]
    return sum(counts) / len(counts) if counts and len(counts) < len(choices) else None


def continuous_share(row: Row) -> float | None:
    """The share of a game's decisions whose legal actions are a continuum (Anasazi's poses);
    None for a game whose decisions are all finite."""
    choices = row.get("trace", {}).get("choices")
    if not choices or all(c is not None for c in choices):
        return None
    return sum(c is None for c in choices) / len(choices)


def first_mover_partial_win(row: Row) -> float | None:
    """Ludii's partial win (by rank) of the player who moved first."""
    found = turn_values(row, partial_wins(row))
    return None if found is None else found[0]


def first_mover_win(row: Row) -> float | None:
    """The first mover's share of the win (1/k of a win shared by k)."""
    order = row.get("turn_order")
    return win_share(row, order[0]) if order else None


def _sole_winner(row: Row) -> float:
    return float(row["finished"] and len(row["winners"]) == 1)


def _all_tied(row: Row) -> float:
    return float(row["finished"] and len(set(ranks(row))) == 1)


def _shared_win(row: Row) -> float | None:
    return float(len(row["winners"]) > 1) if row["finished"] else None


# -- the metrics -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """A metric: its name, where the definition comes from, one value per game and how the
    games' values combine (`kind`: "share" of games, Wilson interval; "mean" over games,
    bootstrap interval)."""

    name: str
    source: str
    per_game: Callable[[Row], float | None]
    kind: str = "mean"
    unit: str = ""

    def values(self, rows: Sequence[Row]) -> list[float | None]:
        """The metric's value in each game (None where it does not apply)."""
        return [self.per_game(r) for r in rows]

    def estimate(self, rows: Sequence[Row]) -> dict[str, Any] | None:
        """The value over `rows` with its 95% interval and the games it covers; None when no
        game has a value."""
        found = [v for v in self.values(rows) if v is not None]
        if not found:
            return None
        value = sum(found) / len(found)
        ci = wilson(sum(found), len(found)) if self.kind == "share" else bootstrap_interval(found)
        return {"value": value, "ci95": list(ci), "games": len(found)}


METRICS: tuple[Metric, ...] = (
    Metric("Completion", "Ludii", _sole_winner, "share"),
    Metric("Finished", "geomsim", lambda r: float(bool(r["finished"])), "share"),
    Metric("Drawishness", "Ludii", _all_tied, "share"),
    Metric("Shared Wins", "geomsim", _shared_win, "share"),
    Metric("AdvantageP1", "Ludii", first_mover_partial_win),
    Metric("First-Mover Win Rate", "geomsim", first_mover_win, "share"),
    Metric("Duration Moves", "Ludii", lambda r: float(r["length"]), unit="actions"),
    Metric("Duration Seconds", "geomsim", lambda r: float(r.get("seconds", 0.0)), unit="s"),
    Metric("Lead Change", "Ludii", lead_change),
    Metric("Decisiveness Threshold", "Ludii", decisiveness_threshold, unit="points"),
    Metric("Decisiveness Moves", "Ludii", decisiveness_moves),
    Metric("Decided At End", "geomsim", decided_at_end, "share"),
    Metric("Decision Moves", "Ludii", decision_moves),
    Metric("Branching Factor", "Ludii", branching_factor, unit="actions"),
    Metric("Finite Branching Factor", "geomsim", finite_branching_factor, unit="actions"),
    Metric("Continuous Decisions", "geomsim", continuous_share),
)
BY_NAME = {m.name: m for m in METRICS}

# One line per metric, for reports that carry their definitions (the whole: docs/metrics.md).
DEFINITIONS: dict[str, str] = {
    "Balance": "Ludii: 1 - the largest difference between the mean partial wins (by rank) of two "
               "turn positions; 1 is even.",
    "Turn-Order Effect": "geomsim: the turn position farthest from the even win rate (its 95% "
                         "interval holds for all positions at once), and the p-value of one "
                         "chi-square test that all positions win equally.",
    "Completion": "Ludii: the share of games with a sole winner (no draw, not cut short).",
    "Finished": "geomsim: the share of games played to their end.",
    "Drawishness": "Ludii: the share of games in which every player ties.",
    "Shared Wins": "geomsim: the share of finished games won by more than one player.",
    "AdvantageP1": "Ludii: the first mover's mean partial win by rank (even 50%).",
    "First-Mover Win Rate": "geomsim: the first mover's win rate (even 1/players).",
    "Duration Moves": "Ludii: actions per game.",
    "Duration Seconds": "geomsim: wall time per game.",
    "Lead Change": "Ludii: how often the leaders (by outcome score) change before an action, per "
                   "action.",
    "Decisiveness Threshold": "Ludii: the best outcome score a non-winner reached.",
    "Decisiveness Moves": "Ludii: the share of a game played before a winner passed the "
                          "Decisiveness Threshold.",
    "Decided At End": "geomsim: the share of games whose sole winner led alone only at the end.",
    "Decision Moves": "Ludii: the share of decisions with more than one legal action.",
    "Branching Factor": "Ludii: legal actions per decision (games whose decisions are all finite).",
    "Finite Branching Factor": "geomsim: legal actions per finite decision, where others are "
                               "continuous.",
    "Continuous Decisions": "geomsim: the share of decisions among a continuum of actions.",
    "Ending": "geomsim: how games ended, by the game's own figure.",
}


def balance_of(means: np.ndarray) -> np.ndarray:
    """Ludii's Balance of mean partial wins by position, one row of means (resamples, k) each:
    1 - the largest difference between two positions."""
    return np.asarray(1.0 - (means.max(axis=1) - means.min(axis=1)))


def balance_of_columns(columns: Sequence[Sequence[float]] | np.ndarray) -> dict[str, Any]:
    """Ludii's Balance of per-game partial wins (one column per turn position, one value per
    game) with its 95% interval, `value` minus and plus the bootstrap quantile that bounds every
    difference between two positions' means at once (`stats.largest_gap_interval`), within
    0..1; `spread`: those replicates, which a claim's test reads. A percentile bootstrap of
    Balance itself would sit below the estimate (the largest of noisy gaps is biased up) and
    would exclude the 1 of a perfectly fair game nearly always."""
    values = np.asarray(columns, dtype=float)
    spread = spread_replicates(values)
    gap, low, high = largest_gap_interval(values, spread)
    return {"value": 1.0 - gap, "ci95": [max(0.0, 1.0 - high), 1.0 - low], "games": values.shape[1],
            "by_turn": [float(x) for x in values.mean(axis=1)], "spread": spread}


def balance(rows: Sequence[Row]) -> dict[str, Any] | None:
    """Ludii's Balance over turn positions: 1 - the largest difference between the mean partial
    wins (by rank) of two turn positions, with its 95% interval (`balance_of_columns`)."""
    found = [v for r in rows if (v := turn_values(r, partial_wins(r))) is not None]
    if not found or len(found[0]) < 2:
        return None
    estimate = balance_of_columns(np.asarray(found, dtype=float).T)
    del estimate["spread"]  # a thousand numbers: the metrics' JSON keeps the interval
    return estimate


def turn_order_effect(rows: Sequence[Row]) -> dict[str, Any] | None:
    """The turn position whose win rate lies farthest from the even chance (rate, deviation,
    and a 95% interval that holds for every position at once, so also for the one picked as
    farthest: Wilson's at 1 - 0.05/k for k positions, Bonferroni's), and the p-value of a
    chi-square test that every turn position wins equally often (one test for all positions:
    no multiple comparisons)."""
    by_turn = summarize(rows).get("by_turn") or []
    if len(by_turn) < 2:
        return None
    even = 1 / len(by_turn)
    worst = max(by_turn, key=lambda t: (round(abs(t["win_rate"] - even), 12), -t["turn"]))
    wins = np.array([t["wins"] for t in by_turn], dtype=float)
    p = chisquare_p(wins)
    # The farthest of k positions is picked for being far: its own 95% interval would miss
    # the even chance of a fair game in about one batch in six (four positions, 100 games).
    z = NormalDist().inv_cdf(1 - 0.025 / len(by_turn))
    low, high = wilson(worst["wins"], worst["games"], z)
    return {"turn": worst["turn"], "win_rate": worst["win_rate"], "ci95": [low, high],
            "deviation": worst["win_rate"] - even, "p_equal": p, "games": worst["games"]}


def endings(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """How the games ended: per ending (the game's figure ``ending``; "unfinished" for games cut
    short, "not recorded" where the game or its compiled player does not say), games, share and
    Wilson 95% interval."""
    found = Counter("unfinished" if not r["finished"] else
                    str(r.get("figures", {}).get("ending", "not recorded")) for r in rows)
    n = len(rows)
    return {k: {"games": v, "share": v / n, "ci95": list(wilson(v, n))}
            for k, v in sorted(found.items())}


def choice_figures(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """The mean over games of each of the game's choice figures, with its bootstrap interval."""
    names = sorted({k for r in rows for k in r.get("trace", {}).get("figures", {})})
    out = {}
    for name in names:
        values = [r["trace"]["figures"][name]["mean"] for r in rows
                  if name in r.get("trace", {}).get("figures", {})]
        out[name] = {**describe(values), "ci95": list(bootstrap_interval(values))}
    return out


# -- all of them -------------------------------------------------------------------------------------
def metrics(rows: Sequence[Row]) -> dict[str, Any]:
    """Every metric of the batch's rows (sorted by seed first, so the order they finished in
    does not matter)."""
    rows = sorted(rows, key=lambda r: r["seed"])
    if not rows:
        return {"games": 0}
    summary = summarize(rows)
    found: dict[str, Any] = {
        "game": rows[0]["game"], "players": rows[0]["players"], "games": len(rows),
        "by_turn": summary["by_turn"], "by_seat": summary["by_seat"], "by_bot": summary["by_bot"],
    }
    for m in METRICS:
        if (estimate := m.estimate(rows)) is not None:
            found[m.name] = estimate
    if (b := balance(rows)) is not None:
        found["Balance"] = b
    if (effect := turn_order_effect(rows)) is not None:
        found["Turn-Order Effect"] = effect
    found["Ending"] = endings(rows)
    found["Duration"] = describe([r["length"] for r in rows])
    taken = [k for r in rows if (k := lead_for_good(r)) is not None]
    found["lead for good"] = describe(taken)
    found["choice figures"] = choice_figures(rows)
    found["figures"] = summary["figures"]
    return found


def _ci(d: dict[str, Any], share: bool = True) -> str:
    low, high = d["ci95"]
    return f"{pct(low)}–{pct(high)}" if share else f"{num(low)}–{num(high)}"


def _stats(d: dict[str, float]) -> str:
    if not d.get("n"):
        return "-"
    return f"mean {num(d['mean'])}, median {num(d['median'])}, {num(d['min'])}–{num(d['max'])}"


def _estimate(m: Metric, d: dict[str, Any]) -> str:
    share = m.kind == "share" or m.name in {"AdvantageP1", "Lead Change", "Decisiveness Moves",
                                            "Decision Moves", "Continuous Decisions"}
    value = pct(d["value"]) if share else f"{num(d['value'])} {m.unit}".rstrip()
    return f"{value} (95% CI {_ci(d, share)}; {d['games']} games)"


def metric_lines(m: dict[str, Any]) -> list[tuple[str, str]]:
    """The metrics as (name, value in words with its 95% interval) pairs, in the order of
    docs/metrics.md."""
    if not m.get("games"):
        return []
    lines: list[tuple[str, str]] = []
    if b := m.get("Balance"):
        lines.append(("Balance", f"{b['value']:.3f} (95% CI {b['ci95'][0]:.3f}–{b['ci95'][1]:.3f}; "
                      f"over turn positions, {b['games']} games)"))
    if t := m.get("Turn-Order Effect"):
        lines.append(("Turn-Order Effect", f"{ordinal(t['turn'] + 1)} to move wins "
                      f"{pct(t['win_rate'])} (95% CI over all positions {_ci(t)}), "
                      f"{100 * t['deviation']:+.1f} points "
                      f"from even; all positions equal: p = {t['p_equal']:.3g}"))
    for metric in METRICS:
        if metric.name in m:
            lines.append((metric.name, _estimate(metric, m[metric.name])))
    lines.append(("Ending", "; ".join(f"{k} {pct(v['share'])} ({_ci(v)})"
                                      for k, v in m["Ending"].items())))
    lines += [(f"{name} (game means)", f"{_stats(d)} (95% CI of the mean {_ci(d, False)})")
              for name, d in m["choice figures"].items()]
    lines += [(name, _stats(d)) for name, d in m["figures"].items()]
    return lines


def metrics_markdown(m: dict[str, Any]) -> str:
    """The metrics as a Markdown table (each name's definition: docs/metrics.md)."""
    if not m.get("games"):
        return "No games.\n"
    head = [f"# {m['game']}: metrics of {m['games']} games, {m['players']} players", "",
            f"Definitions, sources and ranges: {DOCS}. Intervals: 95% (Wilson for shares of "
            "games, bootstrap over games for the others).", "",
            "| metric | value |", "|---|---|"]
    return "\n".join(head + [f"| {k} | {v} |" for k, v in metric_lines(m)]) + "\n"


def write_metrics(out: Path, rows: Sequence[Row], versions: dict[str, Any] | None = None
                  ) -> dict[str, Any]:
    """Write ``metrics.json`` and ``metrics.md`` into `out`; return the metrics."""
    found = metrics(rows)
    if versions:
        found["versions"] = versions
    write_text(out / "metrics.json", json.dumps(found, indent=1, allow_nan=False) + "\n")
    write_text(out / "metrics.md", metrics_markdown(found))
    return found
