"""Issue 8.2 — crash safety: a process killed with SIGKILL in the middle of a large write
(300 000 items plus their audit row, one transaction through `Store.write` /
`Tx.insert_frame`) leaves a file that reopens, holds all or none of the write, and passes
`audit verify`. Killed at several points: while inserting, after the insert but before
COMMIT (held there by the child, so "none" is certain), during the COMMIT (timed kills),
and right after COMMIT returned (then "all" is required: architecture.md "Durability").

The item-import command (`python -m valuation items FILE --db … --contract … --actor …`,
found through the CLI's own parser, `import items` too) is killed in the middle of a
100 000-row import as well: inside its transaction after the bulk insert, after its audit
row, and as its COMMIT starts (markers printed by hooks on `Tx.insert_frame`/`Tx.audit`).
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from valuation.cli.main import build_parser, main
from valuation.db import audit
from valuation.db.store import Store

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import KILLS as KILL_TALLY  # noqa: E402  (the kills are counted in the run's summary)

pytest_plugins = ["tests.support.fuzz_report"]
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")

ROWS = 300_000
PY = sys.executable
ACTION = "crash-test-import"
CHILD = textwrap.dedent(f"""
    import sys, time
    from datetime import date
    import pyarrow as pa
    from valuation.db.store import Store

    path, contract_id, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    store = Store(path)
    n = {ROWS}
    table = pa.table({{
        "contract_id": pa.array([contract_id] * n, pa.int64()),
        "item_code": pa.array([f"CRASH-{{i:07d}}" for i in range(n)]),
        "description": pa.array(["Fragmento de cerâmica vidrada"] * n),
        "category": pa.array(["cerâmica"] * n),
        "material": pa.array(["faiança"] * n),
        "quantity": pa.array([1] * n, pa.int32()),
        "recovered_on": pa.array([date(2025, 1, 2)] * n, pa.date32()),
    }})
    print("READY", flush=True)

    def fn(tx):
        tx.insert_frame("items", table)
        tx.audit("{ACTION}", "items", contract_id, None, {{"rows": n}})
        print("INSERTED", flush=True)          # the marker: COMMIT follows as soon as fn returns
        if mode == "hold":
            sys.stdin.readline()                # wait here, inside the open transaction

    store.write("crash-test", fn)
    print("COMMITTED", flush=True)
    store.checkpoint()
    print("CHECKPOINTED", flush=True)
    store.close()
""")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, _world_template: tuple[Path, dict[str, int]]) -> tuple[Path, int]:
    """The small world with a few audited rows already in its log (a chain to keep intact)."""
    template, ids = _world_template
    path = tmp_path_factory.mktemp("crash") / "base.duckdb"
    shutil.copyfile(template, path)
    with Store(path) as s:
        for i in range(3):
            s.write("ana", lambda tx, i=i: tx.audit("touch", "test", i, None, {"i": i}))
    return path, ids["A-1"]


def _wait_for(proc: subprocess.Popen, marker: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"child ended before {marker}: {proc.stderr.read()}")
        if line.strip() == marker:
            return
    raise AssertionError(f"no {marker} within {timeout}s")


def _kill(proc: subprocess.Popen) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _state(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, int]:
    """Reopen after the crash; (items of the write, audit rows of the write); chain verified twice."""
    with Store(path) as s:
        items = int(s.scalar("SELECT count(*) FROM items WHERE item_code LIKE 'CRASH-%'"))
        audited = int(s.scalar("SELECT count(*) FROM audit_log WHERE action = ?", [ACTION]))
        assert s.scalar("SELECT count(*) FROM items") == 10 + items       # nothing else lost or added
        ok, bad, message = audit.verify_chain(s)
        assert ok, message
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(path)]) == 0, capsys.readouterr()
    return items, audited


# (name, child mode, marker to wait for, delay after it before SIGKILL, allowed outcomes)
KILLS = [
    ("while inserting", "go", "READY", 0.3, {"none"}),
    ("inside the transaction, before COMMIT", "hold", "INSERTED", 0.0, {"none"}),
    ("during COMMIT (+0.25 s)", "go", "INSERTED", 0.25, {"none", "all"}),
    ("after COMMIT returned, before CHECKPOINT", "go", "COMMITTED", 0.0, {"all"}),
]


@pytest.mark.parametrize("name, mode, marker, delay, allowed", KILLS, ids=[k[0] for k in KILLS])
def test_sigkill_in_the_middle_of_a_large_write(base: tuple[Path, int], tmp_path: Path, capsys, name: str,
                                                mode: str, marker: str, delay: float, allowed: set[str]) -> None:
    template, contract_id = base
    path = tmp_path / "crash.duckdb"
    shutil.copyfile(template, path)
    proc = subprocess.Popen([PY, "-c", CHILD, str(path), str(contract_id), mode], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(proc, marker)
        if delay:
            time.sleep(delay)
        _kill(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    items, audited = _state(path, capsys)
    outcome = {(0, 0): "none", (ROWS, 1): "all"}.get((items, audited), f"PARTIAL {items} items, {audited} audit")
    print(f"crash-safety: killed {name}: {outcome} of the write is in the file")
    assert outcome in allowed, (name, outcome)
    KILL_TALLY.count("bulk write", outcome=outcome)
    # the file is fully usable afterwards: the next write continues the chain
    with Store(path) as s:
        s.write("after", lambda tx: tx.audit("touch", "test", "after-crash", None, {}))
        assert audit.verify_chain(s)[0]


# -- the item-import command, when it exists ------------------------------------------------------------
def _items_command() -> argparse.ArgumentParser | None:
    """The items import sub-command (`items` or `import items`), found through the CLI's parser."""
    parser = build_parser()
    for action in parser._subparsers._group_actions:            # argparse keeps its sub-commands here
        choices = getattr(action, "choices", None) or {}
        if "items" in choices:
            return choices["items"]
        group = choices.get("import")
        if group is not None and group._subparsers is not None:
            for sub in group._subparsers._group_actions:
                if "items" in (getattr(sub, "choices", None) or {}):
                    return sub.choices["items"]
    return None


