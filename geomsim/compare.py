"""Variants side by side: `geomsim compare`.

The same bots play the same seeds under each variant of a game's rules (an `Arm`: a label and
the options it sets), one sub-batch folder per arm (`geomsim.analysis.run_batch`, so local
processes, Dask and ``--resume`` work as for ``analyze``). Each metric is measured per game
(`per_game`), so two arms compare seed by seed: a paired t-test (`geomsim.stats.paired_test`)
on the per-seed differences to the first arm, Balance by a paired bootstrap over seeds, and
Holm's correction over every test of the table.

Files: ``OUT/<arm>/`` (each arm's batch); `geomsim.compare_report` writes ``compare.json``,
``compare.md``, ``compare.png`` and ``report.html``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from geomsim import stats
from geomsim.batch import Batch, kind_of
from geomsim.metrics import balance_of, balance_of_columns
from geomsim.reading import DataError
from geomsim.rules import Game

Row = dict[str, Any]
PerGame = Callable[[Row], float | None]


@dataclass(frozen=True)
class Arm:
    """One variant compared: its label (a folder name too) and the options it sets."""

    label: str
    options: Mapping[str, Any] = field(default_factory=dict)
    value: float | None = None  # the swept option's value, for plots against it


# -- what is compared ------------------------------------------------------------------------------


def parse_sweep(game: Game, text: str) -> tuple[str, list[Any]]:
    """``NAME=LO:HI:STEP`` (HI included; STEP 1 when left out) as the option's name and values,
    each checked by the option; a `DataError` naming what is wrong otherwise."""
    name, sep, span = text.partition("=")
    name = name.strip()
    if not sep or name not in game.options:
        raise DataError("--sweep", f"expected NAME=LO:HI[:STEP] with NAME one of "
                        f"{', '.join(game.options) or 'none'}, got {text[:60]!r}")
    option = game.options[name]
    parts = span.split(":")
    try:
        low, high, step = (float(p) for p in (parts + ["1"])[:3])
    except ValueError:
        low = high = step = math.nan
    if len(parts) not in (2, 3):
        low = math.nan
    if not (math.isfinite(low) and math.isfinite(high) and math.isfinite(step) and step > 0
            and high >= low):
        raise DataError(f"--sweep {name}", f"expected LO:HI[:STEP] numbers, LO <= HI, STEP > 0, "
                        f"got {span[:40]!r}")
    count = int(math.floor((high - low) / step + 1e-9)) + 1
    if count > MAX_ARMS:
        raise DataError(f"--sweep {name}", f"{count} values, more than {MAX_ARMS}")
    values = [low + i * step for i in range(count)]
    return name, [option.parse(_number(v)) for v in values]


MAX_ARMS = 50


def _number(x: float) -> str:
    return str(int(round(x))) if abs(x - round(x)) < 1e-9 else repr(round(x, 9))


def arms_of(game: Game, variants: Sequence[str] = (), option_sets: Sequence[str] = (),
            sweep: str | None = None, base: Mapping[str, Any] | None = None) -> list[Arm]:
    """The arms the command line names: each ``--variant``, each ``--options 'A=1,B=2'`` set,
    and each value of a ``--sweep``, in that order, over the options `base` sets for all.
    Two arms with the same options in force are refused (the comparison would be empty)."""
    from geomsim.options import chosen, resolve

    arms = [Arm(v, {**(base or {}), **chosen(game.options, game.variants, v, ())}) for v in variants]
    for text in option_sets:
        texts = [t for t in text.split(",") if t.strip()]
        arms.append(Arm(text.replace(" ", ""), {**(base or {}),
                                               **chosen(game.options, game.variants, None, texts)}))
    if sweep is not None:
        name, values = parse_sweep(game, sweep)
        arms += [Arm(f"{name}={value_text(v)}", {**(base or {}), name: v}, float(v)) for v in values]
    if len(arms) < 2:
        raise DataError("compare", "name at least two variants (--variant, --options or --sweep)")
    seen: dict[str, str] = {}
    for arm in arms:
        key = json.dumps(resolve(game.options, arm.options), sort_keys=True)
        if key in seen:
            raise DataError("compare", f"{arm.label} plays the same rules as {seen[key]}")
        seen[key] = arm.label
    return arms


def value_text(value: Any) -> str:
    """An option value as the user writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return _number(value) if isinstance(value, (int, float)) else str(value)


