"""Issue 45, item 14 — the product creates its data for its owner only, whatever the umask it was started with.

Reproduction (failed before the fix): under the usual login umask (022) `db init` made the database 0644,
a backup's manifest 0644 and the attached files 0640 in folders 0750 — SECURITY.md relied on a systemd
`UMask=0077`. Now the command line and the service set the umask 077 first (`safe_files.private_files`), a
new database is 0600 whatever the umask, and the files written with explicit modes are 0600 in 0700 folders.
(`scripts/start.sh` closes the data folder and an older database too: tests/service/test_newcomer.py.)
"""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support import attachments as F
from tests.support.service import CLI_ENV
from valuation.attachments import records
from valuation.db import leftovers

ROOT = Path(__file__).resolve().parent.parent.parent


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "valuation", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **CLI_ENV}, timeout=300, preexec_fn=lambda: os.umask(0o022))


def _modes(root: Path) -> dict[str, int]:
    out = {".": stat.S_IMODE(root.stat().st_mode)}
    for path in root.rglob("*"):
        out[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return out


def _open_to_others(modes: dict[str, int]) -> dict[str, str]:
    return {name: oct(mode) for name, mode in modes.items() if mode & 0o077}


def test_a_new_database_its_files_and_its_backups_are_the_owners_only(small_world: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    made = _cli("db", "init", "--db", str(data / "nova.duckdb"))
    assert made.returncode == 0, made.stderr
    assert stat.S_IMODE((data / "nova.duckdb").stat().st_mode) == 0o600

    w = small_world                                   # attached files, written by the store in this process
    records.attach(w.store, w.principal("explorer_a"), "item", w.ids["A1-001"], "photo",
                   [records.Upload("moeda.jpg", F.jpeg((300, 200)))])
    w.store.close()
    files = Path(w.path).parent / "files"
    assert not _open_to_others(_modes(files)), _open_to_others(_modes(files))

    backups = tmp_path / "backups"
    taken = _cli("db", "backup", "--db", str(w.path), "--to", str(backups / "2026-12-07"))
    assert taken.returncode == 0, taken.stderr
    assert not _open_to_others(_modes(backups)), _open_to_others(_modes(backups))
    journal = leftovers.journal_path(w.path)
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600
