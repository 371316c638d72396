"""A ladder of bots: `geomsim ladder` plays a tournament and rates every bot with an interval.

The tournament (`rotation`, `ladder_batch`): with k bots and p players, a round is a set of
line-ups (by turn position) in which every bot sits in every turn position equally often; every
line-up of a round plays the same deal (paired seeds: the setup of the round's first seed), so
the luck of the deal cancels out between bots. With more bots than seats, the line-ups are
windows of p consecutive bots on circles of the k bots (steps 1, 2, ... until every pair of bots
meets): each window sits each bot once in each turn position. The games are played by the batch
machinery of `geomsim.analysis` (local processes or Dask, rows streamed, resumable).

The ratings (`fit_ratings`): each game's rank order (`geomsim.stats.ranks`: the rulebook's
winners first, then by score) gives a pairwise result for every two different bots in it (a tie
is half a win each); a Bradley-Terry model is fitted to the pairwise wins of all complete deals
(Hunter's MM algorithm, with half a virtual win each way between every two bots, so that a bot
that always wins has a finite rating), on the Elo scale (400 points: odds of 10 to 1), with
``random`` at 0 (else the lowest-rated bot, and the table says so). The 95% intervals are
percentile bootstrap intervals over deals (whole deals are resampled, the games of a deal stay
together), widened on either side to the profile-likelihood interval where that is wider: a
bot that won every game wins every resample, and only the likelihood says how far it may be. Beside each rating: games, win rate (Wilson 95%) and the seconds a decision took.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from geomsim import stats
from geomsim.analysis import ROWS, Pool, read_rows, run_batch
from geomsim.batch import Batch
from geomsim.errors import InputError
from geomsim.files import write_text

LADDER_JSON = "ladder.json"
LADDER_MD = "ladder.md"
LADDER_PNG = "ladder.png"
ELO = 400 / math.log(10)  # Elo points per unit of log-strength
PRIOR_WINS = 0.5  # virtual wins each way between every two bots (keeps ratings finite)
MM_TOLERANCE = 1e-8  # in log-strength: a millionth of an Elo point
MM_ITERATIONS = 20_000
RESAMPLES = 1000


# -- the tournament --------------------------------------------------------------------------------


def rotation(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The line-ups of one round, by turn position: each of `bots` sits in each turn position
    equally often (once per circle), and, with more bots than seats, every two bots meet.

    Line-up j of the circle of step g seats bot ``(j + t * g) mod k`` in turn position t: for a
    bot and a position exactly one j puts it there. Steps are added (1, 2, ...) until every pair
    of bots shares a line-up; a step whose windows would seat a bot twice is skipped when there
    are more bots than seats. With fewer bots than seats, the windows repeat bots. When no
    circles seat every pair together, the round is every set of `players` bots in each of its
    rotations.
    """
    k = len(bots)
    if k == 0:
        raise ValueError("--bots: name at least one bot")
    unmet = {frozenset(pair) for pair in combinations(range(k), 2)}
    lineups: list[tuple[str, ...]] = []
    for step in range(1, max(k, 2)):
        windows = [[(j + t * step) % k for t in range(players)] for j in range(k)]
        if k >= players and len(set(windows[0])) < players:
            continue
        met = {frozenset(p) for w in windows for p in combinations(set(w), 2)}
        if lineups and not met & unmet:
            continue
        lineups += [tuple(bots[i] for i in w) for w in windows]
        unmet -= met
        if not unmet:
            return lineups
    # No circle seats some pair together (6 bots, 3 seats: bots 3 apart): every set of `players`
    # bots, each in its `players` rotations, seats each bot in each position equally often.
    return [tuple(bots[i] for i in subset[r:] + subset[:r])
            for subset in combinations(range(k), players) for r in range(players)]


def ladder_batch(game: str, players: int, bots: Sequence[str], seed: int, deals: int,
                 max_steps: int = 100_000) -> Batch:
    """The batch of `deals` rounds of `rotation(bots, players)` from `seed`."""
    lineups = tuple(rotation(bots, players))
    return Batch(game, players, tuple(bots), seed, deals * len(lineups), True,
                 max_steps=max_steps, lineups=lineups)


