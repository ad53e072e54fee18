"""Reading and writing files of a folder that someone else may have prepared (issue 24, item 2).

A backup folder is written by whoever can write it: a symbolic link in it (to a host file, or a
folder elsewhere), a FIFO, a device or a socket must never be followed, opened or written through.
The helpers here never follow a link: entries are examined with `lstat`, files are opened with
O_NOFOLLOW (and O_NONBLOCK, so a FIFO cannot block the open) and checked to be regular with
`fstat` on the open descriptor, directories are created level by level (each one checked not to
be a link) and files are written under a temporary name with O_EXCL and an explicit mode, then
renamed: a copy never shares an inode with its source (no hard links, item 4).

    problems = scan(root)                      # every entry under root: a real folder or a regular file
    digest = sha256_of(path)                   # of a regular file, never through a link
    copy_checked(src, dst, sha, mode=0o600)    # copied, checked while copied, synced, renamed into place
"""
from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
from pathlib import Path

from valuation.core.errors import StoreError

CHUNK = 1 << 20
DIR_MODE = 0o700               # the service's own files: its OS user's only (issue 45, item 14)
FILE_MODE = 0o600
PRIVATE_UMASK = 0o077          # what the product's processes create without an explicit mode: the owner's only


def private_files() -> None:
    """Make every file and folder this process creates without an explicit mode its owner's only (the
    command line's and the service's processes call it first: a database, its WAL, a backup's Parquet
    files are created by DuckDB under the umask; issue 45, item 14: start.sh's database was 0644)."""
    os.umask(PRIVATE_UMASK)


class UnsafeEntry(StoreError):
    """An entry that is not a real folder or a regular file (a link, FIFO, device or socket)."""


class TooLarge(StoreError):
    """A file larger than the caller allows (`read_regular`)."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "is a symbolic link"
    if stat.S_ISFIFO(mode):
        return "is not a regular file (a FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is not a regular file (a device)"
    if stat.S_ISSOCK(mode):
        return "is not a regular file (a socket)"
    return "is not a regular file"


def check_entry(path: Path, *, folder: bool = False) -> None:
    """`path` itself (not what it may point at) is a regular file (a real folder with `folder`)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise UnsafeEntry(f"{path.name}: unreadable ({exc.strerror or exc})") from exc
    if folder and stat.S_ISDIR(mode):
        return
    if not folder and stat.S_ISREG(mode):
        return
    if folder and not stat.S_ISLNK(mode):
        raise UnsafeEntry(f"{path.name} is not a folder")
    raise UnsafeEntry(f"{path.name} {_kind(mode) if not stat.S_ISDIR(mode) else 'is a folder'}")


def scan(root: Path, *, limit: int = 1_000_000) -> tuple[list[str], list[str]]:
    """(files, problems) under `root`, never following a link: the relative paths of its regular
    files, and one problem per entry that is a link, FIFO, device or socket (at most `limit` entries
    are examined; more is a problem too)."""
    files: list[str] = []
    problems: list[str] = []
    pending = [Path()]
    seen = 0
    while pending:
        rel = pending.pop()
        try:
            entries = sorted(os.scandir(root / rel), key=lambda e: e.name)
        except OSError as exc:
            problems.append(f"{rel}: unreadable folder ({exc.strerror or exc})")
            continue
        for entry in entries:
            seen += 1
            if seen > limit:
                return files, [*problems, f"more than {limit} entries"]
            name = str(rel / entry.name)
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                pending.append(rel / entry.name)
            elif stat.S_ISREG(mode):
                files.append(name)
            else:
                problems.append(f"{name} {_kind(mode)}")
    return sorted(files), problems


def open_regular(path: Path) -> int:
    """A read descriptor on the regular file `path`, never through a link (UnsafeEntry otherwise)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:          # the final component is a link
            raise UnsafeEntry(f"{path.name} is a symbolic link") from exc
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise UnsafeEntry(f"{path.name} {_kind(mode)}")
    return fd


def read_regular(path: Path, *, max_bytes: int) -> bytes:
    """The bytes of the regular file `path` (UnsafeEntry when larger than `max_bytes`)."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise TooLarge(f"{path.name} has {size} bytes, more than the {max_bytes} bytes allowed")
        chunks, total = [], 0
        while chunk := os.read(fd, CHUNK):
            total += len(chunk)
            if total > max_bytes:
                raise TooLarge(f"{path.name} is larger than the {max_bytes} bytes allowed")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def sha256_of(path: Path) -> str:
    """The sha256 of the regular file `path`, read without following a link."""
    fd = open_regular(path)
    h = hashlib.sha256()
    try:
        while chunk := os.read(fd, CHUNK):
            h.update(chunk)
    finally:
        os.close(fd)
    return h.hexdigest()


def make_dirs(root: Path, parts: tuple[str, ...], *, mode: int = DIR_MODE) -> Path:
    """`root/parts…`, each level created with `mode` (whatever the umask) or checked to be a real
    folder: a link at any level is refused, never followed (`root`'s own parent must exist)."""
    path = root
    for part in (None, *parts):
        if part is not None:
            path = path / part
        try:
            os.mkdir(path, mode)
        except FileExistsError:
            check_entry(path, folder=True)
            continue
        os.chmod(path, mode)
    return path


def copy_checked(source: Path, target: Path, sha: str, *, mode: int = FILE_MODE) -> int:
    """Copy the regular file `source` to `target` (whose folder exists and was checked), checking its
    sha256 while copying; written under a temporary name (O_EXCL, `mode`), synced, then renamed.
    Returns the bytes copied. A link or a non-regular file at `target` is replaced, never written
    through. StoreError when the bytes do not match `sha`."""
    fd_in = open_regular(source)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd_out = os.open(tmp, flags, mode)
        try:
            os.fchmod(fd_out, mode)
            h, total = hashlib.sha256(), 0
            while chunk := os.read(fd_in, CHUNK):
                h.update(chunk)
                total += len(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd_out, view):]
            if h.hexdigest() != sha:
                raise StoreError(f"{source.name}: the content does not match its sha256 (altered or corrupted)")
            os.fsync(fd_out)                       # on disk before its name is
        finally:
            os.close(fd_out)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    finally:
        os.close(fd_in)
    return total


def intact(path: Path, sha: str) -> bool:
    """`path` is a regular file (not a link) whose content has the sha256 `sha`."""
    try:
        return sha256_of(path) == sha
    except (FileNotFoundError, UnsafeEntry):
        return False
