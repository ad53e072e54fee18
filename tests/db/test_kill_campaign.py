"""Issue 14, the campaign raised — SIGKILL at random moments during the writes that matter most, on a
copy of the full demo: an item import (30 000 rows, through the store), a statement issue (its PDF,
lines and items), a round close (the whole round's consensus) and a backup (every table to Parquet
and the attached files). After each kill the database reopens with a verified audit chain (`audit
verify`: chain, anchor, row seals, files), and every table holds either exactly what it held before
the write or exactly what the uninterrupted write leaves (row counts of all tables compared with a
reference run): all or none. A killed backup leaves no backup directory, or a complete one that
restores. The moments are drawn from a seeded generator (`VALUATION_KILL_SEED`) over each write's
own duration; a child that finished before its kill is run again with a shorter delay, so every
run sends its `KILLS_PER_WRITE` kills per write. The kills are counted in the summary (fuzz_report).
"""
from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import kill_writes
from tests.support.db_copies import copy_database
from valuation.cli.main import main
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import KILLS  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
SEED = int(os.environ.get("VALUATION_KILL_SEED", "1401"))
KILLS_PER_WRITE = 3
IMPORT_ROWS = 30_000

# (write, upper bound of the delay in seconds after GO)
WRITES = [("import", 2.0), ("statement", 1.0), ("round", 0.8), ("backup", 4.0)]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}


def counts(path: Path) -> dict[str, int]:
    """Row count of every table (sessions and job runs are not written by these writes)."""
    with Store(path, migrate=False) as s:
        tables = [r["table_name"] for r in s.fetch(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name")]
        row = s.fetch_one("SELECT " + ", ".join(f'(SELECT count(*) FROM "{t}") AS "{t}"' for t in tables))
    assert row is not None
    return {k: int(v) for k, v in row.items()}


def verified(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = main(["audit", "verify", "--db", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, out + err


@pytest.fixture(scope="module")
def items_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kill-import") / "itens.csv"
    with path.open("w", encoding="utf-8") as fh:
        fh.write("item_code;description;category;material;quantity;recovered_on;condition\n")
        fh.writelines(f"KILL-{i:07d};Fragmento de cerâmica;cerâmica;faiança;1;02/01/2025;bom\n"
                      for i in range(IMPORT_ROWS))
    return path


def _copy(template: Path, name: str) -> Path:
    """A copy of the database file beside the template: the copies share its attached files (content-
    addressed, and none of these writes adds one), so a copy costs one file."""
    target = template.with_name(f"{name}.duckdb")
    shutil.copyfile(template, target)
    return target


def _run(write: str, path: Path, extra: str, delay: float) -> bool:
    """Run the write in a child; SIGKILL it `delay` seconds after GO. True when the kill was sent
    (False: the child had finished first)."""
    child = subprocess.Popen([PY, "-m", "tests.support.kill_writes", write, str(path), extra], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip() == "GO", (line, child.stderr.read() if child.stderr else "")
        time.sleep(delay)
        if child.poll() is not None:
            return False
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
        return child.returncode == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.mark.parametrize(("write", "longest"), WRITES, ids=[w for w, _ in WRITES])
def test_a_write_killed_at_random_moments_leaves_all_or_none(full_demo_db: Path, tmp_path: Path, items_file: Path,
                                                             capsys: pytest.CaptureFixture[str], write: str,
                                                             longest: float) -> None:
    rng = random.Random(f"{SEED}-{write}")
    template = copy_database(full_demo_db, tmp_path / "template.duckdb")
    before = counts(template)

    extra: Callable[[int], str] = (lambda n: str(tmp_path / f"backup-{n}")) if write == "backup" \
        else (lambda n: str(items_file))
    after = before                                      # a backup writes nothing into the database
    if write != "backup":
        reference = _copy(template, "reference")
        kill_writes.run(write, reference, extra(0))       # the uninterrupted write, in-process
        after = counts(reference)
        assert after != before, "the uninterrupted write changed nothing"

    kills, attempt, upper = 0, 0, longest
    while kills < KILLS_PER_WRITE:
        attempt += 1
        assert attempt <= 4 * KILLS_PER_WRITE, f"{write}: the child kept finishing before its kill"
        path = _copy(template, f"kill-{attempt}")
        if not _run(write, path, extra(attempt), rng.uniform(0.0, upper)):
            upper /= 2                                  # finished first: aim earlier
            continue
        kills += 1
        verified(path, capsys)
        now = counts(path)
        if write == "backup":
            outcome = _backup_outcome(Path(extra(attempt)), tmp_path / f"restored-{attempt}.duckdb", capsys)
            assert now == before
        else:
            outcome = "none" if now == before else "all" if now == after else "partial"
            assert outcome != "partial", {k: (before[k], now[k], after[k]) for k in now if now[k] != before[k]}
        KILLS.count(f"{write}", outcome=outcome)
        path.unlink()


def _backup_outcome(dest: Path, restored: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """No backup directory (none), or a complete one that restores into a verified database (all)."""
    if not dest.exists() or not any(dest.iterdir()):
        return "none"
    capsys.readouterr()
    code = main(["db", "restore", "--from", str(dest), "--db", str(restored)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    verified(restored, capsys)
    return "all"
