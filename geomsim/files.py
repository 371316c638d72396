"""Writing files atomically: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any


class atomic_path:
    """A context giving a temporary path beside `path`, moved onto it only on success."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def __enter__(self) -> Path:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        os.close(fd)
        self.tmp = Path(name)
        return self.tmp

    def __exit__(self, exc_type: Any, *_: Any) -> None:
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            self.tmp.unlink(missing_ok=True)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write a text file atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)
