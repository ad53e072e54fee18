"""RPO and RTO, measured (issue 24, "Losing at most an hour") on the real service and a scratch copy:

    python bench/recovery.py --db data/valuation.duckdb --contract CODE --actor USER [--split 120]

1. copies the database into a scratch folder and imports the first `split` rows of the sample
   (`import items`, data/samples/itens_galeao_santo_antonio.csv) into the contract: the hour's writes
   before the backup;
2. starts the service (`uvicorn service.asgi:app`; hourly backups on, VALUATION_BACKUP_MIRROR set): at
   start-up it takes the hourly backup (the newest one is older than the interval), copies it to the
   mirror and proves it (the restore drill); waits until /saude shows it proven;
3. imports the other rows through the running service (the CLI bridge): writes after the backup;
4. deletes the live database, its attached files and the local backup folder while the service runs
   (the disk is lost). From that instant the RTO's clock runs: the service is stopped, `db restore`
   rebuilds the database from the mirror's newest backup, the service starts on it and answers /saude;
5. runs `audit verify` through the restored service and counts the contract's items: kept (written
   before the backup) and lost (after).

Prints one JSON document: the items written before and after the backup, kept and lost, the backup's
age when the disk was lost, and the RTO in its parts (stop, restore, start). tests/jobs/
test_recovery_measured.py runs `measure` on the test world; SECURITY.md "Recovery point and recovery
time" has the figures of a run on the demo database.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _p in (str(HERE), str(ROOT / "src"), str(ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import live  # noqa: E402  (bench/live.py: the real service, as scripts/start.sh runs it)

SAMPLE = ROOT / "data" / "samples" / "itens_galeao_santo_antonio.csv"
CLI_ENV = {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cli(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "valuation", *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, env={**os.environ, **CLI_ENV})
    if done.returncode != 0:
        raise RuntimeError(f"valuation {' '.join(args[:2])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}


def _copy(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)
    if (source.parent / "files").is_dir():
        shutil.copytree(source.parent / "files", target.parent / "files")


def _split(sample: Path, split: int, work: Path) -> tuple[Path, Path, int, int]:
    """The sample's header with its first `split` rows, and with the others (bytes kept: cp1252)."""
    header, *rows = sample.read_bytes().splitlines(keepends=True)
    before, after = work / "antes.csv", work / "depois.csv"
    before.write_bytes(header + b"".join(rows[:split]))
    after.write_bytes(header + b"".join(rows[split:]))
    return before, after, len(rows[:split]), len(rows[split:])


def _health(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/saude", timeout=30) as r:
        return dict(json.loads(r.read()))


def _wait_proven(base: str, timeout: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = _health(base)
        if doc["backups"]["newest_proven"] is not None:
            return doc
        time.sleep(0.5)
    raise RuntimeError(f"no backup was proven within {timeout} s: {doc['backups']}")


def _items(db: Path, contract: str) -> int:
    from valuation.db.store import Store

    with Store(db, read_only=True) as store:
        return int(store.scalar("SELECT count(*) FROM items i JOIN contracts c ON c.id = i.contract_id "
                                "WHERE c.code = ?", [contract]))


def _lose_the_disk(db: Path, backups: Path) -> None:
    for p in (db, db.with_name(db.name + ".wal")):
        p.unlink(missing_ok=True)
    for folder in (db.parent / "files", backups):
        shutil.rmtree(folder, ignore_errors=True)


def measure(source: Path, work: Path, *, contract: str, actor: str, split: int = 120,
            sample: Path = SAMPLE) -> dict[str, Any]:
    """The procedure of the module docstring on a copy of `source` inside `work`; the figures."""
    live_dir, mirror = work / "disco", work / "espelho"
    live_dir.mkdir(parents=True)
    mirror.mkdir()
    db, backups = live_dir / "valuation.duckdb", live_dir / "backups"
    _copy(source, db)
    first, second, n_before, n_after = _split(sample, split, work)
    start_items = _items(db, contract)
    _cli("import", "items", str(first), "--db", str(db), "--contract", contract, "--actor", actor)
    env = {"VALUATION_BACKUP_EVERY": "60", "VALUATION_BACKUP_DIR": str(backups), "VALUATION_BACKUP_MIRROR": str(mirror)}
    port = _free_port()
    with live.serve(db, port, env=env) as svc:
        health = _wait_proven(svc.base)["backups"]
        proven = health["newest_proven"]
        _cli("import", "items", str(second), "--db", str(db), "--contract", contract, "--actor", actor)  # the bridge
        lost_at = time.time()
        _lose_the_disk(db, backups)
        stopping = time.monotonic()
    stopped = time.monotonic()
    _lose_the_disk(db, backups)        # what the dying service wrote after the loss (a WAL) went with the disk
    newest = sorted(p.name for p in mirror.iterdir() if not p.name.startswith("."))[-1]
    restored = _cli("db", "restore", "--from", str(mirror / newest), "--db", str(db))
    rebuilt = time.monotonic()
    with live.serve(db, port, env=env) as svc:
        started = time.monotonic()
        verified = _cli("audit", "verify", "--db", str(db))                           # through the service
    after_items = _items(db, contract)
    taken = datetime.fromisoformat(proven["taken_at"].replace("Z", "+00:00")).timestamp()
    return {"database": str(source), "contract": contract, "items_at_start": start_items,
            "written_before_backup": n_before, "written_after_backup": n_after,
            "kept": after_items - start_items, "lost": start_items + n_before + n_after - after_items,
            "backup_restored": newest, "backup_proven": proven["folder"], "audit_verify_ok": bool(verified.get("ok")),
            "restored_tables": len(restored.get("tables", {})),
            "backup_age_at_loss_s": round(lost_at - taken, 1),
            "saude_older_than_recovery_point": health["older_than_recovery_point"],
            "rto_s": {"stop": round(stopped - stopping, 2), "restore": round(rebuilt - stopped, 2),
                      "start": round(started - rebuilt, 2), "total": round(started - stopping, 2)}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, type=Path, help="the database to copy (never written)")
    parser.add_argument("--contract", required=True, help="a contract code that accepts the sample's items")
    parser.add_argument("--actor", required=True, help="a DPC user of that database")
    parser.add_argument("--split", type=int, default=120, help="sample rows written before the backup")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new temporary one, removed after)")
    args = parser.parse_args(argv)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="valuation-recovery-", dir=args.work) as tmp:
        figures = measure(args.db.resolve(), Path(tmp), contract=args.contract, actor=args.actor, split=args.split)
    print(json.dumps(figures, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
