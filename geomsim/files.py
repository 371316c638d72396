"""Writing files atomically and durably, the one way every writer of geomsim writes; reading
a user's file within a limit, the one way every reader of geomsim reads (`read_bytes`).

A file is written to a hidden temporary file beside its target, flushed to the disk (`fsync`),
renamed over the target, and the folder is flushed so that the rename itself is on the disk. A
reader, also after a crash or a power loss, finds the whole old file or the whole new one, never
a mix or a truncated file. The file gets the permissions of a normally created one (``0666``
less the umask; an existing file keeps its own), not the ``0600`` of a temporary file.

A failure is one `WriteError` that names the target (never the temporary file) and the reason:
a read-only folder, a full disk, a parent that is a file.

`read_bytes` reads only regular files, and at most its limit of bytes: a device such as
``/dev/zero`` reports a size of 0 and never ends, a FIFO (or ``/dev/stdin`` on a terminal)
blocks for ever, so neither the reported size nor the end of the file can be trusted alone.
"""

from __future__ import annotations

import errno
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


# -- reading -------------------------------------------------------------------------------
_CHUNK = 1 << 20  # bytes `read_bytes` reads at a time


class TooLarge(OSError):
    """A file over its reader's limit: `size` in bytes (None when it grew past `limit` while it
    was read), `limit`; the message says both in one line."""

    def __init__(self, path: str | os.PathLike[str], size: int | None, limit: int):
        amount = f"{size:,} bytes" if size is not None else f"more than {limit:,} bytes"
        super().__init__(errno.EFBIG, f"{amount} is over the limit of {limit:,} bytes", os.fspath(path))
        self.size, self.limit = size, limit


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe (FIFO)"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def _regular(mode: int, path: str | os.PathLike[str]) -> None:
    """Raise an `OSError` naming what `path` is unless `mode` is a regular file's."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a file")
        code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
        raise OSError(code, f"not a regular file but {kind}", os.fspath(path))


def read_bytes(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file `path`: `TooLarge` when it has more than `limit` (from its
    size, before reading; or after reading ``limit + 1`` bytes, as a file may grow meanwhile);
    `OSError` when it cannot be read or is not a regular file (a device, a FIFO, a folder)."""
    if "\0" in os.fspath(path):  # os.stat would raise ValueError
        raise OSError(errno.EINVAL, "a file name cannot hold a NUL character", os.fspath(path))
    _regular(os.stat(path).st_mode, path)
    # Swapped for a FIFO between the stat and the open: O_NONBLOCK keeps the open from waiting
    # for a writer, and the fstat of what was opened refuses it.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    with open(fd, "rb", closefd=True) as f:
        info = os.fstat(fd)
        _regular(info.st_mode, path)
        if info.st_size > limit:
            raise TooLarge(path, info.st_size, limit)
        # In chunks: `f.read(limit + 1)` would reserve the whole limit before reading a byte.
        chunks, read = [], 0
        while read <= limit and (chunk := f.read(min(_CHUNK, limit + 1 - read))):
            chunks.append(chunk)
            read += len(chunk)
    if read > limit:
        raise TooLarge(path, None, limit)
    return b"".join(chunks)
