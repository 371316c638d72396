"""Fair setups: each setup's turn-position win rates, and the most even of several.

A setup (the table of seed s) is played many times from the same start with different bot
seeds (`setup_batch`); its estimate (`setup_estimate`) gives each turn position's win rate
(Wilson 95%), its Balance (bootstrap 95% interval) and the chi-square p-value of "every
position wins equally often". `fairest` picks the most even of several estimates and says by
how much it beats the least even (a bootstrap interval of the difference). Picking the best of
K noisy estimates flatters it, so the command plays the chosen setup again on fresh bot seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from geomsim import stats
from geomsim.batch import Batch
from geomsim.compare import balance_estimate, position_wins
from geomsim.rules import Game

Row = dict[str, Any]
BY = ("balance", "chisq")


def setup_batch(game: Game, batch: Batch, setup_seed: int, per_setup: int) -> Batch:
    """`batch` played `per_setup` times from the table of `setup_seed` (under the batch's
    options); game i draws its bots' streams from seed ``batch.seed + i``."""
    state = game.new_state(players=batch.players, seed=setup_seed, options=dict(batch.options) or None)
    return replace(batch, start=state.to_json(), start_name=f"setup of seed {setup_seed}",
                   games=per_setup)


def setup_estimate(setup_seed: int, rows: Sequence[Row]) -> dict[str, Any]:
    """A setup's turn-position win rates (Wilson 95%), Balance (bootstrap 95%) and the
    chi-square p-value of equal win rates by position."""
    wins = np.array([position_wins(r) for r in rows], dtype=float)
    n = len(rows)
    totals = wins.sum(axis=0)
    positions = [{"position": k, "win_rate": float(t / n), "ci95": list(stats.wilson(float(t), n))}
                 for k, t in enumerate(totals)]
    p = stats.chisquare_p(totals)
    by_turn = all(r.get("turn_order") for r in rows)  # else by player number (older rows)
    return {"setup": setup_seed, "games": n, "positions": positions, "by_turn": by_turn,
            "balance": balance_estimate(rows), "chisq_p": p, "wins": wins.tolist()}


def evenness(estimate: dict[str, Any], by: str) -> float:
    """How even a setup is: its Balance, or its chi-square p-value (higher is more even)."""
    return float(estimate["balance"]["value"] if by == "balance" else estimate["chisq_p"])


def fairest(estimates: Sequence[dict[str, Any]], by: str = "balance") -> dict[str, Any]:
    """The most even of the setups' estimates (by Balance or the chi-square p; the lower seed
    among equals), the least even, and the Balance difference between them with a bootstrap
    95% interval (the two setups' games resampled apart)."""
    if by not in BY:
        raise ValueError(f"--by: one of {', '.join(BY)}, not {by!r}")
    if not estimates:
        raise ValueError("no setups to choose from")
    ranked = sorted(estimates, key=lambda e: (-evenness(e, by), e["setup"]))
    best, worst = ranked[0], ranked[-1]
    a, b = np.array(best["wins"], dtype=float), np.array(worst["wins"], dtype=float)
    rng = np.random.default_rng(0)
    reps = []
    for _ in range(stats.BOOTSTRAP_RESAMPLES):
        ma = a[rng.integers(0, len(a), len(a))].mean(axis=0)
        mb = b[rng.integers(0, len(b), len(b))].mean(axis=0)
        reps.append((1 - np.ptp(ma)) - (1 - np.ptp(mb)))
    low, high = np.percentile(reps, [2.5, 97.5])
    return {"by": by, "chosen": best, "least_even": worst, "ranking": [e["setup"] for e in ranked],
            "difference": {"balance": best["balance"]["value"] - worst["balance"]["value"],
                           "ci95": [float(low), float(high)]}}


def estimate_lines(estimates: Sequence[dict[str, Any]]) -> list[str]:
    """A Markdown table of the setups' estimates."""
    if not estimates:
        return ["No setups."]
    k = len(estimates[0]["positions"])
    names = ([f"{stats.ordinal(i + 1)} to move" for i in range(k)] if estimates[0]["by_turn"]
             else [f"player {i}" for i in range(k)])
    head = ["setup", "games", *names,
            "Balance (95%)", "chi-square p"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for e in estimates:
        bal = e["balance"]
        lines.append(f"| {e['setup']} | {e['games']} | "
                     + " | ".join(f"{stats.pct(p['win_rate'])} ({stats.pct(p['ci95'][0])}–"
                                  f"{stats.pct(p['ci95'][1])})" for p in e["positions"])
                     + f" | {bal['value']:.3f} ({bal['ci95'][0]:.3f}–{bal['ci95'][1]:.3f}) | "
                     f"{e['chisq_p']:.3g} |")
    return lines


def choice_lines(found: dict[str, Any], again: dict[str, Any] | None = None) -> list[str]:
    """The choice in words: which setup, by how much, with what interval, and (`again`) the
    chosen setup re-measured on fresh bot seeds."""
    best, worst, diff = found["chosen"], found["least_even"], found["difference"]
    lines = [f"Most even by {found['by']}: the setup of seed {best['setup']} (Balance "
             f"{best['balance']['value']:.3f}, 95% {best['balance']['ci95'][0]:.3f}–"
             f"{best['balance']['ci95'][1]:.3f}; chi-square p {best['chisq_p']:.3g}).",
             f"Least even: seed {worst['setup']} (Balance {worst['balance']['value']:.3f}); "
             f"the difference is {diff['balance']:+.3f} (95% {diff['ci95'][0]:+.3f} to "
             f"{diff['ci95'][1]:+.3f})."]
    if again is not None:
        bal = again["balance"]
        lines.append(f"Played again on fresh bot seeds ({again['games']} games): Balance "
                     f"{bal['value']:.3f} (95% {bal['ci95'][0]:.3f}–{bal['ci95'][1]:.3f}); the "
                     "best of several estimates flatters its setup, this one does not.")
    return lines


def play_setups(game: Game, batch: Batch, setup_seeds: Sequence[int], per_setup: int,
                play: Any) -> list[dict[str, Any]]:
    """Each setup of `setup_seeds` played `per_setup` times by ``play(batch, name)`` (which
    returns the rows; `name` is ``setup-SEED``), and its estimate."""
    return [setup_estimate(s, play(setup_batch(game, batch, s, per_setup), f"setup-{s}"))
            for s in setup_seeds]
