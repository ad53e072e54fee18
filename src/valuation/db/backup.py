# Over 500 lines on purpose: the backup format is written and read here, each side checked against the other.
"""Backup and restore of the DuckDB store as Parquet files (issue 8; issue 14 item 4; issue 24).

    db backup  --db PATH --to DIR        a consistent copy: one Parquet file per table and a manifest
    db restore --from DIR --db NEWPATH [--accept-broken-chain]
                                         a new database file from such a copy (never over an existing file)

A backup directory holds `<table>.parquet` for every table but the ephemeral ones (sessions and
login throttles are never backed up: db/backup_vouch.py), `files/` with the attached files (copies,
never links: db/backup_files.py) and our `manifest.json`: per table its row count and content
digest, the sha256 of every file, the sequences, the schema version, the audit chain's head and
verification, and the vouch (one digest over every table and the head, HMAC-sealed under the audit
key). The files, the digests, the head and the vouch are read in one transaction, so the copy is
consistent even when taken from the dashboard's own process, which keeps writing meanwhile (no
write lock is held); the backup is then recorded in the live chain (`backup_taken`).

Restore runs nothing from the folder (issue 14: a `schema.sql`/`load.sql` with a `COPY … TO` wrote a
host file, `read_text` read a system file, `INSTALL httpfs` was attempted) and reads only regular
files in it, never through a link (issue 24: db/safe_files.py, db/backup_manifest.py). It builds the
schema of the backup's version from the project's own migrations in a temporary file next to NEWPATH,
then loads each table the schema knows only from `<table>.parquet`, by name, after checking its
columns and types against the schema; a table the schema does not know, or a file whose columns
differ, is refused; the ephemeral tables are never loaded. The connection that reads the Parquet
files may read only the backup folder (DuckDB's `allowed_directories`, external access off, no
extension install or autoload). Then every sequence moves past the largest id its column holds (and
to the manifest's value, which must be within SEQUENCE_MARGIN of it), every table's content digest
and the audit head are compared with the manifest, the audit chain is verified (head anchor and row
seals included), the vouch must cover the restored tables, and only then does the file get its name
(mode 0600) — refusing if NEWPATH appeared meanwhile. A backup whose chain does not verify, or whose
vouch does not cover what it restores (formats 1 and 2 have none), is refused unless
`--accept-broken-chain` is given; then the restored chain gets a permanent
`restore_broken_chain_accepted` row that `audit verify` keeps reporting (nothing is laundered).
Backups of format 1 (DuckDB's EXPORT DATABASE: schema.sql and load.sql beside the Parquet files)
restore the same way; their two SQL files are checked against the manifest and never read. Copies
left by killed runs (`.NAME.partial-PID`, `.NAME.restoring-PID`) are removed by the next run in
that folder (db/leftovers.py).

Content digest of a table: sha256 over its column names and types, then the sorted
sha256 of each row's JSON (`to_json`), so it depends on content, not on row order.

What a backup does not protect: the directory is not encrypted, and without VALUATION_AUDIT_KEY
whoever can rewrite it can recompute the manifest and the vouch too (the content then restores as
rewritten, but never runs code nor plants a session, and the chain and row seals still have to
verify); keep backups where the database's users cannot write, and compare the vouch's digest with
the `backup_taken` row of the live chain (SECURITY.md).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from valuation.core.errors import ConflictError, InputError, Problem, StoreError
from valuation.db import backup_files as attached
from valuation.db import backup_manifest as manifest_values
from valuation.db import backup_vouch as vouching
from valuation.db import leftovers, safe_files
from valuation.db.backup_manifest import DUCKDB_FILES as DUCKDB_FILES  # re-exported: the format is read there
from valuation.db.backup_manifest import FORMAT, MANIFEST, read_manifest
from valuation.db.backup_manifest import FORMATS as FORMATS
from valuation.db.backup_vouch import EPHEMERAL_TABLES as EPHEMERAL_TABLES  # re-exported (tests, docs)
from valuation.db.backup_vouch import vouch_digest as vouch_digest
from valuation.db.store import Snapshot, Store

_TABLE_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
_NEXTVAL = re.compile(r"^nextval\('([A-Za-z_][A-Za-z0-9_]*)'\)$")
_CHUNK = 1 << 20
DB_MODE = 0o600          # a restored database file; its backup folder is 0700, the files in it 0600


@dataclass(frozen=True)
class TableDigest:
    rows: int
    digest: str


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _tables(cur: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in cur.execute(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' AND database_name = current_database() "
        "ORDER BY table_name").fetchall()]


def table_digests(db: Store | duckdb.DuckDBPyConnection) -> dict[str, TableDigest]:
    """Row count and content digest of every table of the database (see the module docstring)."""
    cur = db.cursor() if isinstance(db, Store) else db
    own = cur is not db
    try:
        out: dict[str, TableDigest] = {}
        columns = _all_columns(cur)
        for table in _tables(cur):
            cols = columns.get(table, [])
            rows, agg = cur.execute(
                f"SELECT count(*), coalesce(sha256(string_agg(h, ',' ORDER BY h)), '') FROM "
                f"(SELECT sha256(CAST(to_json(__valuation_row) AS VARCHAR)) AS h FROM {_ident(table)} __valuation_row)"
            ).fetchall()[0]
            header = ";".join(f"{c} {t}" for c, t in cols)
            out[table] = TableDigest(int(rows), hashlib.sha256(f"{header}\n{agg}".encode()).hexdigest())
        return out
    finally:
        if own:
            cur.close()


def _sequences(cur: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Each sequence's next value (what nextval would return now)."""
    out: dict[str, int] = {}
    for name, start, last, inc in cur.execute(
            "SELECT sequence_name, start_value, last_value, increment_by FROM duckdb_sequences() "
            "WHERE schema_name = 'main' AND database_name = current_database() ORDER BY sequence_name").fetchall():
        out[name] = int(start) if last is None else int(last) + int(inc)
    return out


