"""Reading actions from their one-line text forms, like chess notation.

A game lists its forms: the first word of a text (its verb) selects a `Form`, whose pattern must
match the whole text (whitespace runs read as one space) and whose builder makes the action.
Every mistake is a `ValueError` that quotes the text and says what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from geomsim.reading import short
from geomsim.rules import Action


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