def deals_played(batch: Batch) -> int:
    """The deals (rounds of line-ups) the batch holds."""
    return batch.games // len(batch.lineups)


# -- pairwise results and the fit ------------------------------------------------------------------


def pairwise_by_deal(batch: Batch, rows: Sequence[dict[str, Any]]) -> np.ndarray:
    """Per complete deal, the pairwise wins of the batch's bots: ``wins[d, i, j]`` is how often
    bot i ranked above bot j in the games of deal d (a tie: half each). A deal missing a game
    (an interrupted batch) is left out, so every deal counted holds the whole rotation."""
    index = {bot: i for i, bot in enumerate(batch.bots)}
    rounds = len(batch.lineups)
    by_deal: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_deal.setdefault(batch.deal(row["seed"]), []).append(row)
    complete = [d for d in sorted(by_deal) if len(by_deal[d]) == rounds]
    k = len(batch.bots)
    wins = np.zeros((len(complete), k, k))
    for n, deal in enumerate(complete):
        for row in by_deal[deal]:
            _add_game(wins[n], row, [index[b] for b in _bots_by_seat(batch, row)])
    return wins


def _bots_by_seat(batch: Batch, row: dict[str, Any]) -> list[str]:
    """The ladder's spec of the bot in each seat of `row` (its line-up is by turn position)."""
    lineup = batch.lineup(row["seed"])
    seated = list(lineup)
    for position, seat in enumerate(row["turn_order"]):
        seated[seat] = lineup[position]
    return seated


def _add_game(wins: np.ndarray, row: dict[str, Any], bots: Sequence[int]) -> None:
    """Add one game's pairwise results (from its rank order) to `wins`; two seats of the same
    bot tell nothing about it."""
    place = stats.ranks(row)
    for s, t in combinations(range(row["players"]), 2):
        i, j = bots[s], bots[t]
        if i == j:
            continue
        if place[s] == place[t]:
            wins[i, j] += 0.5
            wins[j, i] += 0.5
        elif place[s] < place[t]:
            wins[i, j] += 1
        else:
            wins[j, i] += 1


def bradley_terry(wins: np.ndarray, prior: float = PRIOR_WINS) -> np.ndarray:
    """Log-strengths (mean 0) of the Bradley-Terry model fitted to pairwise `wins` (k x k, or a
    stack of them: ... x k x k), by Hunter's MM algorithm, with `prior` virtual wins each way
    between every two bots."""
    k = wins.shape[-1]
    w = wins + prior * (1 - np.eye(k))
    games = w + np.swapaxes(w, -1, -2)
    total = w.sum(axis=-1)
    strength = np.ones(wins.shape[:-1])
    for _ in range(MM_ITERATIONS):
        pair = strength[..., :, None] + strength[..., None, :]
        new = total / (games / pair).sum(axis=-1)
        new /= np.exp(np.log(new).mean(axis=-1, keepdims=True))
        done = np.max(np.abs(np.log(new) - np.log(strength))) < MM_TOLERANCE
        strength = new
        if done:
            break
    log: np.ndarray = np.log(strength)
    return log


def anchor_of(bots: Sequence[str], ratings: np.ndarray) -> tuple[int, str]:
    """The bot rated 0 and why: ``random`` when it plays, else the lowest-rated bot."""
    for i, bot in enumerate(bots):
        if bot.split(":")[0] == "random":
            return i, f"{bot} is anchored at 0"
    low = int(np.argmin(ratings))
    return low, f"no random bot in the ladder: the lowest-rated bot, {bots[low]}, is anchored at 0"


@dataclass
class Fit:
    """Elo-scale ratings of the bots, their 95% intervals (`fit_ratings`) and the anchor."""

    ratings: np.ndarray
    intervals: np.ndarray  # k x 2
    anchor: int
    anchor_note: str
    deals: int

    def separated(self) -> bool:
        """Whether every two bots adjacent in rating have intervals that do not overlap."""
        order = np.argsort(-self.ratings)
        return all(self.intervals[hi, 0] > self.intervals[lo, 1]
                   for hi, lo in zip(order, order[1:]))


