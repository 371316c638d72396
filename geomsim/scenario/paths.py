"""Paths into JSON-like data, as scenario files write them: ``players[1].score``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from geomsim.scenario.source import describe, field_name

_PATH_TOKEN = re.compile(r"""([^.\[\]"']+)|\[(\d+)\]|\["([^"]*)"\]|\['([^']*)'\]""")


def property_path(text: str) -> list[str | int]:
    """Parse ``a.b[2].c`` (or ``a.b.2.c``; keys with dots or commas quoted: ``a["0,-1"]``) into
    keys and indices; `ValueError` if malformed."""
    parts: list[str | int] = []
    pos = 0
    for match in _PATH_TOKEN.finditer(text):
        between = text[pos:match.start()]
        if between not in ("", ".") or (between == "" and pos and match.group(1)):
            break
        word, index, quoted = match.group(1), match.group(2), match.group(3) or match.group(4)
        if word is None and index is None and quoted is None:
            quoted = ""  # [""] names the empty key
        parts.append(word if word is not None else int(index) if index is not None else quoted)
        pos = match.end()
    else:
        if pos == len(text) and parts:
            return parts
    raise ValueError(f"malformed property path {text!r}: write keys and indices like players[1].score")


def lookup(data: Any, parts: Sequence[str | int]) -> Any:
    """The value at `parts` in JSON-like data; `LookupError` naming where the path stops."""
    for done, part in enumerate(parts):
        here = _path_text(parts[:done])
        if isinstance(data, Mapping):
            if str(part) not in data:
                keys = ", ".join(map(str, list(data)[:12])) or "none"
                raise LookupError(f"no key {str(part)!r} in {here} (keys: {keys})")
            data = data[str(part)]
        elif isinstance(data, (list, tuple)):
            try:
                data = data[int(part)]
            except (ValueError, IndexError):
                raise LookupError(f"no item {part!r} in {here} (a list of {len(data)})") from None
        else:
            raise LookupError(f"{here} is {describe(data)}, not a mapping or a list")
    return data


def _path_text(parts: Sequence[str | int]) -> str:
    return field_name(tuple(parts)) or "the root"
