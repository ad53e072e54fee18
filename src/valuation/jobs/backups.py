"""The backup jobs' folders (issue 24, "Losing at most an hour"): the hourly and the nightly backup into
dated folders of VALUATION_BACKUP_DIR, a checked copy of each into VALUATION_BACKUP_MIRROR when one is
configured, and the retention schedule (jobs/retention.py) applied in both.

- Names: the nightly backup `AAAA-MM-DD` (a second one that day `AAAA-MM-DD-HHMMSS`), the hourly one
  `AAAA-MM-DD-HHMMSS` (`-N` added to a second one within the same second), in the schedule's time zone.
  A folder is ours only with such a name, as a real folder (not a link) holding a readable manifest;
  nothing else in the folder is ever touched.
- One at a time: the backup, its mirror copy, the pruning and the restore drill (jobs/drill.py) hold an
  exclusive lock on `.valuation-backups.lock` in the backup folder (`exclusive`), across threads and
  processes, so no folder is pruned while it is written, copied or drilled.
- A backup is written under `.NAME.partial-PID` and renamed when complete (db/backup.py), so pruning
  never sees one being written; a pruned folder is first renamed to `.NAME.partial-PID` and then
  removed, so a kill mid-removal leaves a partial copy that the next run cleans (db/leftovers.py),
  never a damaged dated folder.
- Never pruned: the newest backup (its drill may not have run yet) and the newest proven one.
- The mirror: every file copied (never linked, db/safe_files.copy_checked) and checked against the
  manifest's sha256 while copied, under `.NAME.partial-PID`, then renamed. The mirror folder must exist
  (a share that is not mounted is a failure, never a folder created on the local disk).
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from valuation.core import clock
from valuation.core.errors import StoreError
from valuation.db import leftovers, safe_files
from valuation.db.backup_manifest import MANIFEST, peek
from valuation.db.blobs import FILES_DIR, blob_path
from valuation.jobs import retention
from valuation.jobs.settings import JobSettings

DATED = re.compile(r"^\d{4}-\d{2}-\d{2}(-\d{6}(-\d{1,3})?)?$")
LOCK_FILE = ".valuation-backups.lock"
PROOF_ACTION = "backup_proven"          # the live chain's record of a restore drill that passed
FILE_MODE = 0o600


@dataclass(frozen=True)
class Found:
    """A finished backup folder of ours: its name, when it was taken (naive UTC, the manifest's
    created_at) and its vouch digest (None for a backup without a vouch)."""
    name: str
    path: Path
    taken_at: datetime
    digest: str | None


@contextlib.contextmanager
def exclusive(backup_dir: Path) -> Iterator[None]:
    """Hold the backup folder's lock (blocking) for a backup, its mirror copy, pruning or a drill."""
    backup_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(backup_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)                    # releases the lock


def _taken_at(doc: dict[str, Any]) -> datetime | None:
    try:
        at = datetime.fromisoformat(str(doc.get("created_at")))
    except ValueError:
        return None
    return at.astimezone(UTC).replace(tzinfo=None) if at.tzinfo else at


# a manifest is read once per (path, inode, size, mtime): /saude and Tarefas list the folder on every request
_read: dict[tuple[str, int, int, int], tuple[datetime, str | None] | None] = {}
_read_lock = threading.Lock()


def _facts(folder: Path) -> tuple[datetime, str | None] | None:
    """(taken at, vouch digest) of the backup `folder`, or None when its manifest cannot be read."""
    try:
        st = os.lstat(folder / MANIFEST)
    except OSError:
        return None
    key = (str(folder), st.st_ino, st.st_size, st.st_mtime_ns)
    with _read_lock:
        if key in _read:
            return _read[key]
    doc = peek(folder)
    at = None if doc is None else _taken_at(doc)
    facts = None
    if doc is not None and at is not None:
        vouch = doc.get("vouch")
        digest = vouch.get("digest") if isinstance(vouch, dict) and isinstance(vouch.get("digest"), str) else None
        facts = (at, digest)
    with _read_lock:
        if len(_read) > 1000:
            _read.clear()
        _read[key] = facts
    return facts


