"""Reading game data back (states, setups, actions, history entries): bounded, validated, and
refused in one `DataError` that names the field path or the limit.

Every reader of user data goes through `decode`: the text is refused at once beyond
`MAX_JSON_BYTES`, parsed by msgspec (a real JSON parser: no layout of the text can mislead it;
numbers beyond a double and integers that do not fit are refused, nesting deeper than Python's
recursion limit is refused), and checked against a type when one is given (a msgspec Struct per
game: field names, types, ranges, lengths). What a type cannot say (cards conserved, a player
index below the number of players) each game checks after, with `require` and `DataError`.

The canonical writer is `dumps` (orjson, sorted keys): it writes what `decode` reads. orjson
writes NaN and infinities as null, which every game's schema refuses where a number belongs.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from typing import Any, TypeVar, overload

import msgspec
import orjson

from geomsim.errors import InputError
from geomsim.files import TooLarge, read_bytes

T = TypeVar("T")

MAX_JSON_BYTES = 32 * 2**20  # a 4-player Anasazi state late in a game is about 60 kB
MAX_HISTORY = 100_000  # history entries of one state (a random Aztekz game has about 700)
# The seeds a game's compiled random player takes (numba's generators keep only 32 bits), so that
# one seed means one game everywhere: every --seed, a batch's last game and a served new game.
MAX_SEED = 2**32 - 1


class DataError(InputError):
    """Game data that cannot be read back (a state's JSON, a setup, an action's JSON): `path` is
    the field (``hands[2].red``, empty for the whole text), `problem` says what is wrong or which
    limit it exceeds. One line: ``hands[2].red: expected an integer, got 'x'``."""

    def __init__(self, path: str, problem: str):
        # A field named by the data may hold any character: the message stays one line.
        self.path, self.problem = printable(path), printable(problem)
        super().__init__(f"{self.path}: {self.problem}" if path else self.problem)

    def within(self, prefix: str) -> DataError:
        """The same error for data found at `prefix` (``history[3]``) of a larger document."""
        return DataError(join(prefix, self.path), self.problem)


def path_parts(path: str) -> tuple[str | int, ...]:
    """A field path as its parts: ``hands[2].red`` -> ``("hands", 2, "red")``."""
    return tuple(int(index) if index else name for name, index in _PART.findall(path))


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def join(prefix: str, path: str) -> str:
    """Two field paths as one: ``history[3]`` + ``action.x`` -> ``history[3].action.x``."""
    if not prefix or not path:
        return prefix or path
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


_AT = re.compile(r"^(.*) - at `\$(.*)`$", re.S)
_UNKNOWN = re.compile(r"^object contains unknown field `(.*)`$", re.S)


def convert_error(error: Exception, what: str) -> DataError:
    """msgspec's "Expected `int`, got `str` - at `$.hands[0]`" as a `DataError`."""
    text = str(error)
    match = _AT.match(text)
    problem, path = (match.group(1), match.group(2).lstrip(".")) if match else (text, "")
    if not path.replace("[...]", ""):  # only "some key of a mapping": no path worth naming
        path = ""
    problem = problem[:1].lower() + problem[1:]
    unknown = _UNKNOWN.match(problem)
    if unknown:  # name the field itself
        return DataError(join(path, unknown.group(1)), "unknown field")
    return DataError(path, problem if path else f"{what}: {problem}")


def check_size(text: object, what: str, limit: int = MAX_JSON_BYTES) -> None:
    """Refuse `text` at once when it is longer than `limit` bytes (or not text at all)."""
    # msgspec.Raw is a buffer, not (as its stubs say) a bytes.
    data = memoryview(text) if isinstance(text, msgspec.Raw) else text
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise DataError("", f"{what}: expected JSON text, got {type(data).__name__}")
    size = len(data) if not isinstance(data, str) else len(data) if data.isascii() else len(data.encode())
    if size > limit:
        raise DataError("", f"{what}: {size:,} bytes is over the limit of {limit:,} bytes")


@overload
def decode(text: str | bytes, type: type[T], what: str = ..., limit: int = ..., at: str = ...) -> T: ...
@overload
def decode(text: str | bytes, type: Any = ..., what: str = ..., limit: int = ..., at: str = ...) -> Any: ...
def decode(text: str | bytes, type: Any = Any, what: str = "JSON",
           limit: int = MAX_JSON_BYTES, at: str = "") -> Any:
    """`text` parsed (and checked against `type`, a msgspec type); `DataError` naming the field
    path (within `at`, where the text was found) or the limit otherwise."""
    check_size(text, what, limit)
    try:
        return msgspec.json.decode(text, type=type)
    except msgspec.ValidationError as e:
        raise convert_error(e, what).within(at) from None
    except msgspec.DecodeError as e:
        raise DataError("", f"{what}: {_where(text, str(e))}") from None
    except RecursionError:
        raise DataError("", f"{what}: nested too deeply") from None


