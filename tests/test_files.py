"""The one atomic writer: whole files only, synced to the disk, normal permissions, and every
failure one line naming the file meant (never the hidden temporary file)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from geomsim import files
from geomsim.files import WriteError, atomic_path, write_text


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    """Set the process's umask for a test, and restore it."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_file_has_the_permissions_the_umask_gives(tmp_path, umask, mask, mode):
    umask(mask)
    assert files.umask() == mask
    assert _mode(write_text(tmp_path / "new.json", "{}\n")) == mode


def test_an_existing_file_keeps_its_permissions(tmp_path, umask):
    target = tmp_path / "kept.md"
    target.write_text("old")
    target.chmod(0o664)
    write_text(target, "new")
    assert target.read_text() == "new" and _mode(target) == 0o664


def test_the_file_is_synced_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    """What survives a power loss: the new file's data is on the disk before it replaces the
    old one, and the rename is on the disk before the writer returns."""
    calls = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        calls.append(("fsync", "folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"))
        real_fsync(fd)

    def replace(src, dst):
        calls.append(("replace", Path(dst).name))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_text(tmp_path / "setup.json", "{}\n")
    assert calls == [("fsync", "file"), ("replace", "setup.json"), ("fsync", "folder")]


def test_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path, monkeypatch):
    target = tmp_path / "summary.md"
    target.write_text("old")

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as write() raises it: no name

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(WriteError) as caught:
        write_text(target, "new")
    assert str(caught.value) == f"cannot write {target}: No space left on device"
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["summary.md"]


def test_a_read_only_folder_names_the_target_not_the_temporary_file(tmp_path, monkeypatch):
    def refused(*args, dir=None, **kwargs):  # as mkstemp fails in a read-only folder
        raise PermissionError(errno.EACCES, "Permission denied", f"{dir}/.setup.json.tfcqzrjg")

    monkeypatch.setattr(files.tempfile, "mkstemp", refused)
    with pytest.raises(WriteError, match=r"^cannot write .*/setup\.json: Permission denied$"):
        write_text(tmp_path / "setup.json", "{}")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_really_read_only_folder_is_one_line(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as root: permissions do not stop writes")
        with pytest.raises(WriteError, match=r"^cannot write .*ro/x\.json: Permission denied$"):
            write_text(folder / "x.json", "{}")
    finally:
        folder.chmod(0o755)


def test_a_parent_that_is_a_file_is_named(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(WriteError, match=r"cannot write .*f/sub/x\.png: .*/f is a file, not a folder"):
        with atomic_path(tmp_path / "f" / "sub" / "x.png") as tmp:
            tmp.write_bytes(b"never")


def test_a_failing_writer_leaves_no_temporary_file_and_its_own_error(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with atomic_path(tmp_path / "x.gif") as tmp:
            assert tmp.suffix == ".gif" and tmp.parent == tmp_path  # a writer may pick by suffix
            tmp.write_bytes(b"half")
            1 / 0
    assert list(tmp_path.iterdir()) == []