def fit_ratings(bots: Sequence[str], wins_by_deal: np.ndarray, resamples: int = RESAMPLES,
                seed: int = 0) -> Fit:
    """Bradley-Terry ratings of `bots` on the Elo scale from per-deal pairwise wins
    (`pairwise_by_deal`), with 95% intervals: percentile intervals from `resamples` resamplings
    of the deals (the stream fixed by `seed`), each side widened to the profile-likelihood
    interval's (`profile_intervals`) where that reaches farther."""
    deals = wins_by_deal.shape[0]
    point = ELO * bradley_terry(wins_by_deal.sum(axis=0))
    anchor, note = anchor_of(bots, point)
    point = point - point[anchor]
    if deals == 0:
        return Fit(point, np.full((len(bots), 2), math.nan), anchor, note, 0)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(deals, np.full(deals, 1 / deals), size=resamples).astype(float)
    replicates = ELO * bradley_terry(np.einsum("rd,dij->rij", counts, wins_by_deal))
    replicates -= replicates[:, [anchor]]
    intervals = np.percentile(replicates, [2.5, 97.5], axis=0).T
    profile = ELO * profile_intervals(wins_by_deal.sum(axis=0), anchor, point / ELO)
    # The wider of the two on each side: the bootstrap sees how games of a deal hang together,
    # the profile sees what the deals' resamples cannot (a bot that won every game it played
    # wins every resample: its bootstrap interval has no width).
    intervals[:, 0] = np.minimum(intervals[:, 0], profile[:, 0])
    intervals[:, 1] = np.maximum(intervals[:, 1], profile[:, 1])
    return Fit(point, intervals, anchor, note, deals)


def _penalized_loss(wins: np.ndarray, prior: float = PRIOR_WINS
                    ) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
    """The negative log-likelihood of the Bradley-Terry model on `wins` (k x k) with `prior`
    virtual wins each way, and its gradient, as a function of the k log-strengths."""
    k = wins.shape[0]
    w = wins + prior * (1 - np.eye(k))

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        diff = theta[:, None] - theta[None, :]
        p = 1 / (1 + np.exp(-diff))  # chance that row beats column
        value = float(-(w * np.log(np.where(np.eye(k) > 0, 1.0, p))).sum())
        gradient = -((w * (1 - p)).sum(axis=1) - (w.T * (1 - p.T)).sum(axis=1))
        return value, np.asarray(gradient)

    return loss


PROFILE_DROP = 3.841458820694124 / 2  # chi-square(1) 95% quantile, halved: a 95% profile interval


def profile_intervals(wins: np.ndarray, anchor: int, point: np.ndarray,
                      prior: float = PRIOR_WINS) -> np.ndarray:
    """Profile-likelihood 95% intervals (log-strength units, k x 2) of each bot's log-strength
    less the anchor's, for the Bradley-Terry model with `prior` virtual wins each way fitted to
    the pairwise `wins` (k x k; `point`: the fit, the anchor at 0): the values v at which the
    penalized log-likelihood, maximised over the other bots with this bot held at v, falls
    `PROFILE_DROP` below its maximum. They treat the pairwise results as independent."""
    from scipy.optimize import brentq, minimize

    k = wins.shape[0]
    loss = _penalized_loss(wins, prior)
    best = loss(point)[0]
    found = np.zeros((k, 2))

    def drop(bot: int, value: float) -> float:
        free = [i for i in range(k) if i not in (bot, anchor)]
        theta = point.copy()
        theta[bot] = value
        if free:
            def inner(x: np.ndarray) -> tuple[float, np.ndarray]:
                theta[free] = x
                v, g = loss(theta)
                return v, g[free]
            theta[free] = minimize(inner, point[free], jac=True, method="BFGS").x
        return loss(theta)[0] - best - PROFILE_DROP

    for bot in range(k):
        if bot == anchor:
            continue
        for side, sign in ((0, -1.0), (1, 1.0)):
            step = 1.0
            while drop(bot, point[bot] + sign * step) < 0 and step < 64:
                step *= 2
            edge = point[bot] + sign * step
            found[bot, side] = edge if drop(bot, edge) < 0 else brentq(
                lambda v: drop(bot, v), *sorted((point[bot], edge)), xtol=1e-6)
    return found


