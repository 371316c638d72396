"""Scenario files as read: errors naming file, line and field; YAML with line numbers; the JSON Schema."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from geomsim.errors import InputError
from geomsim.files import TooLarge, read_bytes
from geomsim.reading import cut, printable

SCHEMA_PATH = Path(__file__).with_name("schema.json")

FieldPath = tuple[str | int, ...]


# -- errors and line numbers ---------------------------------------------------------------
class ScenarioError(InputError):
    """A malformed scenario or log: names the file, the line and the field."""

    def __init__(self, file: str, line: int | None, field: str | None, message: str):
        self.file, self.line, self.field, self.message = file, line, field, message
        where = file + (f":{line}" if line else "")
        # A field named by the file may hold any character (a line break, half a surrogate
        # pair that no output can encode): the message stays one line that can be written.
        super().__init__(printable(f"{where}: {field}: {message}" if field else f"{where}: {message}"))


def field_name(path: FieldPath) -> str:
    """A field path as text: ``steps[2].expect[0].rule``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@dataclass
class Source:
    """A YAML document and the line of each of its nodes (values and keys)."""

    file: str
    data: Any
    lines: dict[FieldPath, int] = field(default_factory=dict)
    key_lines: dict[FieldPath, int] = field(default_factory=dict)

    def line(self, path: FieldPath, key: bool = False) -> int | None:
        """The line of the field at `path` (of its key when `key`), else of its nearest parent."""
        if key and path in self.key_lines:
            return self.key_lines[path]
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)

    def error(self, path: FieldPath, message: str, key: bool = False) -> ScenarioError:
        """A `ScenarioError` at the field `path`."""
        return ScenarioError(self.file, self.line(path, key), field_name(path) or None, message)


# -- limits: a scenario is a small hand-written file ----------------------------------------
MAX_BYTES = 2 * 2**20  # the largest scenario shipped is under 10 kB
MAX_NODES = 200_000  # values in the file once every alias is expanded (billion laughs)
MAX_DEPTH = 50  # levels of nesting
MAX_ITEMS = 20_000  # entries of one list or mapping (steps, expectations, outputs, ...)

