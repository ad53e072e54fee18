"""`python -m valuation import items FILE --db PATH --contract CODE --actor USER` (issue 4)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from valuation.cli import main as cli
from valuation.db.store import Store

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples"
GOOD = SAMPLES / "itens_galeao_santo_antonio.csv"
BAD = SAMPLES / "itens_galeao_santo_antonio_com_erros.csv"


def test_the_command_is_registered_under_import() -> None:
    assert "valuation.cli.imports:register_cli" in cli.IMPORT_COMMANDS


@pytest.fixture
def db(small_world) -> Path:
    small_world.store.close()  # one owner of the file at a time
    return small_world.path


def counts(path: Path) -> tuple[int, int, int]:
    with Store(path) as s:
        row = s.fetch_one("SELECT (SELECT count(*) FROM items) AS i, (SELECT count(*) FROM imports) AS m, "
                          "(SELECT count(*) FROM audit_log) AS a")
    return row["i"], row["m"], row["a"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["import", "items", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_good_file_is_imported_and_summarised(db, capsys):
    before = counts(db)
    code, out, err = run(capsys, str(GOOD), "--db", str(db), "--contract", "A-1", "--actor", "dpc.silva")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert (doc["rows"], doc["contract"], doc["items_in_contract"], doc["actor"]) == (200, "A-1", 206, "dpc.silva")
    assert (doc["encoding"], doc["separator"], doc["format"]) == ("cp1252", ";", "csv")
    assert counts(db) == (before[0] + 200, before[1] + 1, before[2] + 1)
    with Store(db) as s:
        audit = json.loads(s.fetch_one("SELECT after_json FROM audit_log ORDER BY id DESC LIMIT 1")["after_json"])
        assert s.fetch_one("SELECT imported_by FROM imports")["imported_by"] == "dpc.silva"
    assert audit["channel"] == "cli" and audit["os_user"] and audit["file_name"] == GOOD.name


def test_a_bad_file_names_every_bad_line_and_writes_nothing(db, capsys):
    before = counts(db)
    code, out, err = run(capsys, str(BAD), "--db", str(db), "--contract", "A-1", "--actor", "dpc.silva")
    assert (code, out) == (2, "")
    good, bad = GOOD.read_bytes().split(b"\r\n"), BAD.read_bytes().split(b"\r\n")
    differing = [n for n, (a, b) in enumerate(zip(good, bad), start=1) if a != b]
    lines = err.strip().splitlines()
    assert [int(line.split(",")[0].removeprefix("linha ")) for line in lines] == differing
    assert all(", coluna " in line and ": " in line for line in lines)
    assert "Traceback" not in err
    assert counts(db) == before


@pytest.mark.parametrize("contract, actor, words", [
    ("A-2", "dpc.silva", "art. 18"),              # survey contract
    ("A-1", "exp.beta", "não encontrado"),        # another company's contract
    ("A-1", "com.navy", "Acesso negado"),
    ("A-1", "ninguem", "--actor"),
    ("A-1", "inactive", "--actor"),               # an inactive user cannot act
])
def test_refusals_exit_2_and_write_nothing(db, capsys, contract, actor, words):
    before = counts(db)
    code, out, err = run(capsys, str(GOOD), "--db", str(db), "--contract", contract, "--actor", actor)
    assert (code, out) == (2, "")
    assert words in err and "Traceback" not in err
    assert counts(db) == before


def test_an_explorer_imports_into_its_own_contract(db, capsys):
    code, out, _ = run(capsys, str(GOOD), "--db", str(db), "--contract", "A-1", "--actor", "exp.alfa")
    assert code == 0 and json.loads(out)["actor"] == "exp.alfa"


def test_missing_file_and_database(db, tmp_path, capsys):
    code, _, err = run(capsys, str(tmp_path / "nada.csv"), "--db", str(db), "--contract", "A-1", "--actor", "dpc.silva")
    assert code == 2 and "nada.csv" in err
    code, _, err = run(capsys, str(GOOD), "--db", str(tmp_path / "x.duckdb"), "--contract", "A-1",
                       "--actor", "dpc.silva")
    assert code == 3 and "db init" in err


def test_a_database_held_by_another_process_exits_3(db):
    """The real entry point in a subprocess, while a second process holds the file."""
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time, duckdb; c = duckdb.connect(sys.argv[1]); "
                               "print('ok', flush=True); time.sleep(60)", str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        script = "import sys; from valuation.cli import main as cli; sys.exit(cli.main(sys.argv[1:]))"
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-c", script, "import", "items", str(GOOD), "--db", str(db),
                               "--contract", "A-1", "--actor", "dpc.silva"],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert done.returncode == 3 and done.stdout == ""
        assert "in use by another process" in done.stderr and "Traceback" not in done.stderr
        assert time.monotonic() - started < 30
    finally:
        holder.kill()
        holder.wait()
