"""Reading actions from their one-line text forms, like chess notation.

A game lists its forms: the first word of a text (its verb) selects a `Form`, whose pattern must
match the whole text (whitespace runs read as one space) and whose builder makes the action.
Every mistake is a `ValueError` that quotes the text and says what was expected.

An action's text and its JSON must accept exactly the same actions: each action type checks its
own fields once, in its `__post_init__` (with `whole`, `one_of`, `word` below), which both the
text form's builder and `Action.from_json` go through; and every value it accepts writes a text
its form reads back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from geomsim.reading import short
from geomsim.rules import Action

# The largest magnitude of an action's whole number: far beyond any count or cell of a board,
# well within a JSON integer.
MAX_NUMBER = 10**9
WORD = re.compile(r"[A-Za-z_]\w{0,39}")  # a name in an action's text: one word, up to 40 characters


def whole(value: object, what: str, low: int = -MAX_NUMBER, high: int = MAX_NUMBER) -> None:
    """`ValueError` unless `value` is a whole number (not a bool) from `low` to `high`."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be a whole number {low} to {high}, not {short(value, 30)}")


def one_of(value: object, allowed: Sequence[object], what: str) -> None:
    """`ValueError` unless `value` is one of `allowed` (of the same type: 1 is not True)."""
    if not any(type(value) is type(a) and value == a for a in allowed):
        raise ValueError(f"{what} must be one of {', '.join(map(str, allowed))}, not {short(value, 30)}")


def word(value: object, what: str) -> None:
    """`ValueError` unless `value` is a name an action's text can hold (`WORD`)."""
    if not isinstance(value, str) or WORD.fullmatch(value) is None:
        raise ValueError(f"{what} must be one word of letters, digits and _ (up to 40), "
                         f"not {short(value, 30)}")


@dataclass(frozen=True)
class Form:
    """One text form: how it is written (`usage`), its pattern and how to build its action.

    `build` gets the match and may raise `ValueError` for values the pattern cannot exclude.
    """

    usage: str
    pattern: str
    build: Callable[[re.Match[str]], Action]
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(self.pattern))


class Notation:
    """The text forms of a game's actions, by verb."""

    def __init__(self, game: str, forms: Mapping[str, Form], lowercase: bool = False):
        self.game = game
        self.forms = dict(forms)
        self.lowercase = lowercase

    def parse(self, text: str) -> Action:
        """The action written as `text`; `ValueError` quoting it and naming what is wrong."""
        if not isinstance(text, str):
            raise ValueError(f"{self.game} action: expected text, got {type(text).__name__}")
        words = " ".join(text.split())
        if self.lowercase:
            words = words.lower()
        verb = words.split(" ", 1)[0]
        form = self.forms.get(verb)
        if form is None:
            raise ValueError(f"{self.game} action {short(text)}: unknown verb {short(verb, 30)}; expected one "
                             f"of: {'; '.join(self.usages())}")
        match = form.regex.fullmatch(words)
        if match is None:
            raise ValueError(f"{self.game} action {short(text)}: expected {form.usage}")
        try:
            return form.build(match)
        except ValueError as e:
            raise ValueError(f"{self.game} action {short(text)}: {e}") from None

    def usages(self) -> list[str]:
        """How each form is written, once each, in the order given."""
        return list(dict.fromkeys(form.usage for form in self.forms.values()))


# A number with a fraction or an exponent, as Python writes floats, not part of a word (P42s,
# E3 and r1 keep their digits); whole numbers are left as they are.
_DECIMAL = re.compile(r"(?<![\w.])(heading )?(-?\d+(?:\.\d+(?:e[-+]?\d+)?|e[-+]?\d+))(?![\w.])")
READ_DIGITS, ANGLE_DIGITS = 2, 1  # 0.01 mm, 0.1 degree


def rounded(text: str) -> str:
    """An action's text form (or words quoting one) for people to read: every decimal number
    rounded to 0.01, a heading to 0.1 degree, without trailing zeros. The exact text stays the
    action's: `parse` of this one may name a neighbouring action."""
    def one(m: re.Match[str]) -> str:
        digits = ANGLE_DIGITS if m[1] else READ_DIGITS
        shown = f"{float(m[2]):.{digits}f}".rstrip("0").rstrip(".")
        return (m[1] or "") + ("0" if shown == "-0" else shown)
    return _DECIMAL.sub(one, text)
