"""Tuning a game's options toward a designer's goal: `geomsim tune` (with optuna).

Objectives are small texts over the metrics `geomsim.compare` measures (Balance, Duration
Moves, ...): ``Balance>=0.95``, ``Duration Moves<=30``, ``Duration Moves in 20..30``. A
variant's score is its distance to satisfying them all: the sum of each objective's shortfall
relative to its bound (0 when every one holds). Each trial plays one batch (the same seeds in
every trial, so trials differ by their options only); the study lives in optuna's SQLite
storage in the output folder, so running the command again resumes it. The best variant is
played again on fresh seeds and each objective is judged there by its 95% interval: holds
(the interval inside), fails (outside) or undecided.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from geomsim import compare
from geomsim.batch import Batch
from geomsim.files import write_text
from geomsim.reading import DataError
from geomsim.rules import Game

Row = dict[str, Any]
STUDY = "study.db"


@dataclass(frozen=True)
class Objective:
    """A metric kept at or above `low` and at or below `high` (either may be None)."""

    metric: str
    low: float | None = None
    high: float | None = None

    def text(self) -> str:
        """The objective as it is written."""
        if self.low is not None and self.high is not None:
            return f"{self.metric} in {self.low:g}..{self.high:g}"
        return f"{self.metric}>={self.low:g}" if self.low is not None else f"{self.metric}<={self.high:g}"

    def distance(self, value: float | None) -> float:
        """How far `value` is from satisfying the objective, relative to the bound it misses
        (0 when it holds; 1 for a metric the games do not measure)."""
        if value is None or not math.isfinite(value):
            return 1.0
        if self.low is not None and value < self.low:
            return (self.low - value) / max(abs(self.low), 1e-9)
        if self.high is not None and value > self.high:
            return (value - self.high) / max(abs(self.high), 1e-9)
        return 0.0

    def verdict(self, ci95: Sequence[float] | None) -> str:
        """holds, fails or undecided, by where the 95% interval lies."""
        if ci95 is None:
            return "undecided"
        lo, hi = ci95
        low = -math.inf if self.low is None else self.low
        high = math.inf if self.high is None else self.high
        if low <= lo and hi <= high:
            return "holds"
        if hi < low or lo > high:
            return "fails"
        return "undecided"


_NUMBER = r"\s*(-?\d+(?:\.\d*)?(?:[eE]-?\d+)?)\s*"
_FORMS = [(re.compile(rf"^(.+?)\s+in{_NUMBER}\.\.{_NUMBER}$"), "in"),
          (re.compile(rf"^(.+?)\s*>={_NUMBER}$"), ">="), (re.compile(rf"^(.+?)\s*<={_NUMBER}$"), "<=")]


def parse_objective(text: str) -> Objective:
    """``METRIC>=X``, ``METRIC<=X`` or ``METRIC in LO..HI`` as an `Objective`; a `DataError`
    saying the forms otherwise."""
    for form, kind in _FORMS:
        if m := form.match(text.strip()):
            metric = m.group(1).strip()
            if kind == "in":
                low, high = float(m.group(2)), float(m.group(3))
                if low > high:
                    raise DataError("--objective", f"{text[:60]!r}: LO must not exceed HI")
                return Objective(metric, low, high)
            return Objective(metric, float(m.group(2)), None) if kind == ">=" else \
                Objective(metric, None, float(m.group(2)))
    raise DataError("--objective", f"expected 'METRIC>=X', 'METRIC<=X' or 'METRIC in LO..HI', "
                    f"got {text[:60]!r}")


@dataclass(frozen=True)
class Search:
    """One option searched: a numeric range, or (for a bool or an option of listed values) its
    values."""

    name: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()


def parse_search(game: Game, text: str) -> Search:
    """``NAME=LO:HI`` (a number option, within its allowed range) or ``NAME`` (every value of a
    bool or listed option); a `DataError` naming the option otherwise."""
    name, sep, span = text.partition("=")
    name = name.strip()
    if name not in game.options:
        raise DataError("--search", f"no option {name[:40]!r} (options: {', '.join(game.options)})")
    option = game.options[name]
    if not sep:
        values = option.choices or ((False, True) if option.type is bool else ())
        if not values:
            raise DataError(f"--search {name}", f"give a range NAME=LO:HI ({option.allowed()})")
        return Search(name, choices=tuple(values))
    low_text, colon, high_text = span.partition(":")
    if option.type not in (int, float) or not colon:
        raise DataError(f"--search {name}", f"expected {name}=LO:HI for a number option, or "
                        f"{name} alone for a listed one ({option.allowed()})")
    low, high = option.parse(low_text), option.parse(high_text)
    assert isinstance(low, (int, float)) and isinstance(high, (int, float))
    if low > high:
        raise DataError(f"--search {name}", "LO must not exceed HI")
    return Search(name, float(low), float(high))


def _grid(game: Game, searches: Sequence[Search]) -> dict[str, list[Any]] | None:
    """Every value of each searched option when all are discrete (whole numbers or listed)."""
    grid: dict[str, list[Any]] = {}
    for s in searches:
        if s.choices:
            grid[s.name] = list(s.choices)
        elif game.options[s.name].type is int:
            assert s.low is not None and s.high is not None
            grid[s.name] = list(range(int(s.low), int(s.high) + 1))
        else:
            return None
    return grid


def _suggest(trial: Any, game: Game, s: Search) -> Any:
    if s.choices:
        return trial.suggest_categorical(s.name, list(s.choices))
    if game.options[s.name].type is int:
        return trial.suggest_int(s.name, int(s.low or 0), int(s.high or 0))
    return trial.suggest_float(s.name, s.low, s.high)


# -- measuring a variant -----------------------------------------------------------------------------


def measure(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Each metric of `rows` (`geomsim.compare.measures`, and Balance): value and 95% interval."""
    found = {"Balance": compare.balance_estimate(rows)}
    for m in compare.measures(rows):
        values = list(compare.values_by_seed(rows, m.per_game).values())
        if values:
            found[m.name] = compare.estimate(m.kind, values)
    return found


