"""A batch's report in one file (`geomsim report RESULTS_DIR -o report.html`, or ``.pdf``).

The report holds the command that made the batch (rebuilt from ``batch.json``), the win rates
by bot and by seat with their 95% intervals, scores and game lengths (`analysis.plot_summary`),
the metrics (`geomsim.metrics`) as a table and as plots (endings, lead changes, when the
winner took the lead for good), and the final position of a typical game (its length nearest
the median) and of the longest one, replayed from their seeds (`bots.play_out`). The HTML file
embeds every image as a data URI, so it can be sent as it is; the PDF opens with pages of
tables (`table_pages`), then has one page per figure.
"""

from __future__ import annotations

import base64
import html
import io
import shlex
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from geomsim.analysis import BATCH, ROWS, plot_summary, read_rows, resolve_game
from geomsim.batch import kind_of, require_one_kind
from geomsim.errors import InputError
from geomsim.files import atomic_path
from geomsim.ladder import LADDER_HEADER, LADDER_JSON, ladder_lines, ladder_rows, plot_ladder
from geomsim.metrics import DEFINITIONS, lead_change, lead_for_good, metric_lines, metrics
from geomsim.moved import moved
from geomsim.reading import read_file, short
from geomsim.stats import ordinal, summarize

FORMATS = (".html", ".pdf")