_JSON_TAGS = {"tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "seq", "map")}


class _Loader(yaml.SafeLoader):
    """SafeLoader that composes at most `MAX_DEPTH` levels (no `RecursionError`), and reads a
    date as the text it is (JSON has no dates)."""

    yaml_implicit_resolvers = {
        first: [(tag, regex) for tag, regex in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Limit(self.peek_event().start_mark, f"nested deeper than {MAX_DEPTH} levels (the limit)")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Limit(Exception):
    """A limit or a rule of the scenario format broken at a mark of the text (at field `path`)."""

    def __init__(self, mark: Any, message: str, path: FieldPath = ()):
        self.mark, self.message, self.path = mark, message, path


def read_text(path: Path) -> str:
    """A scenario file's text: `ScenarioError` when it cannot be read, is not a regular file,
    is over `MAX_BYTES` (refused before it is read) or is not UTF-8 (naming the line of the first bad byte)."""
    try:
        data = read_bytes(path, MAX_BYTES)
    except TooLarge as e:
        raise ScenarioError(str(path), None, None, f"{e.strerror} for a scenario file") from None
    except OSError as e:
        raise ScenarioError(str(path), None, None, f"cannot read: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ScenarioError(str(path), line, None, f"not UTF-8 text: byte 0x{data[e.start]:02x} at "
                            f"column {column}") from None


def check_size(size: int, file: str) -> None:
    """Refuse a scenario text of `size` bytes over `MAX_BYTES`, in one line naming the limit."""
    if size > MAX_BYTES:
        raise ScenarioError(file, None, None, f"{size:,} bytes is over the limit of {MAX_BYTES:,} "
                                              "bytes for a scenario file")


def parse_yaml(text: str, file: str = "<string>") -> Source:
    """Safe-load YAML text, keeping the line of every node; `ScenarioError` when it is not YAML,
    or it exceeds a limit (bytes, nesting, values after alias expansion, entries of a list),
    or holds what JSON cannot (duplicate keys, tags such as ``!!set``, non-finite numbers)."""
    check_size(len(text.encode("utf-8", "surrogatepass")) if not text.isascii() else len(text), file)
    loader = None
    try:
        loader = _Loader(text)  # the reader checks every character here: inside the try
        node = loader.get_single_node()
        if node is not None:
            _check_nodes(loader, node)
        data = loader.construct_document(node) if node is not None else None
        source = Source(file, data)
        if node is not None:
            _index(loader, node, data, (), source)
        return source
    except _Limit as e:
        raise ScenarioError(file, e.mark.line + 1 if e.mark else None, field_name(e.path) or None,
                            e.message) from None
    except yaml.reader.ReaderError as e:
        line = text.count("\n", 0, e.position) + 1
        column = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
        code = ord(e.character) if isinstance(e.character, str) else e.character
        raise ScenarioError(file, line, None, f"bad YAML (column {column}): the control character "
                            f"#x{code:02x} is not allowed in a YAML file") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        column = f" (column {mark.column + 1})" if mark else ""
        problem = e.problem or e.context or "cannot read"
        raise ScenarioError(file, mark.line + 1 if mark else None, None,
                            f"bad YAML{column}: {cut(problem)}") from None
    except yaml.YAMLError as e:
        raise ScenarioError(file, None, None, f"bad YAML: {cut(str(e))}") from None
    except RecursionError:
        raise ScenarioError(file, None, None, f"nested deeper than {MAX_DEPTH} levels (the limit)") from None
    finally:
        if loader is not None:
            loader.dispose()


def _check_nodes(loader: yaml.SafeLoader, root: yaml.Node) -> None:
    """Before anything is constructed: no alias inside the value it names (recursive data),
    the values once aliases are expanded within `MAX_NODES` (each node's expanded size computed
    once, so a billion laughs costs its own size), lists and mappings within `MAX_ITEMS`, only
    JSON's tags, scalars that JSON and UTF-8 can hold, no key twice in a mapping."""
    size: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being checked: the path from the root
    stack: list[tuple[yaml.Node, FieldPath, bool]] = [(root, (), False)]
    while stack:
        node, path, done = stack.pop()
        if id(node) in size:
            continue
        if not done:
            if id(node) in open_:
                # Depth first, the nodes still open are the ancestors of this one: an alias
                # names a value it lies inside, which no expansion ever finishes.
                raise _Limit(node.start_mark, "an alias inside the value its anchor names (recursive "
                             f"data, anchored at line {node.start_mark.line + 1}) is not allowed", path)
            children = _check_node(loader, node, path)
            open_.add(id(node))
            stack.append((node, path, True))
            stack.extend((c, p, False) for c, p in reversed(children) if id(c) not in size)  # in file order
            continue
        open_.discard(id(node))
        total = 1 + sum(size[id(c)] for c, _ in _children(node, path))
        if total > MAX_NODES:
            raise _Limit(node.start_mark, f"more than {MAX_NODES:,} values once anchors and aliases "
                         "are expanded (the limit)", path)
        size[id(node)] = total


def _children(node: yaml.Node, path: FieldPath) -> list[tuple[yaml.Node, FieldPath]]:
    """The nodes under `node` (keys and values), each with its field path."""
    if isinstance(node, yaml.MappingNode):
        found = []
        for key, value in node.value:
            child = path + (key.value if isinstance(key, yaml.ScalarNode) else "?",)
            found += [(key, child), (value, child)]
        return found
    if isinstance(node, yaml.SequenceNode):
        return [(c, path + (i,)) for i, c in enumerate(node.value)]
    return []


_SURROGATE = re.compile("[\ud800-\udfff]")
_NAN = object()  # the key of every NaN (which equals no value, itself included)


def _check_node(loader: yaml.SafeLoader, node: yaml.Node, path: FieldPath) -> list[tuple[yaml.Node, FieldPath]]:
    """Refuse a tag JSON does not have, too many entries, a scalar that cannot be built or
    written, a key twice; the nodes under `node`."""
    if node.tag not in _JSON_TAGS:
        raise _Limit(node.start_mark, f"the tag {node.tag.replace('tag:yaml.org,2002:', '!!')} is not "
                     "allowed: a scenario holds mappings, lists, text, numbers, true/false and null", path)
    if isinstance(node, yaml.ScalarNode):
        _check_scalar(loader, node, path)
        return []
    if len(node.value) > MAX_ITEMS:
        raise _Limit(node.start_mark, f"{len(node.value):,} entries in one list or mapping, over the "
                     f"limit of {MAX_ITEMS:,}", path)
    if isinstance(node, yaml.MappingNode):
        _check_keys(loader, node, path)
    return _children(node, path)


def _check_scalar(loader: yaml.SafeLoader, node: yaml.ScalarNode, path: FieldPath) -> Any:
    """The value of `node`; refused when it holds a lone surrogate (an escape such as
    ``"\\uD800"``: no character, so no UTF-8 output can hold it) or cannot be built (an
    integer over Python's limit of digits)."""
    found = _SURROGATE.search(node.value)
    if found:
        raise _Limit(node.start_mark, f"the text holds \\u{ord(found.group()):04x}, half of a "
                     "surrogate pair and not a character: give the character itself", path)
    try:
        return loader.construct_object(node)
    except ValueError as e:
        if node.tag.endswith(":int"):  # int() of a decimal over sys.get_int_max_str_digits() digits
            raise _Limit(node.start_mark, f"an integer of {len(node.value):,} characters is over the "
                         f"limit of {sys.get_int_max_str_digits():,} digits", path) from None
        raise _Limit(node.start_mark, f"cannot read {cut(node.value, 40)!r}: {cut(str(e), 80)}", path) from None


def _check_keys(loader: yaml.SafeLoader, node: yaml.MappingNode, path: FieldPath) -> None:
    """Refuse a key that equals an earlier key of the mapping once both are built: the same
    text, or another spelling of an equal value (``0`` and ``0x0``, ``1`` and ``true``, which a
    Python mapping holds as one key, so one of the two values would be lost)."""
    seen: dict[Any, yaml.ScalarNode] = {}
    for key, _ in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.tag not in _JSON_TAGS:
            continue  # refused when it is checked itself (a tag), or built (a list: not hashable)
        value = _check_scalar(loader, key, path + (key.value,))
        name = value if value == value else _NAN  # PyYAML builds every NaN as one object: one key
        first = seen.get(name)
        if first is not None:
            also = "" if first.value == key.value else f"the same key as {cut(first.value, 40)!r}, "
            raise _Limit(key.start_mark, f"duplicate field {cut(key.value, 60)!r} ({also}first at line "
                         f"{first.start_mark.line + 1})", path + (key.value,))
        seen[name] = key


def _index(loader: yaml.SafeLoader, node: yaml.Node, value: Any, path: FieldPath,
           source: Source) -> None:
    """Record the line of each node under `node` (`_check_nodes` refused duplicate keys);
    reject non-finite numbers."""
    source.lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            child = path + (key,)
            source.key_lines[child] = key_node.start_mark.line + 1
            _index(loader, value_node, value[key], child, source)
    elif isinstance(node, yaml.SequenceNode):
        for i, (child_node, item) in enumerate(zip(node.value, value)):
            _index(loader, child_node, item, path + (i,), source)
    elif isinstance(value, float) and not math.isfinite(value):
        raise source.error(path, f"{value!r} is not allowed: give a finite number")


# -- JSON Schema ---------------------------------------------------------------------------
@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (kinds of expectations and outputs in ``$defs``)."""
    found: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return found


def part_validator(part: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator of `part` that resolves references into the scenario schema."""
    root = schema()
    return jsonschema.Draft202012Validator({**part, "$defs": root["$defs"]})


@cache
def top_validator() -> jsonschema.protocols.Validator:
    """The validator of a whole scenario file."""
    return jsonschema.Draft202012Validator(schema())


def check_schema(source: Source, instance: Any, validator: Any, base: FieldPath) -> None:
    """Raise a `ScenarioError` for the first (by line) schema error of `instance`."""
    errors = list(validator.iter_errors(instance))
    if not errors:
        return
    def where(e: jsonschema.ValidationError) -> tuple[int, int]:
        return (source.line(base + tuple(e.absolute_path)) or 0, -len(e.absolute_path))
    error = min(errors, key=where)
    path, message, key = _explain(error)
    raise source.error(base + path, message, key)


def _explain(error: jsonschema.ValidationError) -> tuple[FieldPath, str, bool]:
    """A plain message for a schema error, and the field it is about."""
    path = tuple(error.absolute_path)
    kind = error.validator
    # The file's data and the schema's value, set in every error a validation makes (the stubs
    # allow them unset, for errors made by hand).
    instance: Any = error.instance
    value: Any = error.validator_value
    if kind == "additionalProperties" and isinstance(error.schema, Mapping):
        known = list(error.schema.get("properties", {}))
        extra = [k for k in instance if k not in known]
        return path + (extra[0],), f"unknown field {extra[0]!r} (known: {', '.join(known)})", True
    if kind == "required":
        missing = [r for r in value if r not in instance]
        return path, f"missing field {missing[0]!r}", False
    if kind == "type":
        wanted = " or ".join(_TYPE_WORDS[t] for t in ([value] if isinstance(value, str) else value))
        return path, f"expected {wanted}, got {describe(instance)}", False
    if kind == "not" and "description" in value:
        last = value.get("required", [None])[-1]
        return path + ((last,) if last else ()), value["description"], bool(last)
    if kind == "pattern" and path and path[-1] == "diagram":
        return path, f"{instance!r}: a diagram is a .png, .svg or .pdf file", False
    if kind == "minProperties":
        return path, "empty mapping", False
    return path, error.message, False


_TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "true or false", "null": "nothing"}


def describe(value: Any) -> str:
    """The YAML type and value of `value`, for messages."""
    words = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
             float: "a number", type(None): "nothing"}
    text = repr(value)
    return f"{words.get(type(value), type(value).__name__)} {text if len(text) < 40 else text[:37] + '...'}"


def reason(error: BaseException) -> str:
    """An exception as a short reason (KeyError quotes its key)."""
    return f"missing {error}" if isinstance(error, KeyError) else str(error)
