"""HTML for notebooks (Jupyter's `_repr_html_`) from the text forms geomsim already writes."""

from __future__ import annotations

import html
import re


def markdown_html(text: str) -> str:
    """The Markdown that geomsim writes (``#`` headings, pipe tables, paragraphs) as HTML."""
    out: list[str] = []
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            head, *body = table
            cells = "".join(f"<th>{_inline(c)}</th>" for c in head)
            rows = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>"
                           for r in body)
            out.append(f"<table><tr>{cells}</tr>{rows}</table>")
            table.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):  # the rule under the head
                table.append(cells)
            continue
        flush()
        heading = re.match(r"(#+) (.*)", line)
        if heading:
            level = min(len(heading[1]) + 2, 6)  # notebook headings stay below the cell's own
            out.append(f"<h{level}>{_inline(heading[2])}</h{level}>")
        elif line.strip():
            out.append(f"<p>{_inline(line)}</p>")
    flush()
    return "\n".join(out)


def pre_html(text: str) -> str:
    """Plain text kept as it is laid out (a text board, a reach verdict)."""
    return f"<pre>{html.escape(text)}</pre>"


def _inline(text: str) -> str:
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))
