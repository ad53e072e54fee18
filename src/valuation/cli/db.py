"""Administration commands of the store (registered into `python -m valuation`, see cli.py):

    db init --db PATH [--demo]     create or migrate the database; --demo seeds the demo data set
                                   (an empty database only), then CHECKPOINT
    db stats --db PATH             counts and contracts as JSON
    db add-user --db PATH ...      add a user (e.g. the first admin); password from stdin or a prompt
    audit verify --db PATH         check the audit log's hash chain and the attached files (exit 1 when broken)

One process owns a DuckDB file. `audit verify` is handed to the running service when it holds
the file (`valuation.cli.service_link`, issue 13); the other commands say which process holds it,
what to do, and exit 3 (StoreLocked).
"""
from __future__ import annotations

import argparse
import getpass
import importlib
import os
import sys
from pathlib import Path
from typing import Any

from valuation.cli.main import print_json
from valuation.core import clock
from valuation.core.errors import ConflictError, InputError, StoreError
from valuation.core.law import COMMISSION_BODIES
from valuation.db import backup
from valuation.db.access import ROLES
from valuation.db.store import Store
from valuation.registry.offices import DIRECTORY_ACTOR, load_directory

COUNTED_TABLES: tuple[str, ...] = ("wrecks", "contracts", "items", "users", "organisations", "offices", "owners",
                                   "audit_log")
# Tables whose rows make a database "hold data" (offices and policies are reference
# data that a migration may seed, so they do not count).
DATA_TABLES: tuple[str, ...] = ("wrecks", "contracts", "items", "users", "organisations", "owners", "audit_log")


def table_counts(store: Store, tables: tuple[str, ...] = COUNTED_TABLES) -> dict[str, int]:
    """Row counts of `tables` (fixed names, in one query)."""
    sql = "SELECT " + ", ".join(f"(SELECT count(*) FROM {t}) AS {t}" for t in tables)
    row = store.fetch_one(sql) or {}
    return {t: int(row[t]) for t in tables}


def stats(store: Store) -> dict[str, Any]:
    """{"counts": {...}, "contracts": [{"code", "kind", "status"}, ...]} (contracts ordered by code)."""
    missing = [t for t in (*COUNTED_TABLES, "schema_migrations") if not store.has_table(t)]
    if missing:
        raise StoreError(f"{store.path} is not a valuation database (no table {missing[0]}); "
                         f"create it with: python -m valuation db init --db {store.path}")
    return {
        "counts": table_counts(store),
        "contracts": store.fetch("SELECT code, kind, status FROM contracts ORDER BY code"),
    }


def _print_json(doc: Any) -> None:
    print_json(doc, default=str)    # dates and Decimals of the store as text


def _remove_database(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".wal")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


def cmd_init(args: argparse.Namespace) -> int:
    path = Path(args.db)
    if args.demo:
        doc = _init_demo(path)
    else:
        existed = path.exists()
        try:
            store = Store(path)
        except BaseException:
            if not existed:  # e.g. a failed migration: leave no half-built file behind
                _remove_database(path)
            raise
        with store:
            loaded = load_directory(store)      # the offices' directory ships with the product (reference data)
            doc = {"db": str(path), "schema_version": store.schema_version(), "migrations_applied": store.applied_now,
                   "demo": False, "directory_loaded": loaded, "counts": table_counts(store)}
    _print_json(doc)
    return 0




def _init_demo(path: Path) -> dict[str, Any]:
    """`db init --demo`, all or nothing (issue 14, item 7): the demo is built in a temporary file
    beside PATH and given PATH's name only once complete, so a run killed at any point leaves PATH
    as it was (no file, or the file it was) and a rerun builds it again. PATH may be missing or an
    empty database; a demo whose load never finished (written by an older version, in place) is
    rebuilt, the old file kept beside it as PATH.incomplete-…; any other data is refused."""
    from valuation.db.audit import unfinished_load

    _remove_stale_builds(path)
    rebuilt = False
    if path.exists() or path.with_name(path.name + ".wal").exists():
        with Store(path) as store:
            counts = table_counts(store, DATA_TABLES)
            # the directory's load (db init on an empty database) is reference data, not data held
            counts["audit_log"] -= int(store.scalar("SELECT count(*) FROM audit_log WHERE actor = ?",
                                                    [DIRECTORY_ACTOR]))
            holding = {t: n for t, n in counts.items() if n}
            unfinished = unfinished_load(store) if holding else None
        if holding and unfinished is None:
            listed = ", ".join(f"{n} {t}" for t, n in holding.items())
            raise ConflictError(
                f"{path} already holds data ({listed}); --demo seeds only an empty database: "
                f"use a new --db path, or delete the file to start over")
        rebuilt = bool(holding)
    tmp = path.with_name(f".{path.name}.seeding-{os.getpid()}")
    _remove_database(tmp)
    try:
        with Store(tmp) as store:
            _seed_demo(store)
            store.checkpoint()
            doc = {"db": str(path), "schema_version": store.schema_version(),
                   "migrations_applied": store.applied_now, "demo": True, "rebuilt": rebuilt,
                   "counts": table_counts(store)}
        _give_name(tmp, path, keep_old=rebuilt)
    except BaseException:
        _remove_database(tmp)
        raise
    return doc