# -- what the report shows -------------------------------------------------------------------------
def batch_command(record: dict[str, Any]) -> str:
    """The ``geomsim analyze`` command line that makes the batch recorded in ``batch.json``
    (the output folder left at its default), or the ``geomsim ladder`` one for a ladder's
    batch (its line-ups recorded)."""
    if record.get("lineups"):
        return shlex.join(["geomsim", "ladder", record["game"], "--bots", ",".join(record["bots"]),
                           "-n", str(record["games"] // len(record["lineups"])),
                           "-p", str(record["players"]), "--seed", str(record["seed"])])
    words = ["geomsim", "analyze", record["game"], "--players", str(record["players"]),
             "--bots", ",".join(record["bots"]), "--games", str(record["games"]),
             "--seed", str(record["seed"])]
    if not record.get("rotate", True):
        words.append("--fixed-seats")
    if record.get("start_name"):
        words += ["--from", record["start_name"]]
    if record.get("max_steps", 100_000) != 100_000:
        words += ["--max-steps", str(record["max_steps"])]
    if record.get("compiled"):
        words.append("--compiled")
    return shlex.join(words)


@dataclass
class Moment:
    """A drawn position of one game of the batch."""

    title: str
    figure: Any = None
    note: str = ""


@dataclass
class Report:
    """Everything a report shows, made from a results folder."""

    title: str
    command: str
    summary: dict[str, Any]
    metrics: dict[str, Any]
    figures: list[tuple[str, Any]] = field(default_factory=list)  # (caption, Figure)
    rules: str = ""  # the rules, options and versions the rows were played with
    moments: list[Moment] = field(default_factory=list)
    # A ladder's folder (`geomsim ladder`): its lines, header and rows (`geomsim.ladder`).
    ladder: tuple[tuple[str, str], list[list[str]]] | None = None


def build_report(results: Path, moments: bool = True) -> Report:
    """The report of the batch in `results` (``games.jsonl``, ``batch.json``)."""
    rows = read_rows(results / ROWS)
    if not rows:
        raise InputError(f"{results / ROWS}: no games to report")
    try:
        require_one_kind(rows, str(results / ROWS))
    except ValueError as e:
        raise InputError(str(e)) from None
    record = _record(results)
    summary, found = summarize(rows), metrics(rows)
    command = batch_command(record) if record else "(no batch.json: the command is not known)"
    report = Report(f"{summary['game']}: {summary['games']} games, {summary['players']} players",
                    command, summary, found, rules=played_by(rows[0]))
    ladder = _ladder(results)
    if ladder is not None:
        report.ladder = (ladder_lines(ladder), ladder_rows(ladder))
        report.figures.append(("The ladder: each bot's rating with its 95% interval",
                               plot_ladder(ladder)))
    report.figures.append(("Win rates by bot and by turn position (95% Wilson intervals), scores by bot, "
                           "game lengths", plot_summary(summary, rows)))
    report.figures.append(("Metrics: how games end, lead changes, when the winner took the "
                           "lead for good", plot_metrics(found, rows)))
    if moments:
        report.moments = draw_moments(rows, record)
    return report


def played_by(row: dict[str, Any]) -> str:
    """The rules, options and versions a row was played with, in words."""
    version = (row.get("versions") or {}).get("geomsim", "before 0.2")
    return f"{'; '.join(kind_of(row))}; geomsim {version}"


def _ladder(results: Path) -> dict[str, Any] | None:
    """The ladder summary `geomsim ladder` wrote into `results` (``ladder.json``), or None; a
    file that is not one is an input error naming it."""
    path = results / LADDER_JSON
    if not path.exists():
        return None
    try:
        found = read_file(path)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    try:
        ladder_lines(found), ladder_rows(found)
        plot_ladder(found)
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise InputError(f"{path}: not a ladder as `geomsim ladder` writes it "
                         f"({type(e).__name__}: {short(e.args[0] if e.args else e)})") from None
    return found  # type: ignore[no-any-return]


def _record(results: Path) -> dict[str, Any] | None:
    path = results / BATCH
    if not path.exists():
        return None
    try:
        record = read_file(path)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    if not isinstance(record, dict):
        raise InputError(f"{path}: expected the batch record (a mapping), got {short(record)}")
    return record


def plot_metrics(found: dict[str, Any], rows: Sequence[dict[str, Any]]) -> Any:
    """Three panels: endings (share, 95% interval), lead changes per game, and the share of
    the game played before the winner led for good."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 3.8), layout="constrained")
    ends, changes, taken = fig.subplots(1, 3)
    names = list(found["Ending"])
    share = np.array([found["Ending"][k]["share"] for k in names])
    low = np.array([found["Ending"][k]["ci95"][0] for k in names])
    high = np.array([found["Ending"][k]["ci95"][1] for k in names])
    x = np.arange(len(names))
    ends.bar(x, share, color="#9467bd", alpha=0.8)
    # Wilson's bounds may fall a rounding error inside a share of 0 or 1.
    ends.errorbar(x, share, yerr=np.maximum([share - low, high - share], 0.0), fmt="none",
                  ecolor="black", capsize=4)
    ends.set_xticks(x, names)
    ends.set_ylim(0, 1)
    ends.set_title("How games end")
    # In percent, with at least 0-1% on the axis: a few rare changes keep readable ticks.
    rates = [100 * c for r in rows if (c := lead_change(r)) is not None]
    _histogram(changes, rates, "lead changes per 100 actions (Ludii's Lead Change of a game)",
               "Lead Change", bins=np.linspace(0, max(1.0, *rates) * 1.05, 21) if rates else None)
    shares = [k / r["length"] for r in rows if (k := lead_for_good(r)) is not None and r["length"]]
    _histogram(taken, shares, "share of the game before the winner led for good",
               "Decisiveness", bins=np.linspace(0, 1, 21))
    return fig


def _histogram(ax: Any, values: Sequence[float], xlabel: str, title: str, bins: Any = None) -> None:
    from geomsim.plotting import whole_numbers

    whole_numbers(ax.yaxis)
    if values:
        if bins is None:  # whole numbers: a bar for each
            bins = np.arange(min(values), max(values) + 2) - 0.5
            whole_numbers(ax.xaxis)
        ax.hist(values, bins=bins, color="#2ca02c", alpha=0.8)
    else:
        ax.text(0.5, 0.5, "no trace in the rows", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    ax.set_title(title)


def draw_moments(rows: Sequence[dict[str, Any]], record: dict[str, Any] | None) -> list[Moment]:
    """The final positions of a typical game (length nearest the median, lowest seed first) and
    of the longest one, replayed from their seeds; a note instead where a batch's games cannot
    be replayed (started from a scenario, played by a compiled kernel, timed bots)."""
    lengths = np.array([r["length"] for r in rows])
    median = float(np.median(lengths))
    typical = min(rows, key=lambda r: (abs(r["length"] - median), r["seed"]))
    longest = max(rows, key=lambda r: (r["length"], -r["seed"]))
    picks = [("A typical game", typical)] + ([("The longest game", longest)]
                                               if longest is not typical else [])
    why = _not_replayable(record, rows)
    return [_moment(f"{name}: seed {row['seed']}, {row['length']} actions", row, why)
            for name, row in picks]


def _not_replayable(record: dict[str, Any] | None, rows: Sequence[dict[str, Any]]) -> str:
    if record is None:
        return "no batch.json: the games cannot be replayed"
    if record.get("start"):
        return "the games start from a scenario's position: not replayed"
    if record.get("compiled"):
        return "played by the compiled random player: the interface replays other games"
    if any(part.endswith("s") for r in rows for b in r["bots"] for part in b.split(":")[1:]):
        return "a bot's budget is time (ismcts:Ts): a replay would differ"
    return ""


def _moment(title: str, row: dict[str, Any], why: str) -> Moment:
    if why:
        return Moment(title, note=why)
    from geomsim.bots import play_out

    game = resolve_game(row["game"])
    state, result = play_out(game, row["players"], row["bots"], row["seed"])
    if result.scores != row["scores"]:
        return Moment(title, note="the replay did not give the row's scores: not drawn")
    try:
        # The game's own figure size: its legend and labels are made to be read at that size.
        fig = state.draw().get_figure(root=True)
    except NotImplementedError as e:
        return Moment(title, note=str(e))
    seats = ", ".join(f"{s}: {b} {score:g}" for s, (b, score) in enumerate(zip(row["bots"],
                                                                             row["scores"])))
    width = int(fig.get_figwidth() * 12)  # characters of 10-point text across the figure
    # Above the game's own title (which may sit at the left, the centre or both), never on it.
    fig.suptitle(textwrap.fill(f"{title}: final position; {seats}; winners {row['winners']}",
                               width), fontsize=10)
    return Moment(title, fig)


# -- HTML ------------------------------------------------------------------------------------------
def _data_uri(fig: Any) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _anchor(name: str) -> str:
    return "metric-" + "-".join(name.lower().replace("-", " ").split())


def _metrics_table(found: dict[str, Any]) -> str:
    """The metrics as an HTML table, each defined name a link to its definition below."""
    rows = []
    for name, value in metric_lines(found):
        label = html.escape(name)
        if name in DEFINITIONS:
            label = (f"<a href='#{_anchor(name)}' title='{html.escape(DEFINITIONS[name])}'>"
                     f"{label}</a>")
        rows.append(f"<tr><td>{label}</td><td>{html.escape(value)}</td></tr>")
    return ("<table><tr><th>metric</th><th>value</th></tr>" + "".join(rows) + "</table>"
            "<p>Intervals: 95% (Wilson for shares of games, bootstrap over games for the "
            "others). The definitions, sources and ranges are in docs/metrics.md.</p>")


def _definitions(found: dict[str, Any]) -> str:
    """The definitions of the metrics the report shows."""
    shown = [name for name, _ in metric_lines(found) if name in DEFINITIONS]
    items = "".join(f"<dt id='{_anchor(n)}'>{html.escape(n)}</dt><dd>{html.escape(DEFINITIONS[n])}</dd>"
                    for n in shown)
    return f"<h2>What the metrics mean</h2><dl>{items}</dl>"


def _rate_rows(entries: Sequence[dict[str, Any]], key: str) -> list[list[str]]:
    """Table rows of win rates (a turn position as 1st, 2nd, ...)."""
    return [[ordinal(e[key] + 1) if key == "turn" else e[key], e["games"], f"{e['wins']:g}", f"{100 * e['win_rate']:.1f}%",
             f"{100 * e['ci95'][0]:.1f}–{100 * e['ci95'][1]:.1f}%",
             f"{e['score'].get('mean', 0):.3g}"] for e in entries]


STYLE = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;
text-align:left}th{background:#f0f0f0}code{background:#f4f4f4;padding:2px 4px}
img{max-width:100%}figure{margin:1em 0}figcaption{color:#555;font-size:90%}"""


def _ladder_html(report: Report) -> list[str]:
    """The ladder's section of the page: how it was played, its table, its scale."""
    if report.ladder is None:
        return []
    (played, scale), rows = report.ladder
    return ["<h2>Ladder</h2>", f"<p>{html.escape(played.replace('**', ''))}</p>",
            _table(LADDER_HEADER, rows), f"<p>{html.escape(scale)}</p>"]


def report_html(report: Report) -> str:
    """The report as one self-contained HTML page."""
    header = ["", "games", "wins", "win rate", "95% CI", "mean score"]
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'>"
             f"<title>{html.escape(report.title)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{html.escape(report.title)}</h1>",
             f"<p>Made by <code>{html.escape(report.command)}</code></p>",
             f"<p>Played with: {html.escape(report.rules)}</p>",
             *_ladder_html(report),
             "<h2>Win rate by bot</h2>", _table(["bot", *header[1:]],
                                               _rate_rows(report.summary["by_bot"], "bot")),
             "<h2>Win rate by turn position</h2>",
             _table(["turn", *header[1:]], _rate_rows(report.summary.get("by_turn", []), "turn")),
             "<h2>Win rate by player number</h2>",
             _table(["player", *header[1:]], _rate_rows(report.summary["by_seat"], "seat")),
             "<h2>Metrics</h2>", _metrics_table(report.metrics)]
    for caption, fig in report.figures:
        parts.append(f"<figure><img src='{_data_uri(fig)}' alt='{html.escape(caption)}'>"
                     f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    parts.append("<h2>Moments</h2>")
    for m in report.moments:
        if m.figure is None:
            parts.append(f"<p><b>{html.escape(m.title)}</b>: {html.escape(m.note)}</p>")
        else:
            parts.append(f"<figure><img src='{_data_uri(m.figure)}' alt='{html.escape(m.title)}'>"
                         f"<figcaption>{html.escape(m.title)}</figcaption></figure>")
    parts.append(_definitions(report.metrics))
    parts.append("</body></html>")
    return "\n".join(parts)


# -- PDF -------------------------------------------------------------------------------------------
PAGE = (8.27, 11.69)  # A4, inches
MARGIN = 0.6          # inches on every side
LINE = 0.19           # inches a line of a table's 8-point text takes
WRAP = {"metric": 24, "value": 78, "": 60, "text": 95}  # characters a text is wrapped at


@dataclass
class _Block:
    """A part of the PDF's table pages: a heading and a table (header, rows), or a paragraph."""

    heading: str
    header: Sequence[str] = ()
    rows: Sequence[Sequence[str]] = ()
    text: str = ""

    def lines(self) -> int:
        """The lines of text it takes on a page, its heading included."""
        if not self.header:
            return 3 + self.text.count("\n")
        return 2 + sum(_height(row) for row in [self.header, *self.rows])


def _blocks(report: Report) -> list[_Block]:
    """The command, the win rates, the metrics and the moments left undrawn, as blocks."""
    header = ["games", "wins", "win rate", "95% CI", "mean score"]
    wrap = textwrap.TextWrapper(width=WRAP["text"], break_on_hyphens=False)
    blocks = [_Block("Made by", text="\n".join(wrap.wrap(report.command))),
              _Block("Played with", text="\n".join(wrap.wrap(report.rules))),
              *_ladder_blocks(report, wrap),
              _Block("Win rate by bot", ["bot", *header],
                     [[textwrap.fill(str(c), WRAP[""]) for c in r]
                      for r in _rate_rows(report.summary["by_bot"], "bot")]),
              _Block("Win rate by turn position", ["turn", *header],
                     [list(map(str, r)) for r in _rate_rows(report.summary.get("by_turn", []), "turn")]),
              _Block("Win rate by player number", ["player", *header],
                     [list(map(str, r)) for r in _rate_rows(report.summary["by_seat"], "seat")]),
              _Block("Metrics", ["metric", "value"],
                     [[textwrap.fill(k, WRAP["metric"]), textwrap.fill(v, WRAP["value"])]
                      for k, v in metric_lines(report.metrics)])]
    undrawn = [f"{m.title}: {m.note}" for m in report.moments if m.figure is None]
    if undrawn:
        blocks.append(_Block("Moments not drawn",
                             text="\n".join(textwrap.fill(u, WRAP["text"]) for u in undrawn)))
    return blocks


def _ladder_blocks(report: Report, wrap: textwrap.TextWrapper) -> list[_Block]:
    """The ladder's table and lines as PDF blocks (none for a batch that is not a ladder)."""
    if report.ladder is None:
        return []
    (played, scale), rows = report.ladder
    return [_Block("Ladder", text="\n".join(wrap.wrap(played.replace("**", "")))),
            _Block("Ladder ratings", LADDER_HEADER, rows),
            _Block("Ladder scale", text="\n".join(wrap.wrap(scale)))]


def _split(block: _Block, room: int) -> tuple[_Block, _Block | None]:
    """The part of a table that fits in `room` lines (one row at least), and the rest (None
    when all of it fits)."""
    if block.lines() <= room or not block.rows:
        return block, None
    used, k = 2 + _height(block.header), 0
    while k < len(block.rows) and used + _height(block.rows[k]) <= room:
        used += _height(block.rows[k])
        k += 1
    k = max(k, 1)
    return (_Block(block.heading, block.header, block.rows[:k]),
            _Block(f"{block.heading} (continued)", block.header, block.rows[k:]))


def _height(row: Sequence[str]) -> int:
    """The lines a table row takes: those of its tallest cell."""
    return max(c.count("\n") + 1 for c in row)


def table_pages(report: Report) -> list[Any]:
    """The PDF's first pages: the title, then the command, the win rates and the metrics as
    tables with column headers (a table too long for a page goes on on the next)."""
    return block_pages(report.title, _blocks(report))


def pdf_table(heading: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> _Block:
    """A table for `block_pages`: a heading, column headers and rows (cells as text)."""
    return _Block(heading, list(header), [[str(c) for c in r] for r in rows])


def block_pages(title: str, blocks: Sequence[_Block]) -> list[Any]:
    """Pages of a PDF holding `blocks` under `title`, a table going on to the next page when
    it does not fit."""
    from matplotlib.figure import Figure

    pages: list[Any] = []
    todo = list(blocks)
    room = int((PAGE[1] - 2 * MARGIN - 0.5) / LINE)
    while todo:
        page = Figure(figsize=PAGE)
        top = 1 - MARGIN / PAGE[1]
        if not pages:
            page.text(MARGIN / PAGE[0], top, title, fontsize=14, weight="bold", va="top")
        y, left = (PAGE[1] - MARGIN - 0.5), room
        while todo:
            block, rest = _split(todo[0], left)
            if block.lines() > left and left < room:
                break  # the next page starts with it
            todo[0:1] = [rest] if rest is not None else []
            y = _draw_block(page, block, y)
            left = int((y - MARGIN) / LINE)
        pages.append(page)
    return pages


def _draw_block(page: Any, block: _Block, y: float) -> float:
    """Draw `block` with its top at `y` inches from the page's foot; return where it ends."""
    x = MARGIN / PAGE[0]
    page.text(x, y / PAGE[1], block.heading, fontsize=11, weight="bold", va="top")
    y -= 1.5 * LINE
    if not block.header:
        page.text(x, y / PAGE[1], block.text, fontsize=8, family="monospace", va="top",
                  linespacing=1.5)
        return y - (block.lines() - 1.5) * LINE
    heights = [_height(row) for row in [block.header, *block.rows]]
    height = sum(heights) * LINE
    ax = page.add_axes((x, (y - height) / PAGE[1], 1 - 2 * x, height / PAGE[1]))
    ax.set_axis_off()
    widths = np.array([max(len(line) for c in column for line in c.split("\n"))
                       for column in zip(block.header, *block.rows)], float) + 3
    table = ax.table(cellText=[list(r) for r in block.rows], colLabels=list(block.header),
                     colWidths=list(widths / widths.sum()), cellLoc="left", colLoc="left",
                     bbox=(0, 0, 1, 1))
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    for (r, _), cell in table.get_celld().items():
        cell.set_height(heights[r])  # the bbox scales the rows, keeping these proportions
        cell.set_edgecolor("#cccccc")
        if r == 0:
            cell.set_facecolor("#f0f0f0")
            cell.get_text().set_weight("bold")
    return y - height - 0.5 * LINE


def write_pdf(report: Report, path: Path) -> None:
    """The report as a PDF: pages of tables (command, win rates, metrics), then one page per
    figure and per drawn moment."""
    from matplotlib.backends.backend_pdf import PdfPages

    with atomic_path(path) as tmp, PdfPages(tmp) as pdf:
        for page in table_pages(report):
            pdf.savefig(page)
        for _, fig in report.figures:
            pdf.savefig(fig)
        for m in report.moments:
            if m.figure is not None:
                pdf.savefig(m.figure)


def write_report(results: Path, out: Path, moments: bool = True) -> Path:
    """Write the report of the batch in `results` to `out` (``.html`` or ``.pdf``)."""
    if out.suffix.lower() not in FORMATS:
        raise InputError(f"{out}: the report is written as {' or '.join(FORMATS)}, "
                         f"not {out.suffix or 'a file without a suffix'}")
    report = build_report(results, moments)
    if out.suffix.lower() == ".pdf":
        write_pdf(report, out)
    else:
        from geomsim.files import write_text

        write_text(out, report_html(report))
    return out


def __getattr__(name: str) -> Any:
    """`report_command`, moved to `geomsim.cli.report`, still found here for one release."""
    if name == "report_command":
        from geomsim.cli.report import report_command

        return moved(f"{__name__}.{name}", "geomsim.cli.report.report_command", report_command)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
