"""Issue 14, item 7 — an interrupted demo seeding never leaves a half demo.

Reproduction (failed before the fix): killed mid-way, `db init --demo` left items but no rounds or
statements in PATH, a rerun refused ("already holds data"), `start.sh` opened the incomplete file
and `audit verify` called it intact. Now the demo is built in a temporary file and renamed when
complete: after a SIGKILL at a random moment PATH is either absent or the whole demo, a rerun
builds it, and a load that started without finishing is reported by `audit verify` and rebuilt.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from valuation.db import audit
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import KILLS  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
KILL_POINTS = 3
SEED = int(os.environ.get("VALUATION_KILL_SEED", "14"))


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "valuation", *args], capture_output=True, text=True, timeout=300, env=_env())


def _verify(path: Path) -> dict:
    proc = _cli("audit", "verify", "--db", str(path))
    return {"rc": proc.returncode, **(json.loads(proc.stdout) if proc.stdout else {})}


def _complete(path: Path) -> bool:
    with Store(path, read_only=True) as s:
        return bool(s.scalar("SELECT count(*) FROM statements WHERE status = 'emitido'")) and \
            audit.unfinished_load(s) is None and bool(s.scalar(
                "SELECT count(*) FROM audit_log WHERE action = ?", [audit.LOAD_COMPLETE]))


def test_a_demo_seeding_killed_at_random_moments_leaves_nothing_or_everything_and_a_rerun_rebuilds(
        tmp_path: Path) -> None:
    rng = random.Random(SEED)
    path = tmp_path / "demo.duckdb"
    for point in range(KILL_POINTS):
        delay = rng.uniform(1.0, 6.0)
        child = subprocess.Popen([PY, "-m", "valuation", "db", "init", "--db", str(path), "--demo"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
        try:
            child.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.wait()
        if path.exists():                              # the rename happened: the whole demo, intact
            assert _complete(path), (point, delay)
            assert _verify(path)["rc"] == 0
            KILLS.count("demo seeding", outcome="all")
            path.unlink()
        else:
            assert not path.with_name(path.name + ".wal").exists()
            assert _verify(path)["rc"] != 0           # no database: never "intact"
            KILLS.count("demo seeding", outcome="none")
    # What a killed in-place seeding left before the fix (the state): the base data, no rounds,
    # no statements. `audit verify` reports it, and the rerun rebuilds it (keeping the old file aside).
    from valuation.demo.base import seed_demo

    with Store(path) as s:
        s.write("demo", lambda tx: tx.audit(audit.LOAD_STARTED, "demo", None, None, {"load": "demo"}))
        seed_demo(s)
        s.checkpoint()
    doc = _verify(path)
    assert doc["rc"] == 1 and "Carga interrompida" in doc["message"]
    done = _cli("db", "init", "--db", str(path), "--demo")
    assert done.returncode == 0 and json.loads(done.stdout)["rebuilt"] is True, done.stderr
    assert _complete(path) and _verify(path)["rc"] == 0
    assert [p.name for p in tmp_path.iterdir() if ".seeding-" in p.name] == []   # no stale build left
    assert len([p for p in tmp_path.iterdir() if p.name.startswith("demo.duckdb.incomplete-")]) == 1


def test_a_database_with_real_data_is_still_refused(small_world, tmp_path: Path) -> None:
    small_world.store.close()
    done = _cli("db", "init", "--db", str(small_world.path), "--demo")
    assert done.returncode == 2 and "already holds data" in done.stderr
    with Store(small_world.path, read_only=True) as s:
        assert s.scalar("SELECT count(*) FROM statements") == 0