def _seed_demo(store: Store) -> None:
    try:
        demo = importlib.import_module("valuation.demo.suite")
    except ModuleNotFoundError as exc:
        if exc.name not in ("valuation.demo.base", "valuation.demo.suite"):
            raise
        raise StoreError("the demo data set is not part of this installation (valuation.demo.base "
                         "is missing); nothing was seeded") from exc
    from valuation.db.audit import DEMO_LOAD, LOAD_COMPLETE, LOAD_STARTED

    store.write("demo", lambda tx: tx.audit(LOAD_STARTED, DEMO_LOAD, None, None, {"load": DEMO_LOAD}))
    demo.seed_full_demo(store)
    store.write("demo", lambda tx: tx.audit(LOAD_COMPLETE, DEMO_LOAD, None, None, {"load": DEMO_LOAD}))


def _give_name(tmp: Path, path: Path, *, keep_old: bool) -> None:
    """Rename the finished build to PATH (an empty or unfinished old file moves aside first)."""
    if tmp.with_name(tmp.name + ".wal").exists():
        raise StoreError(f"the demo database {tmp} was not checkpointed")
    if path.exists() and keep_old:
        path.replace(path.with_name(f"{path.name}.incomplete-{clock.now_utc():%Y%m%d%H%M%S}"))
    wal = path.with_name(path.name + ".wal")
    if wal.exists():          # never let an old WAL be replayed onto the new file
        wal.unlink()
    os.replace(tmp, path)     # atomic on one file system: PATH is the old file or the whole demo


def _remove_stale_builds(path: Path) -> None:
    """Temporary builds of a killed run (their process is gone) are removed."""
    for stale in path.parent.glob(f".{path.name}.seeding-*"):
        pid = stale.name.rsplit("-", 1)[-1].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            stale.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cmd_stats(args: argparse.Namespace) -> int:
    with Store(args.db, read_only=True) as store:
        doc = stats(store)
    _print_json(doc)
    return 0


def _read_password(from_stdin: bool) -> str:
    if from_stdin or not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise InputError("password: the two entries differ")
    return first


def cmd_add_user(args: argparse.Namespace) -> int:
    password = _read_password(args.password_stdin)
    from valuation.accounts.users import add_user

    data = {"username": args.username, "full_name": args.full_name, "role": args.role, "password": password}
    if args.email:
        data["email"] = args.email
    if args.organisation_id is not None:
        data["organisation_id"] = args.organisation_id
    if args.commission_body:
        data["commission_body"] = args.commission_body
    if args.office:
        data["office_code"] = args.office
    with Store(args.db, must_exist=True) as store:
        new_id = add_user(store, data, actor="cli")
    _print_json({"id": new_id, "username": data["username"].strip().lower(), "role": args.role})
    return 0


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from valuation.db.shared import using
    from valuation.jobs.integrity import verify_everything

    with using(args.db, read_only=True) as store:   # the service's own Store when it runs the command
        if not store.has_table("audit_log"):
            raise StoreError(f"{args.db} is not a valuation database (no audit_log)")
        v = verify_everything(store)            # the chain, every stored file, the derived tables (issue 45)
    files, head = v.files, v.head
    _print_json({"ok": v.ok, "first_bad_id": v.first_bad_id, "message": v.chain_message,
                 "head": None if head is None else {"id": int(head["id"]), "hash": head["hash"]},
                 "files": {"ok": files.ok, "checked": files.checked, "missing": list(files.missing),
                           "altered": list(files.altered), "message": files.message},
                 "derived": {"ok": v.derived_ok, "rows": v.derived_rows, "message": v.derived_message}})
    if not v.chain_ok:
        print(f"audit log: chain broken at row {v.first_bad_id}" if v.first_bad_id is not None
              else f"audit log: {v.chain_message}", file=sys.stderr)
    if not files.ok:
        print(f"stored files: {len(files.missing)} missing, {len(files.altered)} altered", file=sys.stderr)
    if not v.derived_ok:
        print(f"derived tables: {v.derived_message}", file=sys.stderr)
    return 0 if v.ok else 1


def cmd_audit_seal(args: argparse.Namespace) -> int:
    import os

    from valuation.db.audit import seal_chain
    from valuation.db.shared import using

    old_key = None
    if args.old_key_env:
        value = os.environ.get(args.old_key_env, "")
        if not value:
            raise InputError(f"--old-key-env: the environment variable {args.old_key_env} is not set")
        old_key = value.encode("utf-8")
    with using(args.db, must_exist=True) as store:
        check = seal_chain(store, actor="cli", old_key=old_key)
    _print_json({"ok": check.ok, "message": check.message, "rows": check.checked})
    return 0 if check.ok else 1


