"""Statistics of batch rows that analysis, metrics, reports and scenarios share.

Intervals (Wilson's score interval of a proportion), descriptions of a sample, a batch's
summary (win rates by seat and by bot, scores, lengths, figures) and the way these numbers are
printed in tables. Pure functions of rows and numbers: nothing here plays, reads or writes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from geomsim.rules import win_shares

Z95 = 1.959963984540054  # the normal's 97.5% quantile: a two-sided 95% interval


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
    """Win rates by seat and by bot (Wilson 95%), scores, length and figures of the rows.

    A win shared by k players counts 1/k for each. Unfinished games count as played, not won.
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
    return Summary({
        "game": rows[0]["game"], "players": players, "games": len(rows),
        "finished": sum(bool(r["finished"]) for r in rows),
        "shared_wins": sum(len(r["winners"]) > 1 for r in rows),
        "seeds": [rows[0]["seed"], rows[-1]["seed"]],
        "even_chance": 1 / players,
        "by_seat": seats, "by_bot": by_bot,
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
    lines += ["", "## Win rate by seat", "",
              "| seat | games | wins | win rate | 95% CI | score mean | std | min | median | max |",
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
