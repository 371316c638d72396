"""Game metrics of a batch, computed from its rows (`geomsim analyze`'s ``games.jsonl``).

Named as Ludii's game metrics name them where one matches (Browne, Stephenson et al., the
Ludii "Evaluation" metrics), computed from what a row holds: its outcome, its length and time,
the game's figures (`State.figures`) and its trace (`geomsim.bots.Trace`: the leading seats
whenever they change, the legal actions of each decision, the game's choice figures).

| metric | meaning |
|---|---|
| Completion | share of games played to the end (not cut by ``--max-steps``) |
| Drawishness | share of finished games won by more than one seat (a shared win) |
| Balance | 1 - the largest difference between two seats' win rates (Ludii's) |
| Seat Deviation | the largest difference between a seat's win rate and the even chance |
| AdvantageP1 | win rate of the player who moved first |
| Duration Moves | actions per game |
| Duration Seconds | wall time per game |
| Ending | how games ended (a game's figure ``ending``: Anasazi markers or towers, ...) |
| Lead Change | changes of the leading seats (highest current score) per action, averaged |
| Decisiveness Moves | share of the game played before the final sole winner led for good |
| Decided At End | share of games whose winner led alone only after the last action, or never |
| Branching Factor | legal actions per decision (finite action spaces) |
| Decision Moves | share of decisions with more than one legal action |

Games with continuous actions report what they declare per decision (`State.choice_figures`,
e.g. Anasazi's legal share of sampled poses and reachable pueblos per turn); every numeric game
figure is described too. Ludii computes Lead Change and Decisiveness from a search's state
evaluation; here the current score leads (documented in docs/analysis.md).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from geomsim.files import write_text
from geomsim.stats import describe, num, pct, summarize, win_share, wilson

Row = dict[str, Any]


# -- outcomes --------------------------------------------------------------------------------------
def completion(rows: Sequence[Row]) -> float:
    """Share of games played to the end."""
    return sum(bool(r["finished"]) for r in rows) / len(rows) if rows else 0.0


def _finished(rows: Sequence[Row]) -> list[Row]:
    return [r for r in rows if r["finished"]]


def drawishness(rows: Sequence[Row]) -> float:
    """Share of finished games won by more than one seat."""
    done = _finished(rows)
    return sum(len(r["winners"]) > 1 for r in done) / len(done) if done else 0.0


def seat_rates(rows: Sequence[Row]) -> list[float]:
    """Each seat's win rate, as the summary counts it (a win shared by k counts 1/k; an
    unfinished game is played, not won)."""
    return [s["win_rate"] for s in summarize(rows).get("by_seat", [])]


def balance(rows: Sequence[Row]) -> float:
    """Ludii's Balance: 1 - the largest difference between two seats' win rates."""
    rates = seat_rates(rows)
    return 1.0 - (max(rates) - min(rates)) if rates else 1.0


def seat_deviation(rows: Sequence[Row]) -> dict[str, Any]:
    """The seat whose win rate lies farthest from the even chance: seat, rate, 95% interval,
    and the deviation (rate - even chance)."""
    seats = summarize(rows).get("by_seat", [])
    if not seats:
        return {}
    even = 1 / len(seats)
    worst = max(seats, key=lambda s: (round(abs(s["win_rate"] - even), 12), -s["seat"]))
    return {"seat": worst["seat"], "win_rate": worst["win_rate"], "ci95": worst["ci95"],
            "deviation": worst["win_rate"] - even}


def advantage_first(rows: Sequence[Row]) -> dict[str, Any]:
    """Ludii's AdvantageP1: the win rate of the player who moved first (games with one first
    mover), with its 95% interval."""
    done = [r for r in _finished(rows) if len(r.get("first", [])) == 1]
    if not done:
        return {}
    wins = sum(win_share(r, r["first"][0]) for r in done)
    return {"win_rate": wins / len(done), "ci95": list(wilson(wins, len(done))), "games": len(done)}


def endings(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """How the games ended: per ending (the game's figure ``ending``; "unfinished" for games
    cut short, "unknown" where the game does not say), games, share and 95% interval."""
    found = Counter("unfinished" if not r["finished"] else
                    str(r.get("figures", {}).get("ending", "unknown")) for r in rows)
    n = len(rows)
    return {k: {"games": v, "share": v / n, "ci95": list(wilson(v, n))}
            for k, v in sorted(found.items())}


# -- the course of play ----------------------------------------------------------------------------
def _leaders(row: Row) -> list[list[Any]] | None:
    return row.get("trace", {}).get("leaders") or None


def lead_changes(row: Row) -> int | None:
    """How often the set of leading seats changed in a game (None without a trace)."""
    leaders = _leaders(row)
    return None if leaders is None else len(leaders) - 1


def lead_change(rows: Sequence[Row]) -> float | None:
    """Ludii's Lead Change: changes of the leading seats per action, averaged over games."""
    found = [lead_changes(r) / r["length"] for r in rows
             if lead_changes(r) is not None and r["length"]]
    return sum(found) / len(found) if found else None


def lead_for_good(row: Row) -> int | None:
    """The number of actions after which the sole winner led alone to the end (the length of
    the game when it never did before the end, e.g. a tie-break win); None for a shared win,
    an unfinished game or a game without a trace."""
    leaders = _leaders(row)
    if leaders is None or not row["finished"] or len(row["winners"]) != 1:
        return None
    winner = row["winners"][0]
    taken: int = row["length"]
    for decision, seats in reversed(leaders):
        if seats != [winner]:
            break
        taken = decision
    return taken


