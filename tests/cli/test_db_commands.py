"""`python -m valuation db init|stats|add-user` and `audit verify`, run as real subprocesses."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import CONTRACTS, NOW
from valuation.accounts.login import authenticate
from valuation.db.store import Store
from valuation.registry.office_directory import OFFICES

PY = sys.executable
TIMEOUT = 60


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "valuation", *args], input=stdin, capture_output=True, text=True,
                          timeout=TIMEOUT)


def run_with_fake_demo(seed_body: str, *args: str) -> subprocess.CompletedProcess:
    """Run the CLI with a stand-in demo (`valuation.demo.suite.seed_full_demo`, what `db init --demo`
    calls) and a marker printed when the store is checkpointed."""
    body = textwrap.indent(textwrap.dedent(seed_body).strip(), "    ")
    code = "\n".join([
        "import sys, types",
        "from valuation.db.store import Store",
        "demo = types.ModuleType('valuation.demo.suite')",
        "def seed_full_demo(store):",
        body,
        "demo.seed_full_demo = seed_full_demo",
        "sys.modules['valuation.demo.suite'] = demo",
        "real_checkpoint = Store.checkpoint",
        "def checkpoint(self):",
        "    real_checkpoint(self)",
        "    print('CHECKPOINTED', file=sys.stderr)",
        "Store.checkpoint = checkpoint",
        "from valuation.cli.main import main",
        f"sys.exit(main({list(args)!r}))",
    ])
    return subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)


def assert_plain_failure(proc: subprocess.CompletedProcess, status: int) -> None:
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.strip()
    assert proc.stdout == ""


COUNT_KEYS = ["wrecks", "contracts", "items", "users", "organisations", "offices", "owners", "audit_log"]


def test_init_creates_and_migrates_then_stats_reports_an_empty_database(tmp_path):
    db = tmp_path / "new.duckdb"
    first = run("db", "init", "--db", str(db))
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert doc["migrations_applied"] and doc["migrations_applied"][0] == 1 and doc["demo"] is False
    # the offices' directory ships with the product: the first init loads it, the second adds nothing
    assert doc["directory_loaded"] == {"offices": len(OFFICES),
                                       "local_holidays": doc["directory_loaded"]["local_holidays"]}
    assert doc["directory_loaded"]["local_holidays"] > 0
    again = json.loads(run("db", "init", "--db", str(db)).stdout)
    assert again["migrations_applied"] == [] and again["schema_version"] == doc["schema_version"]
    assert again["directory_loaded"] == {"offices": 0, "local_holidays": 0}
    stats = run("db", "stats", "--db", str(db))
    assert stats.returncode == 0, stats.stderr
    out = json.loads(stats.stdout)
    assert list(out) == ["counts", "contracts"]
    assert list(out["counts"]) == COUNT_KEYS
    reference = {"offices": len(OFFICES), "audit_log": 1}      # the directory and its one audited load
    assert {k: v for k, v in out["counts"].items() if k not in reference} == dict.fromkeys(
        [k for k in COUNT_KEYS if k not in reference], 0) and out["contracts"] == []
    assert {k: out["counts"][k] for k in reference} == reference


def test_stats_on_the_small_world(small_world):
    small_world.store.close()                      # one process owns the file
    proc = run("db", "stats", "--db", str(small_world.path))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["counts"] == {"wrecks": 4, "contracts": 3, "items": 10, "users": 9, "organisations": 3,
                             "offices": 3, "owners": 1, "audit_log": 0}
    assert out["contracts"] == [{"code": code, "kind": c[1], "status": c[6]}
                                for code, c in sorted(CONTRACTS.items())]


def test_stats_on_a_missing_file_says_so_and_creates_nothing(tmp_path):
    db = tmp_path / "absent.duckdb"
    proc = run("db", "stats", "--db", str(db))
    assert_plain_failure(proc, 3)
    assert "no database" in proc.stderr and "db init" in proc.stderr
    assert not db.exists()


def test_demo_is_refused_on_a_database_that_holds_data(small_world):
    small_world.store.close()
    proc = run("db", "init", "--db", str(small_world.path), "--demo")
    assert_plain_failure(proc, 2)
    assert "already holds data" in proc.stderr and "4 wrecks" in proc.stderr
    with Store(small_world.path) as s:
        assert s.scalar("SELECT count(*) FROM wrecks") == 4


SEED = """
    def fill(tx):
        tx.execute("INSERT INTO offices (code, name, kind, state, city, naval_district) "
                   "VALUES ('CPRJ', 'Capitania', 'CP', 'RJ', 'Rio', 1)")
        tx.execute("INSERT INTO organisations (name, nationality, address, city, representative_name, "
                   "registered_on) VALUES ('Org', 'x', 'y', 'z', 'r', DATE '2024-01-01')")
    store.write("demo", fill)