def folder(arm: Arm) -> str:
    """The arm's sub-batch folder name: its label with only safe characters."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", arm.label)[:80] or "arm"


def arm_batches(batch: Batch, arms: Sequence[Arm]) -> list[Batch]:
    """The batch of each arm: `batch` with the arm's options, nothing else changed (so the arms
    differ in their options only and pair seed by seed)."""
    return [replace(batch, options=dict(arm.options)) for arm in arms]


# -- one value per game ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Measure:
    """A metric measured once per game: a share (0..1, Wilson interval) or a mean (t interval)."""

    name: str
    kind: str  # "share" or "mean"
    per_game: PerGame


def measures(rows: Sequence[Row] = ()) -> list[Measure]:
    """The per-game metrics compared: `geomsim.metrics.METRICS`, then each numeric game figure
    of `rows` (its mean)."""
    from geomsim import metrics

    found = [Measure(m.name, m.kind, m.per_game) for m in metrics.METRICS]
    names = sorted({k for r in rows for k, v in r.get("figures", {}).items()
                    if isinstance(v, (int, float)) and not isinstance(v, bool)})
    found += [Measure(n, "mean", _figure(n)) for n in names if n not in {m.name for m in found}]
    return found


def _figure(name: str) -> PerGame:
    def value(row: Row) -> float | None:
        v = row.get("figures", {}).get(name)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    return value


def values_by_seed(rows: Sequence[Row], per_game: PerGame) -> dict[int, float]:
    """A metric's value in each game of `rows` that has one, by seed."""
    return {r["seed"]: v for r in rows if (v := per_game(r)) is not None}


def estimate(kind: str, values: Sequence[float]) -> dict[str, Any]:
    """A metric's estimate over games with its 95% interval: Wilson's for a share, Student's
    t for a mean."""
    n = len(values)
    if not n:
        return {"n": 0, "value": None, "ci95": None}
    if kind == "share":
        return {"n": n, "value": sum(values) / n, "ci95": list(stats.wilson(sum(values), n))}
    test = stats.paired_test(values)
    ci = [float(x) for x in test["ci95"]] if math.isfinite(test["se"]) else None
    return {"n": n, "value": test["mean"], "ci95": ci}


# -- Balance: a batch statistic ---------------------------------------------------------------------


def position_wins(row: Row) -> list[float]:
    """A game's partial wins by rank (Ludii's, `geomsim.stats.partial_wins`) by turn position
    where the row records its turn order, else by player number."""
    shares = stats.partial_wins(row)
    return stats.turn_values(row, shares) or shares


def balance_estimate(rows: Sequence[Row]) -> dict[str, Any]:
    """Ludii's Balance (1 - the largest gap between two turn positions' mean partial wins) with
    its 95% interval (`metrics.balance_of_columns`)."""
    columns = np.array([position_wins(r) for r in rows], dtype=float).T
    if not columns.size:
        return {"n": 0, "value": None, "ci95": None}
    found = balance_of_columns(columns)
    return {"n": len(rows), "value": found["value"], "ci95": found["ci95"]}


def balance_difference(first: Sequence[Row], other: Sequence[Row]) -> dict[str, Any]:
    """Balance of `other` minus Balance of `first` over the seeds both played: a paired
    bootstrap (the same resampled seeds in both), its interval and two-sided p-value."""
    a = {r["seed"]: position_wins(r) for r in first}
    b = {r["seed"]: position_wins(r) for r in other}
    seeds = sorted(set(a) & set(b))
    if len(seeds) < 2:
        return {"n": len(seeds), "mean": None, "ci95": None, "p": 1.0}
    k = len(a[seeds[0]])
    columns = np.array([a[s] + b[s] for s in seeds], dtype=float).T

    def diff(means: np.ndarray) -> np.ndarray:
        return np.asarray(balance_of(means[:, k:]) - balance_of(means[:, :k]))

    mean = float(diff(columns.mean(axis=1)[None, :])[0])
    reps = stats.bootstrap_replicates(columns, diff)
    low, high = np.percentile(reps, [2.5, 97.5])
    p = min(1.0, 2 * min(float(np.mean(reps <= 0)), float(np.mean(reps >= 0))))
    return {"n": len(seeds), "mean": mean, "ci95": [float(low), float(high)], "p": p}


# -- the table ---------------------------------------------------------------------------------------


def paired_difference(first: Mapping[int, float], other: Mapping[int, float]) -> dict[str, Any]:
    """`other` minus `first` over the seeds both have a value for: mean, 95% interval and the
    two-sided p-value of a paired t-test."""
    seeds = sorted(set(first) & set(other))
    test = stats.paired_test([other[s] - first[s] for s in seeds])
    mean = test["mean"] if seeds else None
    p = min(1.0, 2 * min(test["p_above"], test["p_below"]))
    ci = [float(x) for x in test["ci95"]] if math.isfinite(test["se"]) else None
    return {"n": len(seeds), "mean": mean, "ci95": ci, "p": p}