def register_cli(subparsers: Any) -> None:
    """Add the `db` and `audit` command groups (called by valuation.cli.main.build_parser)."""
    db = subparsers.add_parser("db", help="create, migrate and inspect the DuckDB store")
    dbsub = db.add_subparsers(dest="db_command", required=True)

    p = dbsub.add_parser("init", help="create or migrate the database (and seed the demo with --demo)")
    p.add_argument("--db", required=True, help="path of the DuckDB file")
    p.add_argument("--demo", action="store_true", help="seed the demo data set (empty database only)")
    p.set_defaults(handler=cmd_init)

    p = dbsub.add_parser("stats", help="row counts and contracts, as JSON")
    p.add_argument("--db", required=True, help="path of the DuckDB file")
    p.set_defaults(handler=cmd_stats)

    p = dbsub.add_parser("add-user", help="add a user (e.g. the first admin); password read from stdin")
    p.add_argument("--db", required=True, help="path of the DuckDB file")
    p.add_argument("--username", required=True)
    p.add_argument("--full-name", required=True)
    p.add_argument("--role", required=True, choices=ROLES)
    p.add_argument("--email")
    p.add_argument("--organisation-id", type=int, help="explorers: their organisation's id")
    p.add_argument("--commission-body", choices=COMMISSION_BODIES, help="commission roles")
    p.add_argument("--office", help="office officers: their office's code (e.g. CPRJ)")
    p.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    p.set_defaults(handler=cmd_add_user)

    _register_backup_commands(dbsub)

    audit = subparsers.add_parser("audit", help="the hash-chained audit log")
    asub = audit.add_subparsers(dest="audit_command", required=True)
    p = asub.add_parser("verify", help="check the hash chain; exit 1 when it is broken")
    p.add_argument("--db", required=True, help="path of the DuckDB file")
    p.set_defaults(handler=cmd_audit_verify)
    p = asub.add_parser("seal", help="seal the chain's anchor under VALUATION_AUDIT_KEY (switching the key on, "
                                     "or rotating it with --old-key-env) after verifying the whole chain")
    p.add_argument("--db", required=True, help="path of the DuckDB file")
    p.add_argument("--old-key-env", help="name of the environment variable holding the key the anchor is "
                                         "sealed with now (key rotation)")
    p.set_defaults(handler=cmd_audit_seal)


def cmd_backup(args: Any) -> int:
    from valuation.db.shared import using

    # the service's own Store when it runs the command; otherwise opened for writing (not migrated) so that
    # the backup can be recorded in the live chain (issue 24, item 1)
    with using(args.db, migrate=False, must_exist=True) as store:
        manifest = backup.backup(store, args.to)
    audit = manifest["audit"]
    vouch = manifest["vouch"]
    _print_json({"to": str(args.to), "schema_version": manifest["schema_version"],
                 "tables": {t: d["rows"] for t, d in manifest["tables"].items()}, "audit": audit,
                 "vouch": {"head_id": vouch["head_id"], "digest": vouch["digest"], "sealed": bool(vouch["seal"])},
                 "recorded": manifest["recorded"]})
    if not audit.get("ok"):
        print(f"warning: the audit chain of {args.db} does not verify: {audit.get('message')}", file=sys.stderr)
    elif not manifest["recorded"]:
        print(f"warning: the backup was not recorded in the audit chain of {args.db} (the chain's seal key "
              f"{'is missing' if vouch['seal'] is None else 'refused the write'}); its vouch is in its manifest",
              file=sys.stderr)
    return 0


def cmd_restore(args: Any) -> int:
    summary = backup.restore(args.source, args.db, accept_broken_chain=args.accept_broken_chain)
    _print_json(summary)
    if summary["accepted_broken_chain"]:
        print(f"warning: the restored audit chain does not verify ({summary['audit'].get('message')}); accepted "
              f"with {backup.BROKEN_CHAIN_OPTION} and recorded in the restored chain", file=sys.stderr)
    return 0


def _register_backup_commands(dbsub: Any) -> None:
    """`db backup` and `db restore` (issue 8): the work is valuation.db.backup."""
    p = dbsub.add_parser("backup", help="copy the database into a new directory (Parquet per table + schema)")
    p.add_argument("--db", required=True, help="path of the DuckDB file")
    p.add_argument("--to", required=True, help="new (or empty) directory for the backup")
    p.set_defaults(handler=cmd_backup)

    p = dbsub.add_parser("restore", help="create a new database file from a backup directory")
    p.add_argument("--from", dest="source", required=True, help="the backup directory")
    p.add_argument("--db", required=True, help="path of the new DuckDB file (must not exist)")
    p.add_argument(backup.BROKEN_CHAIN_OPTION, action="store_true", dest="accept_broken_chain",
                   help="restore a backup whose audit chain does not verify (recorded in the restored chain)")
    p.set_defaults(handler=cmd_restore)
