"""Scenario files as read: errors naming file, line and field; YAML with line numbers; the JSON Schema."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

SCHEMA_PATH = Path(__file__).with_name("schema.json")

FieldPath = tuple[str | int, ...]


# -- errors and line numbers ---------------------------------------------------------------
class ScenarioError(ValueError):
    """A malformed scenario or log: names the file, the line and the field."""

    def __init__(self, file: str, line: int | None, field: str | None, message: str):
        self.file, self.line, self.field, self.message = file, line, field, message
        where = file + (f":{line}" if line else "")
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")


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


def parse_yaml(text: str, file: str = "<string>") -> Source:
    """Safe-load YAML text, keeping the line of every node; `ScenarioError` when it is not YAML."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
        source = Source(file, data)
        if node is not None:
            _index(loader, node, data, (), source)
        return source
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        column = f" (column {mark.column + 1})" if mark else ""
        problem = e.problem or e.context or "cannot read"
        raise ScenarioError(file, mark.line + 1 if mark else None, None,
                            f"bad YAML{column}: {problem}") from None
    except yaml.YAMLError as e:
        raise ScenarioError(file, None, None, f"bad YAML: {e}") from None
    finally:
        loader.dispose()


def _index(loader: yaml.SafeLoader, node: yaml.Node, value: Any, path: FieldPath,
           source: Source) -> None:
    """Record the line of each node under `node`; reject duplicate keys and non-finite numbers."""
    source.lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            child = path + (key,)
            source.key_lines[child] = key_node.start_mark.line + 1
            if key in seen:
                raise source.error(child, f"duplicate field {key!r}", key=True)
            seen.add(key)
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
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


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
    kind, instance = error.validator, error.instance
    if kind == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        extra = [k for k in instance if k not in known]
        return path + (extra[0],), f"unknown field {extra[0]!r} (known: {', '.join(known)})", True
    if kind == "required":
        missing = [r for r in error.validator_value if r not in instance]
        return path, f"missing field {missing[0]!r}", False
    if kind == "type":
        wanted = error.validator_value
        wanted = " or ".join(_TYPE_WORDS[t] for t in ([wanted] if isinstance(wanted, str) else wanted))
        return path, f"expected {wanted}, got {describe(instance)}", False
    if kind == "not" and "description" in error.validator_value:
        last = error.validator_value.get("required", [None])[-1]
        return path + ((last,) if last else ()), error.validator_value["description"], bool(last)
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
