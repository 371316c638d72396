"""Writing files atomically and durably, the one way every writer of geomsim writes.

A file is written to a hidden temporary file beside its target, flushed to the disk (`fsync`),
renamed over the target, and the folder is flushed so that the rename itself is on the disk. A
reader, also after a crash or a power loss, finds the whole old file or the whole new one, never
a mix or a truncated file. The file gets the permissions of a normally created one (``0666``
less the umask; an existing file keeps its own), not the ``0600`` of a temporary file.

A failure is one `WriteError` that names the target (never the temporary file) and the reason:
a read-only folder, a full disk, a parent that is a file.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Any

DIAGRAM_SUFFIXES = (".png", ".svg", ".pdf")  # the formats `geomsim.plotting.save` writes


class WriteError(OSError):
    """A file could not be written; the message is one line naming the file meant."""

    def __init__(self, path: str | os.PathLike[str], cause: OSError):
        super().__init__(f"cannot write {path}: {cause.strerror or cause}")
        self.errno = cause.errno
        self.path = Path(path)


def write_error(path: str | os.PathLike[str], cause: OSError) -> WriteError:
    """`cause` as a `WriteError` naming `path` (kept as it is if it already names a file)."""
    return cause if isinstance(cause, WriteError) else WriteError(path, cause)


def umask() -> int:
    """The process's umask (read without changing it where the system allows)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)  # elsewhere the umask can only be read by setting it
    os.umask(mask)
    return mask


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush a file, or a folder's entries, to the disk (folders: not on Windows, where
    renames are journalled and folders cannot be opened)."""
    if os.name == "nt" and Path(path).is_dir():
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_folder(folder: str | os.PathLike[str], target: str | os.PathLike[str] | None = None) -> Path:
    """Make `folder` and its parents if missing; a `WriteError` names `target` (default: the
    folder) and an ancestor that is a file."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as e:
        file = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), folder)
        raise WriteError(target or folder, OSError(e.errno, f"{file} is a file, not a folder")) from None
    except OSError as e:
        raise write_error(target or folder, e) from None
    return folder


class atomic_path:
    """A context giving a temporary path beside `path` (same suffix), moved onto `path` only
    on success, durably (see the module). Errors are `WriteError`s naming `path`."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def __enter__(self) -> Path:
        try:
            make_folder(self.path.parent, self.path)
            fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=self.path.suffix,
                                        dir=self.path.parent)
        except OSError as e:
            raise write_error(self.path, e) from None
        os.close(fd)
        self.tmp = Path(name)
        return self.tmp

    def __exit__(self, exc_type: Any, exc: BaseException | None, _: Any) -> None:
        try:
            if exc_type is None:
                self._commit()
        except OSError as e:
            exc = e
        if exc is None:
            return
        self.tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):  # written to the temporary file: name the target instead
            raise write_error(self.path, exc) from None

    def _commit(self) -> None:
        try:
            mode = stat.S_IMODE(self.path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~umask()
        os.chmod(self.tmp, mode)
        fsync_path(self.tmp)
        os.replace(self.tmp, self.path)
        fsync_path(self.path.parent)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write a text file (UTF-8) atomically and durably."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)