def found(folder: Path) -> list[Found]:
    """Our finished backups in `folder`, oldest first (none when the folder is missing)."""
    out = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        if not DATED.match(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        facts = _facts(Path(entry.path))
        if facts is None:
            continue                    # not finished, or damaged: never ours to remove
        out.append(Found(entry.name, Path(entry.path), *facts))
    return sorted(out, key=lambda f: (f.taken_at, f.name))


def proofs(store: Any) -> dict[tuple[str, str], datetime]:
    """(folder, vouch digest) → when a restore drill proved it, from the live chain."""
    rows = store.fetch("SELECT entity_id AS folder, json_extract_string(after_json, '$.digest') AS digest, "
                       "max(\"at\") AS at FROM audit_log WHERE action = ? AND entity = 'backup' GROUP BY 1, 2",
                       [PROOF_ACTION])
    return {(str(r["folder"]), str(r["digest"])): r["at"] for r in rows}


def newest_proven(backups: list[Found], proven: dict[tuple[str, str], datetime]) -> Found | None:
    for b in reversed(backups):
        if b.digest is not None and (b.name, b.digest) in proven:
            return b
    return None


def _new_folder(backup_dir: Path, local_now: datetime, *, nightly: bool) -> Path:
    dest = backup_dir / f"{local_now:%Y-%m-%d}"
    if not nightly or os.path.lexists(dest):
        dest = backup_dir / f"{local_now:%Y-%m-%d-%H%M%S}"
    n = 1
    while os.path.lexists(dest) and n < 1000:            # a second backup within the same second
        dest, n = backup_dir / f"{local_now:%Y-%m-%d-%H%M%S}-{n}", n + 1
    return dest


def _local(at: datetime, tz: ZoneInfo) -> datetime:
    return at.replace(tzinfo=UTC).astimezone(tz)


def prune(folder: Path, schedule: retention.Schedule, tz: ZoneInfo, protected: set[str]) -> list[str]:
    """Remove the backups of `folder` that `schedule` does not keep; the newest one and `protected`
    are always kept. Returns the names removed (the caller holds `exclusive`)."""
    backups = found(folder)
    if not backups:
        return []
    keep = protected | {backups[-1].name}
    gone = retention.removable([(b.name, _local(b.taken_at, tz)) for b in backups], schedule, keep)
    leftovers.clean(folder)
    for name in gone:
        doomed = folder / f".{name}.partial-{os.getpid()}"
        os.rename(folder / name, doomed)          # atomic: from here on a leftover, never a damaged backup
        shutil.rmtree(doomed)
    return gone


def copy_to_mirror(source: Path, mirror: Path) -> Path:
    """A checked copy of the backup folder `source` as `mirror/<name>` (module docstring)."""
    safe_files.check_entry(mirror, folder=True)   # FileNotFoundError when the share is not there
    target = mirror / source.name
    if os.path.lexists(target):
        raise StoreError(f"{target} já existe no espelho")
    doc = peek(source)
    if doc is None:
        raise StoreError(f"{source}: o manifesto da cópia não pode ser lido")
    leftovers.clean(mirror)
    staging = mirror / f".{source.name}.partial-{os.getpid()}"
    if os.path.lexists(staging):
        shutil.rmtree(staging)
    os.mkdir(staging, 0o700)
    try:
        for name, sha in sorted(doc["files"].items()):
            safe_files.copy_checked(source / name, staging / name, sha, mode=FILE_MODE)
        listed = (doc.get("attachment_files") or {}).get("sha256") or []
        for sha in listed:
            rel = blob_path(Path(), sha)
            safe_files.make_dirs(staging, (FILES_DIR, *rel.parts[:-1]), mode=0o700)
            safe_files.copy_checked(blob_path(source / FILES_DIR, sha), staging / FILES_DIR / rel, sha,
                                    mode=FILE_MODE)
        safe_files.copy_checked(source / MANIFEST, staging / MANIFEST, safe_files.sha256_of(source / MANIFEST),
                                mode=FILE_MODE)
        os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def take(store: Any, settings: JobSettings, *, nightly: bool) -> str:
    """The hourly or nightly backup: a dated folder, its mirror copy, the schedule applied in both.
    Raises JobFailed (after the backup itself is kept) when the mirror copy fails."""
    from valuation.db.backup import backup
    from valuation.jobs.maintenance import JobFailed

    local_now = clock.now_utc().astimezone(settings.tz)
    mirror_problem = ""
    with exclusive(settings.backup_dir):
        dest = _new_folder(settings.backup_dir, local_now, nightly=nightly)
        manifest = backup(store, dest, actor="agenda")
        proven = newest_proven(found(settings.backup_dir), proofs(store))
        protected = set() if proven is None else {proven.name}
        removed = prune(settings.backup_dir, settings.retention, settings.tz, protected)
        mirrored = 0
        if settings.mirror is not None:
            try:
                copy_to_mirror(dest, settings.mirror)
                mirrored = len(prune(settings.mirror, settings.retention, settings.tz, protected))
            except FileNotFoundError:
                mirror_problem = (f" O espelho {settings.mirror} falhou: a pasta não existe (o compartilhamento "
                                  "está montado?).")
            except (OSError, StoreError) as exc:
                why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                mirror_problem = f" O espelho {settings.mirror} falhou: {why}."
    rows = sum(t["rows"] for t in manifest["tables"].values())
    message = (f"Cópia em {dest} ({_plural(len(manifest['tables']), 'tabela', 'tabelas')}, {rows} linhas); "
               f"{_plural(len(removed), 'cópia antiga removida', 'cópias antigas removidas')} pela agenda de retenção")
    if settings.mirror is not None and not mirror_problem:
        message += f"; copiada para o espelho ({_plural(mirrored, 'antiga removida', 'antigas removidas')} lá)"
    if mirror_problem:
        raise JobFailed(message + "." + mirror_problem)
    return message + "."
