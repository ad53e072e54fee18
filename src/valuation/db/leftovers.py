"""The partial copies a killed backup or restore leaves behind (issue 24, item 15).

A backup is written into `.<name>.partial-<pid>/` beside its folder and a restore into
`.<name>.restoring-<pid>` (and its `.wal`) beside the new file; both are renamed or removed when the
run ends, but a SIGKILL leaves a full copy behind; so does a restore drill's scratch folder
`.<name>.drilling-<pid>/` (jobs/drill.py), counted as a restore. `clean(folder)` removes the ones whose process is
gone (never one of a live process, which may be running now): every backup and restore cleans its own
folder before it starts, and the service cleans its backup folder and its database's folder at
start-up. `REMOVED` counts what this process removed; `/saude` reports it with what is left
(`census`). A link with such a name is removed itself, never followed.

A backup's `--to` may be any folder, which neither the service nor the next backup would look in (issue 45,
item 13: a killed `db backup --to /elsewhere/X` left `.X.partial-PID` there for ever). So before it writes,
a backup notes its folder in the database's journal of backup folders (`<db>.partial-folders`, mode 0600,
beside the database: `note`); `clean_noted` — run by every backup and by the service at start-up — cleans
every noted folder and forgets the ones left with no copy, and `census` counts them too.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<kind>partial|restoring|drilling)-(?P<pid>\d{1,10})(?P<wal>\.wal)?$")
_lock = threading.Lock()
JOURNAL_SUFFIX = ".partial-folders"
MAX_NOTED = 1000                  # folders a journal remembers (the oldest forgotten first)
REMOVED = {"backup": 0, "restore": 0}


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True                       # a run of this very process (another thread) may be in progress
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


@dataclass(frozen=True)
class Leftover:
    path: Path
    kind: str            # 'backup' | 'restore'
    pid: int
    alive: bool
    copy: str            # the copy's name (a restore's .wal belongs to its file)


def find(folder: Path) -> list[Leftover]:
    """The partial copies in `folder` (not recursive), their process alive or not."""
    out = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        m = _NAME.match(entry.name)
        if m is None:
            continue
        pid = int(m["pid"])
        out.append(Leftover(Path(entry.path), "backup" if m["kind"] == "partial" else "restore", pid, _alive(pid),
                            f"{m['kind']}:{m['name']}"))
    return sorted(out, key=lambda lo: lo.path.name)


def _remove(path: Path) -> None:
    mode = os.lstat(path).st_mode
    if stat.S_ISDIR(mode):
        shutil.rmtree(path)               # rmtree never follows a link inside the tree
    else:
        path.unlink()                     # a file, or a link (removed itself)


def clean(folder: Path | str) -> list[Path]:
    """Remove the partial copies in `folder` whose process is gone; returns the paths removed
    (`REMOVED` counts copies: a restore's file and its .wal are one)."""
    removed: list[Path] = []
    copies: dict[tuple[str, int], str] = {}
    for lo in find(Path(folder)):
        if lo.alive:
            continue
        try:
            _remove(lo.path)
        except FileNotFoundError:
            continue                      # removed meanwhile by another cleaner
        except OSError:
            continue                      # left for the next run; /saude keeps counting it
        removed.append(lo.path)
        copies[(lo.copy, lo.pid)] = lo.kind
    with _lock:
        for kind in copies.values():
            REMOVED[kind] += 1
    return removed


def census(*folders: Path | str, db_path: str | Path | None = None) -> dict[str, int]:
    """What `/saude` reports: partial copies removed by this process, and those left in `folders` and the
    folders noted in the journal of `db_path` (stale: their process is gone; running: a backup or restore in
    progress)."""
    seen: dict[tuple[str, int], bool] = {}
    every = [*folders, *(noted(db_path) if db_path is not None else ())]
    for folder in dict.fromkeys(Path(f).resolve() for f in every):
        for lo in find(folder):
            seen[(f"{folder}/{lo.copy}", lo.pid)] = lo.alive
    running = sum(1 for alive in seen.values() if alive)
    stale = len(seen) - running
    with _lock:
        removed = sum(REMOVED.values())
    return {"removed": removed, "stale": stale, "running": running}


# -- the journal of backup folders (issue 45, item 13) ------------------------------------------------------
def journal_path(db_path: str | Path) -> Path:
    """`<db>.partial-folders` beside the database at `db_path`."""
    db = Path(db_path).resolve()
    return db.with_name(db.name + JOURNAL_SUFFIX)


def noted(db_path: str | Path) -> list[Path]:
    """The folders noted in the journal of `db_path` (none when it is missing, unreadable or not a list)."""
    try:
        doc = json.loads(journal_path(db_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [Path(p) for p in doc if isinstance(p, str) and os.path.isabs(p)] if isinstance(doc, list) else []


def _write_journal(db_path: str | Path, folders: list[Path]) -> None:
    path = journal_path(db_path)
    if not folders:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump([str(f) for f in folders[-MAX_NOTED:]], fh)
    os.replace(tmp, path)


def note(db_path: str | Path, folder: Path | str) -> None:
    """Remember `folder` as one a backup of `db_path` writes its partial copy in (before it writes)."""
    where = Path(folder).resolve()
    with _lock:
        folders = noted(db_path)
        if where not in folders:
            _write_journal(db_path, [*folders, where])


def clean_noted(db_path: str | Path) -> list[Path]:
    """`clean` every folder the journal of `db_path` notes; forget those left with no partial copy (a live
    run's copy keeps its folder noted). Returns the paths removed."""
    removed: list[Path] = []
    for folder in noted(db_path):
        removed += clean(folder)
    with _lock:
        current = noted(db_path)          # a backup may have noted another folder meanwhile
        keep = [f for f in current if find(f)]
        if keep != current:
            _write_journal(db_path, keep)
    return removed