def comparison(arms: Sequence[Arm], rows: Sequence[Sequence[Row]]) -> dict[str, Any]:
    """The side-by-side table of every metric under each arm, with the difference of each arm
    to the first (interval, p-value, Holm-adjusted p-value over the whole table)."""
    every = [r for arm_rows in rows for r in arm_rows]
    kinds = {kind_of(r)[0] for r in every}  # only the options may differ between arms
    if len(kinds) > 1:
        raise ValueError(f"the arms' rows are of incompatible batches: {'; '.join(sorted(kinds))}")
    table: list[dict[str, Any]] = []
    for m in measures(every):
        by_arm = [values_by_seed(r, m.per_game) for r in rows]
        if not any(by_arm):
            continue
        table.append({"metric": m.name, "kind": m.kind,
                      "arms": [estimate(m.kind, list(v.values())) for v in by_arm],
                      "differences": [None] + [paired_difference(by_arm[0], v) for v in by_arm[1:]]})
    table.insert(0, {"metric": "Balance", "kind": "share",
                     "arms": [balance_estimate(r) for r in rows],
                     "differences": [None] + [balance_difference(rows[0], r) for r in rows[1:]]})
    tests = [d for line in table for d in line["differences"] if d is not None and d["n"] >= 2]
    for d, adjusted in zip(tests, stats.holm([d["p"] for d in tests])):
        d["p_holm"] = adjusted
    return {"arms": [{"label": a.label, "options": dict(a.options), "value": a.value,
                      "games": len(r)} for a, r in zip(arms, rows)],
            "metrics": table}


# -- in words and pictures ---------------------------------------------------------------------------


def _num(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "-"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def estimate_cell(e: Mapping[str, Any]) -> str:
    """An estimate in words: value (95% interval)."""
    if e["value"] is None:
        return "-"
    if e["ci95"] is None:
        return f"{_num(e['value'])} (no interval)"
    return f"{_num(e['value'])} ({_num(e['ci95'][0])}–{_num(e['ci95'][1])})"


def difference_cell(d: Mapping[str, Any] | None) -> str:
    """A difference in words: mean, 95% interval, Holm p (* below 0.05)."""
    if d is None or d["mean"] is None:
        return "-"
    ci = f"{_num(d['ci95'][0])}–{_num(d['ci95'][1])}" if d["ci95"] else "no interval"
    holm = d.get("p_holm", d["p"])
    return f"{d['mean']:+.3g} ({ci}), p={holm:.2g}{' *' if holm < 0.05 else ''}"


def comparison_markdown(game: str, found: Mapping[str, Any], command: str = "") -> str:
    """The comparison as Markdown: the arms, then one line per metric (each arm's estimate with
    its 95% interval, each difference to the first arm with its interval and Holm p)."""
    arms = found["arms"]
    lines = [f"# {game}: {len(arms)} variants compared on the same seeds", ""]
    if command:
        lines += [f"Made by `{command}`", ""]
    lines += [f"- **{a['label']}**: {a['games']} games, options "
              + (", ".join(f"{k}={value_text(v)}" for k, v in a["options"].items()) or "official")
              for a in arms]
    first = arms[0]["label"]
    head = ["metric", *(a["label"] for a in arms), *(f"{a['label']} − {first}" for a in arms[1:])]
    lines += ["", "Each estimate with its 95% interval; each difference to the first variant "
              "over the seeds both played, with its 95% interval and p-value (paired t-test; "
              "Balance: paired bootstrap) after Holm's correction over the table (* below 0.05).",
              "", "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for m in found["metrics"]:
        cells = [estimate_cell(e) for e in m["arms"]] + [difference_cell(d)
                                                          for d in m["differences"][1:]]
        lines.append(f"| {m['metric']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_comparison(found: Mapping[str, Any], metrics: Sequence[str] = ()) -> Any:
    """One panel per metric (all, or those named): each arm's estimate with its 95% interval,
    against the swept option's value when the arms are a sweep, else by label."""
    from matplotlib.figure import Figure

    chosen = [m for m in found["metrics"] if not metrics or m["metric"] in metrics]
    arms = found["arms"]
    swept = all(a["value"] is not None for a in arms)
    cols = min(3, max(1, len(chosen)))
    rows = max(1, math.ceil(len(chosen) / cols))
    fig = Figure(figsize=(4.2 * cols, 3.2 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False).ravel())
    x = np.array([a["value"] for a in arms], dtype=float) if swept else np.arange(len(arms))
    for ax, m in zip(axes, chosen):
        y = np.array([np.nan if e["value"] is None else e["value"] for e in m["arms"]], dtype=float)
        low = np.array([np.nan if e["ci95"] is None else e["ci95"][0] for e in m["arms"]], dtype=float)
        high = np.array([np.nan if e["ci95"] is None else e["ci95"][1] for e in m["arms"]], dtype=float)
        ax.errorbar(x, y, yerr=np.maximum(np.nan_to_num([y - low, high - y]), 0.0), fmt="o-",
                    capsize=4)
        ax.set_title(m["metric"], fontsize=10)
        if swept:
            ax.set_xlabel(arms[0]["label"].split("=")[0])
        else:
            ax.set_xticks(x, [a["label"] for a in arms], fontsize=8, rotation=15)
    for ax in axes[len(chosen):]:
        ax.set_visible(False)
    fig.suptitle("each variant's estimate with its 95% interval", fontsize=10)
    return fig
