"""`geomsim report` and `analyze --report`: one self-contained HTML file (it parses, every image
is embedded as a data URI, nothing is fetched) or a PDF with pages; the command that made the
batch is in it."""

from __future__ import annotations

import base64
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from geomsim import cli
from geomsim.errors import InputError
from geomsim.report import batch_command, write_report


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        for key in ("href", "src"):
            if key in attrs and tag != "img":
                self.links.append(attrs[key])
        if tag not in ("img", "meta", "br"):
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A small Cibola batch written by analyze --report."""
    out = tmp_path_factory.mktemp("batch")
    assert cli.main(["analyze", "cibola", "-p", "3", "-b", "greedy,random", "-n", "6",
                     "--workers", "1", "-o", str(out), "--report"]) == 0
    return out


def test_analyze_report_writes_a_self_contained_page(results):
    page = _Page()
    page.feed((results / "report.html").read_text(encoding="utf-8"))
    page.close()
    assert not page.open and not page.links
    # summary, metrics, and the final positions of a typical and of the longest game
    assert len(page.images) == 4
    for src in page.images:
        head, _, data = src.partition(",")
        assert head == "data:image/png;base64"
        assert base64.b64decode(data, validate=True).startswith(b"\x89PNG")
    text = " ".join(page.text)
    command = batch_command(json.loads((results / "batch.json").read_text()))
    assert command in text and "Balance" in text and "Lead Change" in text
    assert (results / "metrics.json").exists() and (results / "metrics.md").exists()


def test_report_command_writes_a_pdf_with_pages(results, tmp_path):
    out = tmp_path / "report.pdf"
    assert cli.main(["report", str(results), "-o", str(out), "--no-moments"]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    # a text page and two figure pages (the moments are left out)
    assert len(re.findall(rb"/Type\s*/Page\b", data)) == 3


def test_plots_take_win_rates_of_zero_and_one():
    """Wilson's bounds of a rate of 1 may lie a rounding error below it: no negative error bar."""
    from geomsim.analysis import plot_summary
    from geomsim.stats import summarize
    from geomsim.report import plot_metrics
    from geomsim.metrics import metrics

    rows = [{"game": "toy", "seed": s, "players": 2, "bots": ["a", "b"], "scores": [1.0, 0.0],
             "winners": [0], "winner": 0, "length": 5, "finished": True, "first": [0],
             "figures": {"ending": "deck"}, "seconds": 0.1,
             "trace": {"leaders": [[0, [0, 1]], [1, [0]]], "choices": [2] * 5, "figures": {}}}
            for s in range(7)]
    plot_summary(summarize(rows), rows)
    plot_metrics(metrics(rows), rows)


def test_batch_command_replays_the_batch_record():
    record = {"game": "anasazi", "players": 4, "bots": ["planner", "greedy", "greedy", "greedy"],
              "seed": 1000, "games": 200, "rotate": True, "start_name": None,
              "max_steps": 100_000, "compiled": False}
    assert batch_command(record) == ("geomsim analyze anasazi --players 4 --bots "
                                     "planner,greedy,greedy,greedy --games 200 --seed 1000")
    assert batch_command({**record, "rotate": False, "max_steps": 50}).endswith(
        "--fixed-seats --max-steps 50")


def test_report_refuses_other_formats_and_empty_folders(results, tmp_path, capsys):
    assert cli.main(["report", str(results), "-o", str(tmp_path / "r.docx")]) == 2
    assert "r.docx: give a name ending in .html, .pdf" in capsys.readouterr().err
    with pytest.raises(InputError, match="the report is written as .html or .pdf, not .docx"):
        write_report(results, tmp_path / "r.docx")
    assert cli.main(["report", str(tmp_path), "-o", str(tmp_path / "r.html")]) == 2
    assert "no games to report" in capsys.readouterr().err


@pytest.mark.parametrize("text, shown", [("[1, 2]", "[1, 2]"), ('"batch"', "'batch'")])
def test_a_batch_record_that_is_not_a_mapping_is_named(results, tmp_path, capsys, text, shown):
    copy = tmp_path / "batch"
    shutil.copytree(results, copy)
    (copy / "batch.json").write_text(text)
    assert cli.main(["report", str(copy), "-o", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"geomsim: error: {copy / 'batch.json'}: expected the batch record (a mapping), got {shown}")
