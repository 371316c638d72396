"""The files of a comparison (`geomsim compare`): ``compare.json``, ``compare.md``,
``compare.png`` and ``report.html`` (the report's style and tables, `geomsim.report`).

Apart from `geomsim.compare`, which scenario claims use: the report reaches the batch engine,
which reaches the scenarios.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from geomsim.compare import (comparison_markdown, difference_cell, estimate_cell, plot_comparison,
                             value_text)
from geomsim.errors import InputError
from geomsim.files import write_text


def comparison_html(game: str, found: Mapping[str, Any], png: bytes | None, command: str = "") -> str:
    """The comparison as one self-contained HTML page (the report's style and table), with the
    plot `png` when given."""
    import base64
    import html

    from geomsim.report import STYLE, _table

    arms = found["arms"]
    first = arms[0]["label"]
    head = ["metric", *(a["label"] for a in arms), *(f"{a['label']} − {first}" for a in arms[1:])]
    body = [[m["metric"], *(estimate_cell(e) for e in m["arms"]),
             *(difference_cell(d) for d in m["differences"][1:])] for m in found["metrics"]]
    options = [[a["label"], a["games"], ", ".join(f"{k}={value_text(v)}" for k, v in a["options"].items())
                or "official"] for a in arms]
    title = f"{game}: {len(arms)} variants compared"
    return "\n".join([
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
        f"<p>Made by <code>{html.escape(command)}</code></p>" if command else "",
        "<h2>Variants</h2>", _table(["variant", "games", "options"], options),
        "<h2>Metrics</h2><p>Estimates with 95% intervals; differences to the first variant on "
        "the same seeds with 95% intervals and Holm-corrected p-values (* below 0.05).</p>",
        _table(head, body),
        "" if png is None else
        f"<figure><img src='data:image/png;base64,{base64.b64encode(png).decode('ascii')}' "
        "alt='metrics by variant'><figcaption>each variant's estimate with its 95% interval"
        "</figcaption></figure>", "</body></html>"])


def write_comparison(out: Path, game: str, found: Mapping[str, Any], command: str = "",
                     metrics: Sequence[str] = (), plot: bool = True) -> None:
    """Write ``compare.json``, ``compare.md``, ``report.html``, ``report.pdf`` and (with `plot`)
    ``compare.png`` into `out`."""
    from geomsim.files import read_bytes
    from geomsim.plotting import save

    unknown = set(metrics) - {m["metric"] for m in found["metrics"]}
    if unknown:
        raise InputError(f"--metric: no metric {sorted(unknown)[0]!r} (metrics: "
                         f"{', '.join(m['metric'] for m in found['metrics'])})")
    write_text(out / "compare.json", json.dumps({"game": game, **found}, indent=1,
                                                default=_json_safe) + "\n")
    write_text(out / "compare.md", comparison_markdown(game, found, command))
    png = None
    if plot:
        save(plot_comparison(found, metrics), out / "compare.png")
        png = read_bytes(out / "compare.png", 1 << 26)
    write_text(out / "report.html", comparison_html(game, found, png, command))
    write_comparison_pdf(out / "report.pdf", game, found, command,
                         plot_comparison(found, metrics) if plot else None)


def write_comparison_pdf(path: Path, game: str, found: Mapping[str, Any], command: str,
                         figure: Any = None) -> None:
    """The comparison as a PDF: the variants and the metrics as tables, then the plot."""
    from matplotlib.backends.backend_pdf import PdfPages

    from geomsim.files import atomic_path
    from geomsim.report import _Block, block_pages, pdf_table

    arms = found["arms"]
    first = arms[0]["label"]
    head = ["metric", *(a["label"] for a in arms), *(f"{a['label']} - {first}" for a in arms[1:])]
    body = [[m["metric"], *(estimate_cell(e) for e in m["arms"]),
             *(difference_cell(d) for d in m["differences"][1:])] for m in found["metrics"]]
    options = [[a["label"], a["games"], ", ".join(f"{k}={value_text(v)}"
                                                  for k, v in a["options"].items()) or "official"]
               for a in arms]
    blocks = [_Block("Made by", text=command or "(not known)"),
              pdf_table("Variants", ["variant", "games", "options"], options),
              pdf_table("Metrics (95% intervals; differences on the same seeds, Holm p)", head, body)]
    with atomic_path(path) as tmp, PdfPages(tmp) as pdf:
        for page in block_pages(f"{game}: {len(arms)} variants compared", blocks):
            pdf.savefig(page)
        if figure is not None:
            pdf.savefig(figure)


def _json_safe(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else str(value)
