"""The partial copies a killed backup or restore leaves behind (issue 24, item 15).

A backup is written into `.<name>.partial-<pid>/` beside its folder and a restore into
`.<name>.restoring-<pid>` (and its `.wal`) beside the new file; both are renamed or removed when the
run ends, but a SIGKILL leaves a full copy behind; so does a restore drill's scratch folder
`.<name>.drilling-<pid>/` (jobs/drill.py), counted as a restore. `clean(folder)` removes the ones whose process is
gone (never one of a live process, which may be running now): every backup and restore cleans its own
folder before it starts, and the service cleans its backup folder and its database's folder at
start-up. `REMOVED` counts what this process removed; `/saude` reports it with what is left
(`census`). A link with such a name is removed itself, never followed.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

_NAME = re.compile(r"^\.(?P<name>.+)\.(?P<kind>partial|restoring|drilling)-(?P<pid>\d{1,10})(?P<wal>\.wal)?$")
_lock = threading.Lock()
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


def census(*folders: Path | str) -> dict[str, int]:
    """What `/saude` reports: partial copies removed by this process, and those left in `folders`
    (stale: their process is gone; running: a backup or restore in progress)."""
    seen: dict[tuple[str, int], bool] = {}
    for folder in dict.fromkeys(Path(f).resolve() for f in folders):
        for lo in find(folder):
            seen[(f"{folder}/{lo.copy}", lo.pid)] = lo.alive
    running = sum(1 for alive in seen.values() if alive)
    stale = len(seen) - running
    with _lock:
        removed = sum(REMOVED.values())
    return {"removed": removed, "stale": stale, "running": running}
