"""Reading actions from text forms."""

from __future__ import annotations

import pytest

from geomsim.notation import Form, Notation
from tests.toygames import Mark

NOTATION = Notation("toy", {
    "mark": Form("mark CELL (0-8)", r"mark (\d+)", lambda m: Mark(int(m[1]))),
    "centre": Form("centre", r"centre", lambda m: Mark(4)),
}, lowercase=True)


def test_whitespace_and_case_are_forgiven():
    assert NOTATION.parse("  MARK   3 ") == Mark(3)
    assert NOTATION.parse("centre") == Mark(4)


def test_unknown_verb_lists_every_form():
    with pytest.raises(ValueError, match=r"toy action 'jump 3': unknown verb 'jump'; expected one "
                                         r"of: mark CELL \(0-8\); centre"):
        NOTATION.parse("jump 3")


def test_known_verb_written_wrong_names_its_form():
    with pytest.raises(ValueError, match=r"toy action 'mark x': expected mark CELL \(0-8\)"):
        NOTATION.parse("mark x")


def test_builder_errors_quote_the_text():
    strict = Notation("toy", {"mark": Form("mark CELL", r"mark (\d+)", lambda m: _cell(m[1]))})
    with pytest.raises(ValueError, match=r"toy action 'mark 12': no cell 12"):
        strict.parse("mark 12")


def test_non_text_is_refused():
    with pytest.raises(ValueError, match="expected text, got int"):
        NOTATION.parse(3)


def _cell(text: str) -> Mark:
    if int(text) > 8:
        raise ValueError(f"no cell {text}")
    return Mark(int(text))