def _import_argv(parser: argparse.ArgumentParser, db: Path, contract: str, file: Path) -> list[str] | None:
    """Map the command's own required options (found by name) to the database, contract, file, actor."""
    argv: list[str] = []
    names = {"db": {"--db"}, "contract": {"--contract", "--contract-code"},
             "file": {"--file", "--input", "--from", "--csv"}, "user": {"--as", "--user", "--username", "--actor"}}
    values = {"db": str(db), "contract": contract, "file": str(file), "user": "dpc.silva"}
    for act in parser._actions:
        if isinstance(act, argparse._HelpAction) or (act.option_strings and not act.required):
            continue
        if not act.option_strings:                                 # a positional: the file
            argv.append(str(file))
            continue
        for what, opts in names.items():
            hit = sorted(opts & set(act.option_strings))
            if hit:
                argv += [hit[0], values[what]]
                break
        else:
            return None                                            # a required option this test cannot fill
    return argv


# The real command with two hooks that print a marker: after the bulk insert of the items and after
# the import's audit row (both inside its one transaction, the second just before COMMIT). "hold-…"
# keeps the child there, inside the open transaction, until it is killed.
IMPORT_CHILD = textwrap.dedent("""
    import sys
    from valuation.db import store as db
    mode = sys.argv.pop(1)
    command = sys.argv[1:]
    def hook(method, marker):
        original = getattr(db.Tx, method)
        def marked(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            print(marker, flush=True)
            if mode == "hold-" + marker.lower():
                sys.stdin.readline()
            return result
        setattr(db.Tx, method, marked)
    hook("insert_frame", "INSERTED")
    hook("audit", "AUDITED")
    from valuation.cli import main as cli
    sys.exit(cli.main(command))
""")
IMPORT_ROWS = 100_000
IMPORT_KILLS = [
    ("after the bulk insert, inside the transaction", "hold-inserted", "INSERTED", {"none"}),
    ("after the audit row, before COMMIT", "hold-audited", "AUDITED", {"none"}),
    ("as COMMIT starts", "go", "AUDITED", {"none", "all"}),
]


@pytest.fixture(scope="module")
def items_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("import") / "itens.csv"
    with path.open("w", encoding="utf-8") as fh:
        fh.write("item_code;description;category;material;quantity;recovered_on;condition\n")
        fh.writelines(f"CRASH-{i:07d};Fragmento de cerâmica;cerâmica;faiança;1;02/01/2025;bom\n"
                      for i in range(IMPORT_ROWS))
    return path


@pytest.mark.parametrize("name, mode, marker, allowed", IMPORT_KILLS, ids=[k[0] for k in IMPORT_KILLS])
def test_sigkill_in_the_middle_of_the_import_command(base: tuple[Path, int], tmp_path: Path, items_csv: Path, capsys,
                                                     name: str, mode: str, marker: str, allowed: set[str]) -> None:
    parser = _items_command()
    if parser is None:
        pytest.skip("the item-import command does not exist yet")
    template, _ = base
    path = tmp_path / "import.duckdb"
    shutil.copyfile(template, path)
    argv = _import_argv(parser, path, "A-1", items_csv)
    if argv is None:
        pytest.skip("the import command has a required option this test does not know")
    command = "items" if "items" in (build_parser()._subparsers._group_actions[0].choices or {}) else "import items"
    proc = subprocess.Popen([PY, "-c", IMPORT_CHILD, mode, *command.split(), *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(proc, marker)
        _kill(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    items, audited = _state(path, capsys)
    with Store(path) as s:
        imports = int(s.scalar("SELECT count(*) FROM imports"))
        audited = int(s.scalar("SELECT count(*) FROM audit_log WHERE action = 'items_imported'"))
    outcome = {(0, 0, 0): "none", (IMPORT_ROWS, 1, 1): "all"}.get((items, imports, audited),
                                                           f"PARTIAL {items} items, {imports} imports, {audited} audit")
    print(f"crash-safety: import killed {name}: {outcome} of it is in the file")
    assert outcome in allowed, (name, outcome)
    KILL_TALLY.count("import command", outcome=outcome)