# -- the table -------------------------------------------------------------------------------------


def ladder_summary(batch: Batch, rows: Sequence[dict[str, Any]], stopped_early: bool = False
                   ) -> dict[str, Any]:
    """The ladder of the batch's rows: per bot its rating and interval, games, win rate
    (Wilson 95%) and decision times, best first, with how it was fitted."""
    fit = fit_ratings(batch.bots, pairwise_by_deal(batch, rows))
    entries: list[dict[str, Any]] = []
    for i, bot in enumerate(batch.bots):
        shares: list[float] = []
        times: list[float] = []
        for row in rows:
            for seat, name in enumerate(_bots_by_seat(batch, row)):
                if name == bot:
                    shares.append(stats.win_share(row, seat))
                    spent = row.get("decision_seconds") or []
                    times += spent[seat] if seat < len(spent) else []
        entries.append({
            "bot": bot, "rating": _num(fit.ratings[i]),
            "ci95": [_num(fit.intervals[i, 0]), _num(fit.intervals[i, 1])],
            "games": len(shares), "wins": sum(shares),
            "win_rate": sum(shares) / len(shares) if shares else None,
            "win_ci95": list(stats.wilson(sum(shares), len(shares))),
            "decisions": len(times),
            "decision_mean": float(np.mean(times)) if times else None,
            "decision_median": float(np.median(times)) if times else None,
        })
    entries.sort(key=lambda e: -math.inf if e["rating"] is None else float(e["rating"]),
                 reverse=True)
    return {
        "game": batch.game, "players": batch.players, "seed": batch.seed,
        "deals": fit.deals, "games": len(rows), "lineups_per_deal": len(batch.lineups),
        "even_chance": 1 / batch.players, "anchor": batch.bots[fit.anchor],
        "anchor_note": fit.anchor_note, "separated": fit.separated() if fit.deals else False,
        "stopped_early": stopped_early, "scale": "Elo: a difference of 400 is odds of 10 to 1",
        "method": "Bradley-Terry on pairwise results of each game's rank order; 95% percentile "
                  f"bootstrap over deals ({RESAMPLES} resamples), each side widened to the "
                  "profile likelihood's where that is wider",
        "ratings": entries,
    }


def _num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _seconds(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x * 1000:.3g} ms" if x < 1 else f"{x:.3g} s"


def _rating(x: float | None) -> str:
    return "-" if x is None else f"{x:+.0f}" if round(x) else "0"


LADDER_HEADER = ("bot", "rating", "95% interval", "games", "win rate (95%)", "median decision",
                 "mean decision")


def ladder_rows(summary: dict[str, Any]) -> list[list[str]]:
    """The ladder's table as text cells under `LADDER_HEADER`, best first."""
    rows = []
    for e in summary["ratings"]:
        low, high = e["ci95"]
        rate = "-" if e["win_rate"] is None else (
            f"{stats.pct(e['win_rate'])} ({stats.pct(e['win_ci95'][0])}-{stats.pct(e['win_ci95'][1])})")
        rows.append([e["bot"], _rating(e["rating"]), f"{_rating(low)} to {_rating(high)}",
                     str(e["games"]), rate, _seconds(e["decision_median"]),
                     _seconds(e["decision_mean"])])
    return rows


def ladder_lines(summary: dict[str, Any]) -> tuple[str, str]:
    """The line on how the ladder was played, and the line on its scale, below the table."""
    played = (f"**{summary['game']}**, {summary['players']} players: {summary['deals']} deals x "
              f"{summary['lineups_per_deal']} line-ups = {summary['games']} games from seed "
              f"{summary['seed']}; {summary['anchor_note']}"
              + ("; stopped early: the intervals separated" if summary["stopped_early"] else ""))
    scale = (f"Elo scale (400 points: odds of 10 to 1); even chance of a win "
             f"{stats.pct(summary['even_chance'])}; adjacent intervals "
             + ("all separate." if summary["separated"] else "do not all separate."))
    return played, scale