def _sequence_columns(cur: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """(sequence, table, column) for every column whose default is nextval('sequence')."""
    found = []
    for table, column, default in cur.execute(
            "SELECT table_name, column_name, column_default FROM duckdb_columns() WHERE schema_name = 'main' "
            "AND database_name = current_database() AND column_default IS NOT NULL").fetchall():
        m = _NEXTVAL.match(str(default).strip())
        if m:
            found.append((m[1], table, column))
    return found


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _schema_version(cur: duckdb.DuckDBPyConnection) -> int:
    if "schema_migrations" not in _tables(cur):
        return 0
    return int(cur.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchall()[0][0])


def _audit_state(cur: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    from valuation.db.audit import chain_head, verify_chain

    if "audit_log" not in _tables(cur):
        return {"rows": 0, "head_id": None, "head_hash": None, "ok": False, "message": "no audit_log table"}
    reader = Snapshot(cur)      # inside the backup's transaction: its snapshot
    ok, bad, message = verify_chain(reader)
    head = chain_head(reader)
    return {"rows": int(reader.scalar("SELECT count(*) FROM audit_log")),
            "head_id": None if head is None else int(head["id"]), "head_hash": None if head is None else head["hash"],
            "ok": ok, "first_bad_id": bad, "message": message}


def backup(store: Store, dest: str | Path, *, actor: str = "cli") -> dict[str, Any]:
    """Write a consistent Parquet copy of `store` into the new directory `dest`; returns the manifest
    (with `recorded`: whether the backup was recorded in the live chain by `actor`).

    `dest` must not exist or be an empty directory. The copy is written beside it and renamed
    into place once complete, so a failed backup leaves no half-written `dest`. Sessions and login
    throttles are never copied; the manifest's vouch covers every other table (db/backup_vouch.py).
    """
    dest = Path(dest)
    leftovers.clean_noted(store.path)       # killed backups' copies wherever they were written (issue 45, item 13)
    staging = _staging_for(dest, store.path)
    cur = store.cursor()
    try:
        cur.execute("BEGIN TRANSACTION")   # one snapshot for the files, the digests and the head
        try:
            _write_tables(cur, staging)
            digests = {t: d for t, d in table_digests(cur).items() if t not in vouching.EPHEMERAL_TABLES}
            manifest: dict[str, Any] = {
                "format": FORMAT,
                "created_at": store.now().isoformat(timespec="seconds"),
                "source": str(Path(store.path).resolve()),
                "duckdb_version": duckdb.__version__,
                "schema_version": _schema_version(cur),
                "tables": {t: {"rows": d.rows, "digest": d.digest} for t, d in digests.items()},
                "sequences": _sequences(cur),
                "audit": _audit_state(cur),
            }
            manifest["vouch"] = vouching.make(FORMAT, manifest["tables"], manifest["audit"])
            attached_digests = attached.referenced_digests(cur)   # files step (below): same snapshot
        except BaseException:
            try:
                cur.execute("ROLLBACK")
            except duckdb.Error:
                pass
            raise
        cur.execute("COMMIT")
    except duckdb.Error as exc:
        _remove_tree(staging)
        raise StoreError(f"backup of {store.path} failed: {exc}") from exc
    except BaseException:
        _remove_tree(staging)
        raise
    finally:
        cur.close()
    try:
        # -- attached files (issue 16): copied, each checked, into <backup>/files/ab/cd/<sha256> --
        manifest[attached.MANIFEST_KEY] = attached.copy_into_backup(store.path, attached_digests, staging)
        # -- end of the attached files step --
        manifest["files"] = {p.name: _file_sha256(p) for p in sorted(staging.iterdir()) if p.is_file()}
        for p in staging.iterdir():
            if p.is_file():
                os.chmod(p, 0o600)
        (staging / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        os.chmod(staging / MANIFEST, 0o600)
        if dest.exists():
            dest.rmdir()   # empty (checked above)
        staging.rename(dest)
    except OSError as exc:                  # a full disk, a folder removed meanwhile: a refusal, not a crash
        _remove_tree(staging)
        raise StoreError(f"backup to {dest} failed: {exc.strerror or exc}") from exc
    except BaseException:
        _remove_tree(staging)
        raise
    manifest["recorded"] = vouching.record(store, manifest["vouch"], manifest["audit"], dest, actor)
    return manifest


def _staging_for(dest: Path, db_path: str) -> Path:
    """The new, empty staging folder beside `dest` (checked to be a new or empty folder whose parent
    can be created), its folder noted in the database's journal first (`leftovers.note`: a kill leaves the
    copy where the next backup and the service look); a folder that cannot be created is a refusal naming
    --to (issue 24, item 17)."""
    try:
        if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            raise ConflictError(f"{dest} already exists and is not an empty directory; choose a new --to directory")
        dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        leftovers.clean(dest.parent)        # copies left by killed runs (issue 24, item 15)
        leftovers.note(db_path, dest.parent)
        staging = dest.parent / f".{dest.name}.partial-{os.getpid()}"
        _remove_tree(staging)
        staging.mkdir(mode=0o700)
    except OSError as exc:
        raise InputError(Problem("--to", f"{dest}: the backup folder cannot be created there "
                                         f"({exc.strerror or type(exc).__name__})")) from exc
    return staging


def _write_tables(cur: duckdb.DuckDBPyConnection, folder: Path) -> None:
    """One Parquet file per table, `<table>.parquet`, inside the caller's snapshot transaction."""
    columns = _all_columns(cur)
    for table in _tables(cur):
        if table in vouching.EPHEMERAL_TABLES:
            continue                       # never backed up, never restored (issue 24, item 1)
        if not _TABLE_NAME.match(table):
            raise StoreError(f"table {table!r}: not a name this backup can store")
        target = _literal(str(folder / f"{table}.parquet"))
        cols = ", ".join(f"CAST({_ident(c)} AS VARCHAR) AS {_ident(c)}" if t in _AS_TEXT else _ident(c)
                         for c, t in columns.get(table, []))
        cur.execute(f"COPY (SELECT {cols} FROM {_ident(table)}) TO {target} (FORMAT parquet)").fetchall()


# Parquet has no 128-bit integer: DuckDB would write a HUGEINT as a DOUBLE (losing digits), so
# these columns travel as their exact decimal text and are cast back on restore.
_AS_TEXT = frozenset({"HUGEINT", "UHUGEINT"})


def _parquet_type(sql_type: str) -> str:
    """The type a column of `sql_type` has in a backup's Parquet file."""
    return "VARCHAR" if sql_type in _AS_TEXT else sql_type


def _remove_tree(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)   # the staging copy holds the files/ folder of the attachments too


def _advance_sequences(cur: duckdb.DuckDBPyConnection, claimed: Any) -> dict[str, int]:
    """Move every sequence past the largest id its columns hold, and to the manifest's value when that
    is further (ids consumed by rolled-back writes are never reused) — after checking that value
    against the data (issue 24, item 11: a sequence of 10^15 made the restore run forever)."""
    current = _sequences(cur)
    implied = dict(current)
    for seq, table, column in _sequence_columns(cur):
        top = cur.execute(f"SELECT max({_ident(column)}) FROM {_ident(table)}").fetchall()[0][0]
        if top is not None and seq in implied:
            implied[seq] = max(implied[seq], int(top) + 1)
    problems = manifest_values.sequence_problems(claimed, implied)
    if problems:
        raise InputError(problems)
    wanted = {seq: max(implied[seq], int((claimed or {}).get(seq, 0))) for seq in implied}
    for seq, want in sorted(wanted.items()):
        have = current[seq]
        if have < want:
            cur.execute(f"SELECT max(nextval({_literal(seq)})) FROM range(?)", [want - have]).fetchall()
    return _sequences(cur)


def restore(source: str | Path, db_path: str | Path, *, accept_broken_chain: bool = False,
            actor: str = "cli") -> dict[str, Any]:
    """Create the new database `db_path` from the backup directory `source`; returns a summary.

    Refuses (ConflictError) when `db_path` exists; InputError when the backup is incomplete,
    altered, holds a table or column the schema does not know, does not reproduce the manifest's
    content digests, or — unless `accept_broken_chain` — its audit chain does not verify. Nothing
    from the folder is executed (module docstring). Nothing is left behind on failure.
    """
    source, target = Path(source).resolve(), Path(db_path)
    wal = target.with_name(target.name + ".wal")
    if target.exists() or wal.exists():
        raise ConflictError(f"{target} already exists: restore never overwrites a database; choose a new --db path")
    if not target.parent.is_dir():
        raise StoreError(f"the folder of {target} does not exist")
    leftovers.clean(target.parent)          # files left by killed restores (issue 24, item 15)
    manifest = read_manifest(source)
    version = _schema_version_of(manifest)
    tmp = target.with_name(f".{target.name}.restoring-{os.getpid()}")
    _unlink_db(tmp)
    try:
        Store(tmp, migrate_to=version).close()              # the schema, from the project's own migrations
        con = _sandboxed(tmp, source)
        try:
            ignored = _load_tables(con, source, manifest, version)
            sequences = _advance_sequences(con, manifest.get("sequences"))
            digests = table_digests(con)
            audit_state = _audit_state(con)
            file_problems = attached.check_backup(source, manifest, con)   # attached files, checked
            con.execute("CHECKPOINT").fetchall()
        finally:
            con.close()
        problems = _digest_problems(manifest["tables"], digests) + list(file_problems) \
            + manifest_values.audit_problems(manifest.get("audit"), audit_state)
        if problems:
            raise InputError(problems)
        restored = {t: {"rows": d.rows, "digest": d.digest} for t, d in digests.items()}
        unvouched, vouch = vouching.check(manifest.get("vouch"), restored, audit_state)
        if not audit_state.get("ok"):
            _broken_chain(tmp, source, audit_state, accept=accept_broken_chain, actor=actor)
        elif unvouched is not None:
            _broken_chain(tmp, source, {"message": unvouched, "first_bad_id": None}, accept=accept_broken_chain,
                          actor=actor, what="the backup's vouch does not cover what it restores")
        # -- attached files (issue 16): into the new database's files folder, before it gets its name --
        files_summary = attached.restore_files(source, manifest, target)
        # -- end of the attached files step --
        safe_files.check_entry(tmp)
        os.chmod(tmp, DB_MODE)                             # explicit, whatever the umask (issue 24, item 2)
        _move_into_place(tmp, target)
    except (duckdb.Error, OSError) as exc:
        _unlink_db(tmp)
        raise StoreError(f"restore from {source} failed: {getattr(exc, 'strerror', None) or exc}") from exc
    except BaseException:
        _unlink_db(tmp)
        raise
    return {"db": str(target), "from": str(source), "schema_version": manifest.get("schema_version"),
            "tables": {t: d.rows for t, d in digests.items()}, "sequences": sequences, "audit": audit_state,
            "accepted_broken_chain": bool(accept_broken_chain and (not audit_state.get("ok") or unvouched)),
            "vouch": {**vouch, "ok": unvouched is None}, "not_restored": ignored,
            "attachment_files": files_summary}


def _schema_version_of(manifest: dict[str, Any]) -> int:
    from valuation.db.store import available_migrations

    version = manifest.get("schema_version")
    shipped = [m.version for m in available_migrations()]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1 or version not in shipped:
        raise InputError(Problem("--from", f"{MANIFEST}: schema version {version!r} is not one this program "
                                           f"knows (1 to {max(shipped)})"))
    return version


def _sandboxed(path: Path, source: Path) -> duckdb.DuckDBPyConnection:
    """A connection to `path` that may read files only inside `source`: no other file, no network,
    no extension install or autoload, and the settings locked."""
    con = duckdb.connect(str(path), config={"autoinstall_known_extensions": False,
                                            "autoload_known_extensions": False})
    try:
        con.execute("SET GLOBAL TimeZone = 'UTC'")
        con.execute(f"SET allowed_directories = [{_literal(str(source) + os.sep)}]")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    return _all_columns(con).get(table, [])


def _all_columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    """{table: [(column, type), …] in the table's order} of every table: one catalogue query (a query per table
    cost ~2 ms each, a third of a restore's checks)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, data_type in con.execute(
            "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE schema_name = 'main' "
            "AND database_name = current_database() ORDER BY table_name, column_index").fetchall():
        out.setdefault(str(table), []).append((str(column), str(data_type)))
    return out


def _load_order(con: duckdb.DuckDBPyConnection, tables: list[str]) -> list[str]:
    """`tables` with every table after the tables its foreign keys reference."""
    refs: dict[str, set[str]] = {t: set() for t in tables}
    for table, referenced in con.execute(
            "SELECT table_name, referenced_table FROM duckdb_constraints() WHERE constraint_type = 'FOREIGN KEY' "
            "AND schema_name = 'main' AND database_name = current_database()").fetchall():
        if table in refs and referenced in refs and referenced != table:
            refs[table].add(referenced)
    ordered: list[str] = []
    while refs:
        ready = sorted(t for t, deps in refs.items() if not deps - set(ordered))
        if not ready:                       # a cycle (none in our schema): the rest in name order
            ready = sorted(refs)
        ordered += ready
        for t in ready:
            refs.pop(t)
    return ordered


def _load_tables(con: duckdb.DuckDBPyConnection, source: Path, manifest: dict[str, Any],
                 version: int) -> dict[str, int]:
    """Each table of the manifest, from `<table>.parquet` only, into the schema built by the migrations;
    the ephemeral tables (sessions, throttles) are never loaded: returns their ignored row counts."""
    from valuation.db.audit import HEAD_DDL, HEAD_TABLE

    wanted = manifest["tables"]
    names = [t for t in wanted if isinstance(t, str)]
    if HEAD_TABLE in names:
        con.execute(HEAD_DDL)               # created with the first audited write, not by a migration
    known = set(_tables(con))
    problems = [Problem("--from", f"table {t!r} is not part of schema version {version}: refused")
                for t in sorted(set(names) - known)] + \
               [Problem("--from", f"table {t} of schema version {version} is missing from the backup")
                for t in sorted(known - set(names) - {"schema_migrations", *vouching.EPHEMERAL_TABLES})]
    files = manifest["files"]
    for table in sorted(set(names) & known):
        if f"{table}.parquet" not in files:
            problems.append(Problem("--from", f"{table}.parquet is not listed in {MANIFEST}"))
    if problems or len(names) != len(wanted):
        raise InputError(problems or [Problem("--from", f"{MANIFEST}: a table name is not text")])
    ignored = {t: int(con.execute(f"SELECT count(*) FROM read_parquet({_literal(str(source / (t + '.parquet')))})"
                                  ).fetchall()[0][0]) for t in sorted(set(names) & set(vouching.EPHEMERAL_TABLES))}
    columns = _all_columns(con)
    for table in _load_order(con, sorted(set(names) & known - set(vouching.EPHEMERAL_TABLES))):
        _load_table(con, source / f"{table}.parquet", table, version, columns[table])
    return ignored


def _load_table(con: duckdb.DuckDBPyConnection, path: Path, table: str, version: int,
                schema: list[tuple[str, str]]) -> None:
    """`schema`: the table's columns and types in the schema built by the migrations."""
    parquet = f"read_parquet({_literal(str(path))})"
    found = [(str(r[0]), str(r[1])) for r in con.execute(f"DESCRIBE SELECT * FROM {parquet}").fetchall()]
    if found != [(c, _parquet_type(t)) for c, t in schema]:
        theirs, ours = dict(found), {c: _parquet_type(t) for c, t in schema}
        diff = sorted({c for c in set(theirs) | set(ours) if theirs.get(c) != ours.get(c)})
        raise InputError(Problem("--from", f"{table}.parquet: columns or types differ from table {table} of schema "
                                           f"version {version} ({', '.join(diff[:5]) or 'order'}): refused"))
    if table == "schema_migrations":
        _check_migrations(con, parquet, version)
        con.execute("DELETE FROM schema_migrations")
    cols = ", ".join(_ident(c) for c, _ in schema)
    values = ", ".join(f"CAST({_ident(c)} AS {t})" if t in _AS_TEXT else _ident(c) for c, t in schema)
    # a lookup a migration fills (the roles of 071) already holds its rows: only the backup's others are added
    # (a row is never deleted here — DuckDB keeps a renamed table's old name in the keys that point at it); the
    # digest check that follows proves the restored table is the backup's, row for row
    seeded = con.execute(f"SELECT count(*) FROM (SELECT 1 FROM {_ident(table)} LIMIT 1)").fetchall()[0][0]
    rows = f"SELECT {values} FROM {parquet}" + (f" EXCEPT ALL SELECT {cols} FROM {_ident(table)}" if seeded else "")
    try:
        con.execute(f"INSERT INTO {_ident(table)} ({cols}) {rows}").fetchall()
    except duckdb.ConstraintException as exc:     # a key twice, a row whose parent is missing: a bad backup
        raise InputError(Problem("--from", f"{table}.parquet violates a constraint of the schema "
                                           f"({str(exc).splitlines()[0][:200]}): refused")) from exc


def _check_migrations(con: duckdb.DuckDBPyConnection, parquet: str, version: int) -> None:
    """The backup's applied migrations are exactly this program's, up to its schema version."""
    from valuation.db.store import available_migrations

    ours = {(m.version, m.name, m.sha256) for m in available_migrations() if m.version <= version}
    theirs = {(int(v), str(n), str(h)) for v, n, h in
              con.execute(f"SELECT version, name, sha256 FROM {parquet}").fetchall()}
    if theirs != ours:
        raise InputError(Problem("--from", f"schema_migrations.parquet: the applied migrations differ from this "
                                           f"program's up to version {version}: refused"))


def _digest_problems(expected: dict[str, Any], digests: dict[str, TableDigest]) -> list[Problem]:
    """A problem for each table whose restored content differs from the manifest's digest."""
    problems = []
    for table in sorted((set(expected) | set(digests)) - set(vouching.EPHEMERAL_TABLES)):
        want, got = expected.get(table), digests.get(table)
        if want is None or got is None:
            problems.append(Problem("--from", f"table {table}: present on one side only"))
        elif (got.rows, got.digest) != (want.get("rows"), want.get("digest")):
            problems.append(Problem("--from", f"table {table}: restored content differs from the manifest "
                                              f"({got.rows} rows, expected {want.get('rows')})"))
    return problems


BROKEN_CHAIN_OPTION = "--accept-broken-chain"


def _broken_chain(tmp: Path, source: Path, state: dict[str, Any], *, accept: bool, actor: str,
                  what: str = "the audit chain of this backup does not verify") -> None:
    """Refuse a backup whose audit chain does not verify, or whose vouch does not cover what it restores;
    with `accept`, record that it was accepted (a permanent row that `audit verify` keeps reporting)."""
    from valuation.db import audit

    where = f" (registro {state.get('first_bad_id')})" if state.get("first_bad_id") is not None else ""
    if not accept:
        raise InputError(Problem("--from", f"{what}{where}: "
                                           f"{state.get('message')} Restore refused; to restore it anyway, and "
                                           f"have that recorded in the restored chain, use {BROKEN_CHAIN_OPTION}"))
    with Store(tmp) as store:
        store.write(actor, lambda tx: audit.append(
            tx.cur, at=tx.store.now(), actor=actor, action=audit.RESTORE_ACCEPTED_ACTION, entity="audit_log",
            entity_id=state.get("first_bad_id"), before=None,
            after={"from": str(source), "first_bad_id": state.get("first_bad_id"), "message": state.get("message")},
            accept_broken=True))
        store.checkpoint()


def _unlink_db(path: Path) -> None:
    for p in (path, path.with_name(path.name + ".wal")):
        try:
            p.unlink()
        except FileNotFoundError:
            pass


def _move_into_place(tmp: Path, target: Path) -> None:
    """Give the finished file its name without ever replacing an existing file."""
    tmp_wal = tmp.with_name(tmp.name + ".wal")
    if tmp_wal.exists():  # a clean close leaves none; never leave one behind under the old name
        raise StoreError(f"the restored database {tmp} was not checkpointed")
    try:
        os.link(tmp, target)           # atomic, fails if target exists
    except FileExistsError as exc:
        raise ConflictError(f"{target} appeared while restoring: restore never overwrites a database") from exc
    except OSError:                    # a file system without hard links
        fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        os.close(fd)
        os.replace(tmp, target)
        return
    tmp.unlink()