def score(objectives: Sequence[Objective], found: Mapping[str, Mapping[str, Any]]) -> float:
    """The distance of a variant's metrics to satisfying every objective (0: all hold)."""
    return sum(o.distance(found.get(o.metric, {}).get("value")) for o in objectives)


def check_metrics(objectives: Sequence[Objective], found: Mapping[str, Any]) -> None:
    """A `DataError` for an objective on a metric the games do not measure."""
    for o in objectives:
        if o.metric not in found:
            raise DataError("--objective", f"no metric {o.metric!r} (metrics: {', '.join(found)})")


Play = Callable[[Batch, Path], list[Row]]


def tune(game: Game, batch: Batch, objectives: Sequence[Objective], searches: Sequence[Search],
         trials: int, out: Path, play: Play, sampler_seed: int = 0) -> Any:
    """Run the study in ``out/study.db`` until it has `trials` complete trials (a study found
    there is resumed); each trial plays `batch` with the trial's options by `play(batch, folder)`
    into ``out/trials/N``. Returns the optuna study."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    grid = _grid(game, searches)
    small = grid is not None and math.prod(len(v) for v in grid.values()) <= trials
    # A small discrete space is searched exhaustively: nothing is left to chance there.
    sampler = (optuna.samplers.GridSampler(grid, seed=sampler_seed) if small and grid
               else optuna.samplers.TPESampler(seed=sampler_seed))
    study = optuna.create_study(study_name="tune", storage=f"sqlite:///{out / STUDY}",
                                sampler=sampler, direction="minimize", load_if_exists=True)
    study.set_user_attr("objectives", [o.text() for o in objectives])

    def objective(trial: Any) -> float:
        options = {**batch.options, **{s.name: _suggest(trial, game, s) for s in searches}}
        rows = play(replace(batch, options=options), out / "trials" / str(trial.number))
        found = measure(rows)
        check_metrics(objectives, found)
        trial.set_user_attr("options", options)
        trial.set_user_attr("metrics", found)
        return score(objectives, found)

    done = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    left = trials - done
    if left > 0:
        study.optimize(objective, n_trials=left, catch=())
    return study


def best_trials(study: Any, k: int = 5) -> list[Any]:
    """The `k` complete trials of lowest score (the earlier first among equals)."""
    import optuna

    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    return sorted(done, key=lambda t: (t.value, t.number))[:k]


def remeasure(batch: Batch, options: Mapping[str, Any], play: Play, out: Path) -> dict[str, Any]:
    """The best variant played again on fresh seeds (those after the trials' own), measured."""
    fresh = replace(batch, options=dict(options), seed=batch.seed + batch.games)
    return measure(play(fresh, out / "best-fresh-seeds"))


def report(game: str, objectives: Sequence[Objective], study: Any,
           fresh: Mapping[str, Any] | None, k: int = 5) -> dict[str, Any]:
    """The study's best variants with their metrics, and each objective judged on fresh seeds."""
    best = best_trials(study, k)
    return {"game": game, "objectives": [o.text() for o in objectives],
            "trials": len(study.trials),
            "best": [{"trial": t.number, "score": t.value, "options": t.user_attrs["options"],
                      "metrics": {o.metric: t.user_attrs["metrics"].get(o.metric)
                                  for o in objectives}} for t in best],
            "fresh": None if fresh is None else {
                "metrics": {o.metric: fresh.get(o.metric) for o in objectives},
                "verdicts": {o.text(): o.verdict((fresh.get(o.metric) or {}).get("ci95"))
                             for o in objectives}}}


def _cell(e: Mapping[str, Any] | None) -> str:
    if not e or e.get("value") is None:
        return "-"
    ci = e.get("ci95")
    return f"{e['value']:.3g}" + (f" ({ci[0]:.3g}–{ci[1]:.3g})" if ci else "")


def report_markdown(found: Mapping[str, Any]) -> str:
    """The report as Markdown: the best variants' table, then the fresh-seed verdicts."""
    objectives = found["objectives"]
    metrics = list(dict.fromkeys(parse_objective(o).metric for o in objectives))
    head = ["trial", "options", "distance", *metrics]
    lines = [f"# {found['game']}: tuning toward {'; '.join(objectives)}", "",
             f"{found['trials']} trials; distance 0 means every objective holds on the trial's "
             "games (estimates with 95% intervals).", "",
             "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for b in found["best"]:
        opts = ", ".join(f"{k}={v}" for k, v in b["options"].items())
        lines.append(f"| {b['trial']} | {opts} | {b['score']:.3g} | "
                     + " | ".join(_cell(b["metrics"].get(m)) for m in metrics) + " |")
    if found["fresh"] is not None:
        lines += ["", "## The best variant on fresh seeds", "",
                  "| objective | estimate (95% interval) | verdict |", "|---|---|---|"]
        for o in objectives:
            metric = parse_objective(o).metric
            lines.append(f"| {o} | {_cell(found['fresh']['metrics'].get(metric))} | "
                         f"{found['fresh']['verdicts'][o]} |")
    return "\n".join(lines) + "\n"


def write_report(out: Path, found: Mapping[str, Any]) -> None:
    """Write ``tune.json`` and ``tune.md`` into `out`."""
    write_text(out / "tune.json", json.dumps(found, indent=1) + "\n")
    write_text(out / "tune.md", report_markdown(found))
