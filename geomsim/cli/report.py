"""`geomsim report`: a batch's report in one file (`geomsim.report`)."""

from __future__ import annotations

from pathlib import Path

import click

from geomsim.cli.common import OutputPath, command
from geomsim.report import FORMATS, write_report


@command("report")
@click.argument("results", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("-o", "--output", type=OutputPath(FORMATS), default=None,
              help="The report file, .html or .pdf (default: RESULTS/report.html).")
@click.option("--no-moments", is_flag=True,
              help="Do not replay and draw a typical and the longest game.")
def report_command(results: Path, output: Path | None, no_moments: bool) -> None:
    """Write one self-contained report (HTML or PDF) of the batch in RESULTS: the command,
    win rates, scores, lengths, metrics and drawn moments."""
    path = write_report(results, output or results / "report.html", moments=not no_moments)
    click.echo(f"wrote {path}")