def decisiveness(rows: Sequence[Row]) -> dict[str, Any]:
    """Decisiveness Moves (the mean share of a game played before its winner led for good),
    Decided At End (the share of games decided only by the last action), and the statistics
    of the action at which the lead was taken for good."""
    taken = [(k, r["length"]) for r in rows
             if (k := lead_for_good(r)) is not None and r["length"]]
    if not taken:
        return {}
    return {"Decisiveness Moves": sum(k / n for k, n in taken) / len(taken),
            "Decided At End": sum(k >= n for k, n in taken) / len(taken),
            "action": describe([k for k, _ in taken]), "sole winners": len(taken)}


def branching(rows: Sequence[Row]) -> dict[str, Any]:
    """Branching Factor (legal actions per decision, over the finite decisions of the batch),
    Decision Moves (the share of them with more than one), and the mean over games of each of
    the game's choice figures."""
    counts = [c for r in rows for c in r.get("trace", {}).get("choices", []) if c is not None]
    out: dict[str, Any] = {}
    if counts:
        out["Branching Factor"] = sum(counts) / len(counts)
        out["Decision Moves"] = sum(c > 1 for c in counts) / len(counts)
        out["decisions"] = len(counts)
    names = sorted({k for r in rows for k in r.get("trace", {}).get("figures", {})})
    out["choice figures"] = {name: describe([r["trace"]["figures"][name]["mean"] for r in rows
                                             if name in r.get("trace", {}).get("figures", {})])
                             for name in names}
    return out


# -- all of them -----------------------------------------------------------------------------------
def metrics(rows: Sequence[Row]) -> dict[str, Any]:
    """Every metric of the batch's rows (sorted by seed first, so the order they finished in
    does not matter)."""
    rows = sorted(rows, key=lambda r: r["seed"])
    if not rows:
        return {"games": 0}
    summary = summarize(rows)
    return {
        "game": rows[0]["game"], "players": rows[0]["players"], "games": len(rows),
        "by_seat": summary["by_seat"], "by_bot": summary["by_bot"],
        "Completion": completion(rows), "Drawishness": drawishness(rows),
        "Balance": balance(rows), "Seat Deviation": seat_deviation(rows),
        "AdvantageP1": advantage_first(rows),
        "Duration Moves": describe([r["length"] for r in rows]),
        "Duration Seconds": describe([r.get("seconds", 0.0) for r in rows]),
        "Ending": endings(rows),
        "Lead Change": lead_change(rows),
        "lead changes": describe([c for c in map(lead_changes, rows) if c is not None]),
        **decisiveness(rows), **branching(rows),
        "figures": summary["figures"],
    }


def _ci(d: dict[str, Any]) -> str:
    return f"{pct(d['ci95'][0])}–{pct(d['ci95'][1])}"


def _stats(d: dict[str, float]) -> str:
    if not d.get("n"):
        return "-"
    return f"mean {num(d['mean'])}, median {num(d['median'])}, {num(d['min'])}–{num(d['max'])}"


def metric_lines(m: dict[str, Any]) -> list[tuple[str, str]]:
    """The metrics as (name, value in words) pairs, in the order of the module's table."""
    if not m.get("games"):
        return []
    lines = [("Completion", pct(m["Completion"])), ("Drawishness", pct(m["Drawishness"])),
             ("Balance", f"{m['Balance']:.3f}")]
    if dev := m["Seat Deviation"]:
        lines.append(("Seat Deviation", f"seat {dev['seat']}: {pct(dev['win_rate'])} "
                      f"({_ci(dev)}), {100 * dev['deviation']:+.1f} points from even"))
    if first := m["AdvantageP1"]:
        lines.append(("AdvantageP1", f"{pct(first['win_rate'])} ({_ci(first)}) "
                      f"in {first['games']} games"))
    lines += [("Duration Moves", _stats(m["Duration Moves"])),
              ("Duration Seconds", _stats(m["Duration Seconds"]))]
    lines.append(("Ending", "; ".join(f"{k} {pct(v['share'])} ({_ci(v)})"
                                      for k, v in m["Ending"].items())))
    if m["Lead Change"] is not None:
        lines.append(("Lead Change", f"{m['Lead Change']:.3f} per action "
                      f"({_stats(m['lead changes'])} changes a game)"))
    if "Decisiveness Moves" in m:
        lines += [("Decisiveness Moves", f"{m['Decisiveness Moves']:.3f} "
                   f"(winner leads for good after action {_stats(m['action'])}, "
                   f"{m['sole winners']} games with a sole winner)"),
                  ("Decided At End", pct(m["Decided At End"]))]
    if "Branching Factor" in m:
        lines += [("Branching Factor", f"{m['Branching Factor']:.3g} legal actions per finite "
                   f"decision ({m['decisions']} decisions)"),
                  ("Decision Moves", pct(m["Decision Moves"]))]
    lines += [(f"{name} (game means)", _stats(d)) for name, d in m["choice figures"].items()]
    lines += [(name, _stats(d)) for name, d in m["figures"].items()]
    return lines


def metrics_markdown(m: dict[str, Any]) -> str:
    """The metrics as a Markdown table."""
    if not m.get("games"):
        return "No games.\n"
    head = [f"# {m['game']}: metrics of {m['games']} games, {m['players']} players", "",
            "| metric | value |", "|---|---|"]
    return "\n".join(head + [f"| {k} | {v} |" for k, v in metric_lines(m)]) + "\n"


def write_metrics(out: Path, rows: Sequence[Row]) -> dict[str, Any]:
    """Write ``metrics.json`` and ``metrics.md`` into `out`; return the metrics."""
    found = metrics(rows)
    write_text(out / "metrics.json", json.dumps(found, indent=1, allow_nan=False) + "\n")
    write_text(out / "metrics.md", metrics_markdown(found))
    return found