def ladder_markdown(summary: dict[str, Any]) -> str:
    """The ladder as a Markdown table, with a line on how it was played and fitted."""
    played, scale = ladder_lines(summary)
    lines = [played, "", "| " + " | ".join(LADDER_HEADER) + " |",
             "|---|---:|---|---:|---|---:|---:|"]
    lines += ["| " + " | ".join(row) + " |" for row in ladder_rows(summary)]
    return "\n".join([*lines, "", scale]) + "\n"


def plot_ladder(summary: dict[str, Any]) -> Any:
    """A figure of the ratings with their 95% intervals, best at the top."""
    from matplotlib.figure import Figure

    entries = [e for e in summary["ratings"] if e["rating"] is not None][::-1]
    fig = Figure(figsize=(7, 1.2 + 0.45 * len(entries)), layout="constrained")
    ax = fig.subplots()
    y = np.arange(len(entries))
    rating = np.array([e["rating"] for e in entries])
    low = np.array([e["ci95"][0] if e["ci95"][0] is not None else r for e, r in zip(entries, rating)])
    high = np.array([e["ci95"][1] if e["ci95"][1] is not None else r for e, r in zip(entries, rating)])
    ax.errorbar(rating, y, xerr=np.maximum([rating - low, high - rating], 0.0), fmt="o",
                color="#1f77b4", ecolor="black", capsize=4)
    ax.axvline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(y, [e["bot"] for e in entries])
    ax.set_xlabel(f"rating (Elo scale, {summary['anchor']} at 0), 95% interval")
    ax.set_title(f"{summary['game']}: {summary['games']} games, {summary['players']} players")
    return fig


def write_ladder(out: Path, summary: dict[str, Any], plot: bool = True) -> None:
    """Write ``ladder.json``, ``ladder.md`` and (with `plot`) ``ladder.png`` into `out`."""
    write_text(out / LADDER_JSON, json.dumps(summary, indent=1, allow_nan=False) + "\n")
    write_text(out / LADDER_MD, ladder_markdown(summary))
    if plot and summary["games"]:
        from geomsim.plotting import save

        save(plot_ladder(summary), out / LADDER_PNG)


# -- running ---------------------------------------------------------------------------------------


def run_ladder(batch: Batch, out: Path, pool: Pool, resume: bool = False,
               stop_when_separated: bool = False, every: int = 10,
               progress: bool | None = None) -> tuple[list[dict[str, Any]], Batch, bool]:
    """Play the ladder's batch into `out` (`geomsim.analysis.run_batch`): all its deals, or with
    `stop_when_separated` rounds of `every` deals until the intervals of every two bots adjacent
    in rating separate (at most the batch's deals). Returns the rows, the batch as played and
    whether it stopped early. `Interrupted` and `Stopped` keep the rows written, as for a batch."""
    on_disk = _deals_on_disk(batch, out) if resume else 0
    if not stop_when_separated:
        return run_batch(batch, out, pool, resume=resume, progress=progress), batch, False
    total = deals_played(batch)
    per_deal = len(batch.lineups)
    deals = min(max(every, on_disk), total)
    while True:
        played = Batch(**{**_fields(batch), "games": deals * per_deal})
        rows = run_batch(played, out, pool, resume=resume, progress=progress)
        resume = True
        if deals >= total:
            return rows, played, False
        if fit_ratings(batch.bots, pairwise_by_deal(played, rows), resamples=200).separated():
            return rows, played, True
        deals = min(deals + every, total)


def _deals_on_disk(batch: Batch, out: Path) -> int:
    """The deals the rows in `out` reach (the first round of a resumed ladder plays up to
    there), refused in one line when more than the batch holds."""
    seeds = [row["seed"] for row in read_rows(out / ROWS)]
    reached = 0 if not seeds else (max(seeds) - batch.seed) // len(batch.lineups) + 1
    if reached > deals_played(batch):
        raise InputError(f"{out / ROWS} holds games of {reached} deals, more than this ladder's "
                         f"{deals_played(batch)}: resume with -n {reached} or more, or start over "
                         "with --force")
    return reached


def _fields(batch: Batch) -> dict[str, Any]:
    return {name: getattr(batch, name) for name in batch.__dataclass_fields__}
