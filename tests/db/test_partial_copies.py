"""Issue 24, item 15 — the partial copies of killed backups and restores are removed at the next run
and at the next start of the service, and `/saude` counts them.

Reproduction (failed before the fix): a backup SIGKILLed while it wrote left `.<name>.partial-PID/`
(a full copy of every table and attached file) and a killed restore `.<name>.restoring-PID`; nothing
ever removed them. Now every backup cleans its folder and every restore the new file's folder before
it starts (only copies whose process is gone: a live run is never touched), the service cleans its
backup folder and its database's folder at start-up, and `/saude` says how many it removed and how
many are left.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support import attachments as F
from tests.support.service import CLI_ENV, running_service
from valuation.attachments import records
from valuation.cli.main import main
from valuation.db import leftovers

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import KILLS  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]

ROOT = Path(__file__).resolve().parent.parent
CHILD = {
    "backup": "import sys; from valuation.db.store import Store; from valuation.db.backup import backup\n"
              "s = Store(sys.argv[1], migrate=False); print('GO', flush=True); backup(s, sys.argv[2])",
    "restore": "import sys; from valuation.db.backup import restore\n"
               "print('GO', flush=True); restore(sys.argv[1], sys.argv[2])",
}


def _kill_when(kind: str, args: list[str], appears: Path) -> Path:
    """Run a backup or restore in a child and SIGKILL it as soon as its partial copy (a name
    starting with `appears`, then -<pid>) exists; returns that partial copy."""
    child = subprocess.Popen([sys.executable, "-c", CHILD[kind], *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env={**os.environ, **CLI_ENV}, cwd=ROOT)
    partial = appears.with_name(f"{appears.name}-{child.pid}")
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "GO"
        deadline = time.monotonic() + 60
        while not partial.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert child.poll() is None, f"the {kind} ended before its kill: {child.stderr.read() if child.stderr else ''}"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    KILLS.count(f"partial:{kind}", outcome="left a partial copy" if partial.exists() else "none")
    return partial


@pytest.fixture
def db(small_world: Any) -> Path:
    w = small_world
    records.attach(w.store, w.principal("explorer_a"), "item", w.ids["A1-001"], "photo",
                   [records.Upload("moeda.jpg", F.jpeg((900, 600)))])
    w.store.close()
    return Path(w.path)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> int:
    capsys.readouterr()
    rc = main(list(args))
    capsys.readouterr()
    return rc


def test_a_killed_backup_leaves_a_copy_that_the_next_backup_removes(db: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    partial = _kill_when("backup", [str(db), str(folder / "2026-01-01")], folder / ".2026-01-01.partial")
    assert partial.is_dir()                                       # the reproduction: a copy was left
    assert cli(capsys, "db", "backup", "--db", str(db), "--to", str(folder / "2026-01-02")) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["2026-01-02"]


def test_a_killed_backup_to_any_folder_is_removed_by_the_next_backup_wherever_it_goes(db: Path, tmp_path: Path,
                                                                                       capsys) -> None:
    """Issue 45, item 13 — reproduction (failed before the fix): the next backup cleaned only its own folder, so
    a killed `db backup --to /elsewhere/X` left `.X.partial-PID` there for ever. The folder is noted in the
    database's journal before the backup writes; the next backup, into another folder, removes the copy."""
    elsewhere = tmp_path / "pendrive" / "valuation"
    partial = _kill_when("backup", [str(db), str(elsewhere / "2026-01-01")], elsewhere / ".2026-01-01.partial")
    assert partial.is_dir()
    assert leftovers.noted(db) == [elsewhere.resolve()]
    assert cli(capsys, "db", "backup", "--db", str(db), "--to", str(tmp_path / "backups" / "2026-01-02")) == 0
    assert not partial.exists() and list(elsewhere.iterdir()) == []
    assert leftovers.noted(db) == [(tmp_path / "backups").resolve()]     # a clean folder is forgotten next time
    journal = leftovers.journal_path(db)
    assert journal.stat().st_mode & 0o777 == 0o600


def test_a_killed_restore_leaves_a_file_that_the_next_restore_removes(db: Path, tmp_path: Path, capsys) -> None:
    assert cli(capsys, "db", "backup", "--db", str(db), "--to", str(tmp_path / "b")) == 0
    target = tmp_path / "r"
    target.mkdir()
    partial = _kill_when("restore", [str(tmp_path / "b"), str(target / "one.duckdb")],
                         target / ".one.duckdb.restoring")
    assert partial.exists() and not (target / "one.duckdb").exists()
    assert cli(capsys, "db", "restore", "--from", str(tmp_path / "b"), "--db", str(target / "two.duckdb")) == 0
    assert not [p.name for p in target.iterdir() if ".restoring-" in p.name]


def test_a_live_runs_copy_is_never_removed(db: Path, tmp_path: Path, capsys) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        folder = tmp_path / "backups"
        (folder / f".2026-01-01.partial-{sleeper.pid}").mkdir(parents=True)
        assert cli(capsys, "db", "backup", "--db", str(db), "--to", str(folder / "2026-01-02")) == 0
        assert (folder / f".2026-01-01.partial-{sleeper.pid}").is_dir()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_service_removes_them_at_start_and_saude_counts_them(db: Path, tmp_path: Path, capsys) -> None:
    backups = tmp_path / "backups"
    backups.mkdir()
    assert cli(capsys, "db", "backup", "--db", str(db), "--to", str(tmp_path / "b")) == 0
    killed = _kill_when("backup", [str(db), str(backups / "2026-01-01")], backups / ".2026-01-01.partial")
    served = tmp_path / "served"
    served.mkdir()
    shutil.copyfile(db, served / "service.duckdb")
    shutil.copytree(db.parent / "files", served / "files")
    restoring = _kill_when("restore", [str(tmp_path / "b"), str(served / "lost.duckdb")],
                           served / ".lost.duckdb.restoring")
    elsewhere = tmp_path / "elsewhere"      # issue 45, item 13: a `--to` neither the backup folder nor the database's
    away = _kill_when("backup", [str(served / "service.duckdb"), str(elsewhere / "2026-01-04")],
                      elsewhere / ".2026-01-04.partial")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    running = backups / f".2026-01-03.partial-{sleeper.pid}"
    running.mkdir()
    try:
        assert killed.exists() and restoring.exists() and away.exists()
        with running_service(served / "service.duckdb", env={"VALUATION_BACKUP_DIR": str(backups)}) as svc:
            health = json.loads(urllib.request.urlopen(svc.base + "/saude", timeout=60).read())
            assert not killed.exists() and not restoring.exists() and running.exists()
            assert not away.exists()                                   # even after a restart
    finally:
        sleeper.kill()
        sleeper.wait()
    assert health["partial_copies"] == {"removed": 3, "stale": 0, "running": 1}, health
