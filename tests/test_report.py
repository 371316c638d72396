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

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from geomsim import cli
from geomsim.errors import InputError
from geomsim.report import batch_command, build_report, table_pages, write_report


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
            # a link within the page (a metric's definition) keeps it self-contained
            if key in attrs and tag != "img" and not attrs[key].startswith("#"):
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


def drawn_text_overlaps(fig) -> list[tuple[str, str]]:
    """The pairs of texts that overlap where `fig` is rendered (at the report's 100 dpi): the
    boxes matplotlib's renderer gives the Text artists it draws (`get_window_extent`), so tick
    labels outside the view, which are never drawn, are left out."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    drawn, draw = [], Text.draw

    def record(self, renderer):
        draw(self, renderer)
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)

    Text.draw = record
    try:
        canvas = FigureCanvasAgg(fig)
        fig.set_dpi(100)
        fig.draw_without_rendering()  # lays out and draws every artist, paints no pixel
    finally:
        Text.draw = draw
    renderer = canvas.get_renderer()
    boxes = np.array([t.get_window_extent(renderer).extents for t in drawn]).reshape(-1, 4)
    wide = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    tall = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    # more than half a pixel each way: texts that merely touch do not count
    i, j = np.nonzero(np.triu((wide > 0.5) & (tall > 0.5), k=1))
    return [(drawn[a].get_text(), drawn[b].get_text()) for a, b in zip(i, j)]


def test_the_overlap_check_sees_overlapping_texts():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4, 3))
    ax = fig.subplots()
    ax.set_title("left title", loc="left")
    ax.set_title("a centred title over it")
    assert drawn_text_overlaps(fig) == [("a centred title over it", "left title")]
    ax.set_title("")
    assert drawn_text_overlaps(fig) == []


@pytest.fixture(scope="module", params=["cibola", "anasazi", "aztekz"])
def any_results(request, results, tmp_path_factory) -> Path:
    """A batch of each game: the Cibola batch above, two random games of the others."""
    if request.param == "cibola":
        return results
    out = tmp_path_factory.mktemp(request.param)
    assert cli.main(["analyze", request.param, "-p", "3", "-n", "2", "--workers", "1",
                     "--no-plot", "-o", str(out)]) == 0
    return out


def test_no_text_of_a_report_overlaps_another(any_results):
    """Every figure of the report, the PDF's table pages, the plots and the final positions
    (whose game titles the report's own line once covered in Cibola), as rendered."""
    report = build_report(any_results)
    assert report.moments and all(m.figure is not None for m in report.moments)
    figures = [*table_pages(report), *(f for _, f in report.figures),
               *(m.figure for m in report.moments)]
    assert {i: drawn_text_overlaps(f) for i, f in enumerate(figures)} == {
        i: [] for i in range(len(figures))}


def _ticks(axis) -> np.ndarray:
    low, high = sorted(axis.get_view_interval())
    ticks = axis.get_majorticklocs()
    return ticks[(ticks >= low) & (ticks <= high)]


def test_counts_are_ticked_at_whole_numbers(results):
    """Six games: game lengths and counts of games (a few each) are ticked at whole numbers,
    not at 63.5 actions or 0.5 games."""
    report = build_report(results, moments=False)
    (_, summary), (_, found) = report.figures
    for fig in (summary, found):
        FigureCanvasAgg(fig).draw()
    lengths = summary.axes[3]
    _, changes, taken = found.axes
    for axis in (lengths.xaxis, lengths.yaxis, changes.xaxis, changes.yaxis, taken.yaxis):
        ticks = _ticks(axis)
        assert len(ticks) >= 2 and np.all(ticks == np.round(ticks)), (axis.axes.get_title(), ticks)


def test_the_pdf_begins_with_tables_with_column_headers(results):
    (page,) = table_pages(build_report(results, moments=False))
    tables = [t for ax in page.axes for t in ax.tables]
    headers = [[c.get_text().get_text() for (r, _), c in sorted(t.get_celld().items()) if r == 0]
               for t in tables]
    assert headers == [["bot", "games", "wins", "win rate", "95% CI", "mean score"],
                       ["turn", "games", "wins", "win rate", "95% CI", "mean score"],
                       ["player", "games", "wins", "win rate", "95% CI", "mean score"],
                       ["metric", "value"]]
    cells = {c.get_text().get_text() for t in tables for c in t.get_celld().values()}
    assert {"greedy", "random", "Balance", "Lead Change"} <= cells


def test_long_metric_tables_go_on_to_another_page(results):
    report = build_report(results, moments=False)
    report.metrics = {**report.metrics, "choice figures": {f"figure {i}": {"n": 1, "mean": i,
        "median": i, "min": i, "max": i, "ci95": [i, i]} for i in range(50)}}
    pages = table_pages(report)
    assert len(pages) == 2
    assert any(t.get_text() == "Metrics (continued)" for t in pages[1].texts)
    assert not drawn_text_overlaps(pages[0]) and not drawn_text_overlaps(pages[1])


def test_each_metric_name_links_to_its_definition(results, tmp_path):
    """A colleague reading the report finds what each metric means in the report itself."""
    import re as _re

    from geomsim.metrics import DEFINITIONS

    page = write_report(results, tmp_path / "r.html", moments=False).read_text()
    links = _re.findall(r"<a href='#(metric-[a-z0-9-]+)' title='[^']+'>([^<]+)</a>", page)
    assert {"Balance", "Completion", "Drawishness", "Lead Change"} <= {name for _, name in links}
    for anchor, name in links:
        assert f"<dt id='{anchor}'>{name}</dt>" in page
        assert name in DEFINITIONS


@pytest.fixture(scope="module")
def ladder_results(tmp_path_factory) -> Path:
    """A small Cibola ladder written by `geomsim ladder`."""
    out = tmp_path_factory.mktemp("ladder")
    assert cli.main(["ladder", "cibola", "--bots", "random,greedy", "-n", "3", "-p", "2",
                     "--workers", "1", "-o", str(out), "--no-progress"]) == 0
    return out


def test_a_ladders_report_shows_its_ratings_plot_and_command(ladder_results, tmp_path):
    """The report of a ladder's folder holds the ladder's table (each bot's rating with its
    interval, as ladder.md has it), its plot, and the `geomsim ladder` command that made it."""
    out = tmp_path / "report.html"
    assert cli.main(["report", str(ladder_results), "-o", str(out), "--no-moments"]) == 0
    page = _Page()
    page.feed(out.read_text(encoding="utf-8"))
    text = " ".join(page.text)
    assert "Ladder" in text and "geomsim ladder cibola --bots random,greedy -n 3 -p 2 --seed 0" in text
    for line in (ladder_results / "ladder.md").read_text().splitlines():
        if line.startswith("| greedy ") or line.startswith("| random "):
            bot, rating, interval = (c.strip() for c in line.strip("|").split("|")[:3])
            assert rating in text and interval in text, (bot, rating, interval)
    assert len(page.images) == 3  # the ladder's plot beside the summary's and the metrics'
    pdf = tmp_path / "report.pdf"
    assert cli.main(["report", str(ladder_results), "-o", str(pdf), "--no-moments"]) == 0
    tables = len(table_pages(build_report(ladder_results, moments=False)))
    assert len(re.findall(rb"/Type\s*/Page\b", pdf.read_bytes())) == tables + 3  # and 3 plots


def test_a_broken_ladder_file_is_named(ladder_results, tmp_path, capsys):
    broken = tmp_path / "broken"
    shutil.copytree(ladder_results, broken)
    (broken / "ladder.json").write_text('{"game": "cibola", "ratings": [{"bot": 3}]}')
    assert cli.main(["report", str(broken), "-o", str(tmp_path / "r.html"), "--no-moments"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "ladder.json" in err and "not a ladder" in err