"""


def test_init_demo_seeds_through_seed_demo_and_checkpoints(tmp_path):
    db = tmp_path / "demo.duckdb"
    proc = run_with_fake_demo(SEED, "db", "init", "--db", str(db), "--demo")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["demo"] is True and doc["counts"]["offices"] == 1 and doc["counts"]["organisations"] == 1
    assert "CHECKPOINTED" in proc.stderr
    stats = json.loads(run("db", "stats", "--db", str(db)).stdout)
    assert stats["counts"]["organisations"] == 1


def test_a_failing_seed_leaves_no_new_file_behind(tmp_path):
    db = tmp_path / "demo.duckdb"
    proc = run_with_fake_demo("raise RuntimeError('seed broke')", "db", "init", "--db", str(db), "--demo")
    assert_plain_failure(proc, 1)
    assert "internal error (RuntimeError)" in proc.stderr
    assert not db.exists() and not Path(str(db) + ".wal").exists()


HOLDER = textwrap.dedent("""
    import sys
    from valuation.db.store import Store
    store = Store(sys.argv[1])
    print("ready", flush=True)
    sys.stdin.readline()          # hold the file until the test closes our stdin
    store.close()
""")


def test_a_file_held_by_another_process_is_reported_plainly(tmp_path):
    db = tmp_path / "held.duckdb"
    Store(db).close()
    holder = subprocess.Popen([PY, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        for args in (("db", "stats", "--db", str(db)), ("db", "init", "--db", str(db)),
                     ("audit", "verify", "--db", str(db))):
            proc = run(*args)
            assert_plain_failure(proc, 3)
            assert f"PID {holder.pid}" in proc.stderr
            assert "in use by another process" in proc.stderr and "stop the dashboard" in proc.stderr
            assert "dashboard's pages" in proc.stderr
    finally:
        holder.stdin.close()
        holder.wait(timeout=TIMEOUT)
    assert run("db", "stats", "--db", str(db)).returncode == 0     # released: usable again
    assert db.exists()


def test_audit_verify_detects_tampering(tmp_path):
    db = tmp_path / "a.duckdb"
    Store(db).close()
    for name in ("ana.admin", "bia.dpc"):
        role = "admin" if name.endswith("admin") else "dpc"
        proc = run("db", "add-user", "--db", str(db), "--username", name, "--full-name", name, "--role", role,
                   "--password-stdin", stdin="uma-senha-comprida\n")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["username"] == name
    ok = run("audit", "verify", "--db", str(db))
    assert ok.returncode == 0 and json.loads(ok.stdout)["ok"] is True
    with Store(db) as s:
        assert authenticate(s, "ana.admin", "uma-senha-comprida", now=NOW).role == "admin"
        s.write("mallory", lambda tx: tx.execute("UPDATE audit_log SET actor = 'x' WHERE id = 1"))
    bad = run("audit", "verify", "--db", str(db))
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["first_bad_id"] == 1 and "Traceback" not in bad.stderr


def test_add_user_with_bad_input_exits_2(tmp_path):
    db = tmp_path / "u.duckdb"
    Store(db).close()
    proc = run("db", "add-user", "--db", str(db), "--username", "x y", "--full-name", "X", "--role", "explorer",
               "--password-stdin", stdin="curta\n")
    assert_plain_failure(proc, 2)
    lines = proc.stderr.strip().splitlines()
    assert {line.split(":")[0] for line in lines} == {"username", "organisation_id", "password"}


def test_usage_errors_exit_2_without_traceback():
    proc = run("db", "init")
    assert proc.returncode == 2 and "--db" in proc.stderr and "Traceback" not in proc.stderr


def test_a_database_made_by_init_alone_still_takes_the_demo(tmp_path):
    """`db init` loads the offices' directory (reference data, audited): the file holds no data yet, so
    `db init --demo` may still seed it."""
    db = tmp_path / "plain.duckdb"
    assert run("db", "init", "--db", str(db)).returncode == 0
    proc = run_with_fake_demo(SEED, "db", "init", "--db", str(db), "--demo")
    assert proc.returncode == 0, proc.stderr