_BYTE = re.compile(r"\s*\(byte (\d+)\)$")


def _where(text: str | bytes, message: str) -> str:
    """msgspec's "JSON is malformed: invalid character (byte 41)" with the line and column (a
    text cut short: where it ends)."""
    data = text.encode() if isinstance(text, str) else bytes(text)
    found = _BYTE.search(message)
    if found:
        at, message = int(found.group(1)), message[:found.start()]
    elif "truncated" in message:
        at = len(data)
    else:
        return f"not JSON: {cut(message.removeprefix('JSON is malformed: '))}"
    line, column = data.count(b"\n", 0, at) + 1, at - (data.rfind(b"\n", 0, at) + 1) + 1
    return f"line {line}, column {column}: not JSON: {cut(message.removeprefix('JSON is malformed: '))}"


@overload
def read_file(path: str | os.PathLike[str], type: type[T], what: str | None = ...) -> T: ...
@overload
def read_file(path: str | os.PathLike[str], type: Any = ..., what: str | None = ...) -> Any: ...
def read_file(path: str | os.PathLike[str], type: Any = Any, what: str | None = None) -> Any:
    """The JSON data in the file `path` (checked against `type`): `DataError` naming the
    problem (its line and column), or the limit, which is checked before the file is read;
    `OSError` when it cannot be read or is not a regular file (`geomsim.files.read_bytes`)."""
    what = what or str(path)
    try:
        data = read_bytes(path, MAX_JSON_BYTES)
    except TooLarge as e:
        raise DataError("", f"{what}: {e.strerror}") from None
    return decode(data, type, what)


def read_input(path: str | os.PathLike[str], type: Any = Any) -> Any:
    """`read_file` of a file the user named: one that cannot be read (missing, a device, a
    FIFO, a folder) is an `InputError` naming it too, as a malformed one is a `DataError`."""
    try:
        return read_file(path, type)
    except OSError as e:
        raise InputError(f"{os.fspath(path)}: {e.strerror}") from None


def convert(data: Any, type: type[T] | Any, path: str = "") -> T:
    """`data` (plain Python data, found at `path`) checked against `type` (a msgspec type);
    `DataError` naming the field otherwise."""
    try:
        return msgspec.convert(data, type=type)
    except msgspec.ValidationError as e:
        raise convert_error(e, "data").within(path) from None
    except RecursionError:
        raise DataError(path, "nested too deeply") from None


def dumps(data: Any) -> str:
    """The canonical JSON text of `data`: sorted keys, compact; `orjson.Fragment` values are
    pre-encoded JSON written as they are. `ValueError` for a number JSON cannot hold."""
    try:
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError as e:
        raise ValueError(f"cannot write as JSON: {e}") from None


def require(ok: bool, path: str, problem: str) -> None:
    """Raise `DataError(path, problem)` unless `ok`."""
    if not ok:
        raise DataError(path, problem)


def index(value: Any, size: int, path: str, what: str = "index") -> int:
    """`value` as an index below `size`; `DataError` otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size:
        return value
    raise DataError(path, f"{what} {short(value)} is not 0 to {size - 1}")


def same_items(found: Iterable[Any], expected: Iterable[Any], path: str, what: str) -> None:
    """Raise `DataError` unless `found` holds exactly the items of `expected`, as many times."""
    found, expected = Counter(found), Counter(expected)
    if found != expected:
        extra, missing = sorted(map(repr, found - expected)), sorted(map(repr, expected - found))
        words = [f"{', '.join(extra)} too many" if extra else "", f"{', '.join(missing)} missing" if missing else ""]
        raise DataError(path, f"the {what} are not conserved: " + cut("; ".join(w for w in words if w), 100))


def short(value: Any, width: int = 60) -> str:
    """`repr(value)`, cut to `width` characters (errors stay one short line)."""
    return cut(repr(value), width)


def printable(text: str) -> str:
    """`text` with each character that is not printable (a line break, a NUL) escaped as in a
    Python literal: ``"a\\nb"`` for a, line break, b."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def cut(text: str, width: int = 160) -> str:
    """`text` on one line of at most `width` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
