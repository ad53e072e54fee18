"""The DuckDB store: one connection per process, a cursor per thread, writes through one funnel.

Facts this design rests on (architecture.md, measured with duckdb 2.0):

- One process owns the file: a second process cannot open it, not even read-only.
  `Store()` translates that IOException into `StoreLocked` (with the holder's PID).
- A result must be read completely before its connection runs anything else:
  `fetch`/`fetch_df` read everything on a cursor of their own and close it.
- `.df()` turns DECIMAL into float: `fetch_df` goes through Arrow
  (`to_pandas(types_mapper=pd.ArrowDtype)`), so money stays `Decimal`.
- After a failed statement a transaction is aborted and a later COMMIT silently
  rolls it back: `transaction()` always ROLLBACKs on an exception and re-raises.
- Write-write conflicts raise `TransactionException`: `write()` retries the whole
  function. Writes in this process are also serialised by a lock, which keeps the
  audit chain linear (the file has one writer process anyway).
- Bulk inserts from a DataFrame/Arrow table (`Tx.insert_frame`), never row by row.
- `revision` changes with every transaction that any Store of this process commits to the same file
  (and is new for every Store opened: a number no other Store of the process had), and the process
  is the one writer of its file: what a page computed at revision r stays right while the revision
  is r (ui/cache.py, the round rows of commission/rounds.py). Two Stores of one file in a process
  (a test's and the pages' shared one) see each other's commits. A write that only keeps books no
  page shows (a session's last_seen) says `bookkeeping=True`. `memo(key, compute)` keeps such a value
  for the revision — one definition of that rule for the reference reads every page repeats (the
  policies' timelines, the offices' calendars, a round's row). A write that never changes what some
  memo keys are read from says so (`keeps`, by their first element: a member's entry keeps "round"):
  its commit carries them to the next revision, and inside it they come from the memo when nothing
  committed through any Store of the file since just before it began, nor is committing (`_settled`): its
  snapshot then holds what the memo of that revision was read from.
- `generation(topic)` is the same for one group of tables a few writers name (`Tx.changed(topic)`): it
  changes only with a commit that said so (or a migration), so what was computed from those tables alone
  outlives the other writes — a member's entry does not change the published comparables
  (commission/comparables.py). A writer of such a table that does not name its topic leaves it stale:
  each topic lists its one writer.

Migrations: `migrations/NNN_name.sql`, applied in order at start-up inside a
transaction each, recorded in `schema_migrations` with their sha256. An applied
migration whose file changed is refused: never edit an applied migration.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import date, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import duckdb

from valuation.core import clock
from valuation.core.errors import ConflictError, StoreError, StoreLocked
from valuation.db import seals

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.audit import PlannedRow

T = TypeVar("T")
Params = Sequence[Any] | Mapping[str, Any]

_MIGRATION_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
_LOCK_PID = re.compile(r"\(PID (\d+)\)")
_LOCK_PROGRAM = re.compile(r"held in (.+?) \(PID")
RETRY_PAUSE_S = 0.05  # back-off between retries of a conflicting write (times the attempt number)
MEMO_MAX = 1024   # values kept for one revision (`Store.memo`); a full memo starts again empty
_REVISIONS = itertools.count(1)  # one sequence for every Store of the process: `Store.revision`

SCHEMA_MIGRATIONS_DDL = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       VARCHAR NOT NULL,
    sha256     VARCHAR NOT NULL,
    applied_at TIMESTAMP NOT NULL
)
"""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str
    sha256: str


def available_migrations() -> list[Migration]:
    """The migration files shipped with the package, in version order."""
    folder = resources.files("valuation.db").joinpath("migrations")
    found: list[Migration] = []
    for entry in folder.iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if not m:
            continue
        sql = entry.read_text(encoding="utf-8").replace("\r\n", "\n")
        found.append(Migration(int(m[1]), m[2], sql, hashlib.sha256(sql.encode("utf-8")).hexdigest()))
    found.sort(key=lambda mig: mig.version)
    versions = [mig.version for mig in found]
    if len(set(versions)) != len(versions):
        raise StoreError("two migration files share one version number")
    return found


def utc_now() -> datetime:
    """The stored (zone-less UTC) form of the one clock, `core.clock.now_utc()`."""
    return clock.stored(clock.now_utc())


def _rows(result: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    if result.description is None:
        return []
    names = [d[0] for d in result.description]
    return [dict(zip(names, row)) for row in result.fetchall()]


def _params(params: Params | None) -> Any:
    return params if params else None


def _rollback(cur: duckdb.DuckDBPyConnection) -> None:
    try:
        cur.execute("ROLLBACK")
    except duckdb.Error:
        pass  # already rolled back (an aborted transaction, or COMMIT failed)


def _connect(path: str, read_only: bool) -> duckdb.DuckDBPyConnection:
    try:
        con = duckdb.connect(path, read_only=read_only)
    except duckdb.IOException as exc:
        text = str(exc)
        if "lock" not in text.lower():  # boundary translation: DuckDB has no class for this
            raise StoreError(f"cannot open the database {path}: {text}") from exc
        pid = _LOCK_PID.search(text)
        program = _LOCK_PROGRAM.search(text)
        holder = f"PID {pid[1]}" if pid else None
        who = holder or "another process"
        if pid and program:
            who = f"PID {pid[1]} ({program[1]})"
        raise StoreLocked(
            f"the database {path} is in use by another process ({who}). Only one process can "
            f"open a DuckDB file at a time: stop the dashboard (or that process) and run this "
            f"command again, or do this work through the dashboard's pages.",
            path=path, holder=holder,
        ) from exc
    except duckdb.Error as exc:
        raise StoreError(f"cannot open the database {path}: {exc}") from exc
    # Stored instants are UTC: DuckDB would otherwise take the process's TZ for
    # `current_timestamp` defaults and for aware datetime parameters (issue 14, item 5).
    con.execute("SET GLOBAL TimeZone = 'UTC'")   # GLOBAL: the cursors (one connection each) too
    return con


class Snapshot:
    """Reads on one cursor inside one transaction (`Store.snapshot`): every statement sees the same committed
    state, whatever commits meanwhile — a check over several reads (the audit chain, its anchor and the row
    seals; a backup's tables and digests) needs them to agree. A write's `Tx` reads the same way."""

    def __init__(self, cur: duckdb.DuckDBPyConnection):
        self.cur = cur

    def fetch(self, sql: str, params: Params | None = ()) -> list[dict[str, Any]]:
        """Run one statement and read its result completely (rows as dicts, [] for none)."""
        return _rows(self.cur.execute(sql, _params(params)))

    def fetch_one(self, sql: str, params: Params | None = ()) -> dict[str, Any] | None:
        rows = self.fetch(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Params | None = ()) -> Any:
        rows = self.cur.execute(sql, _params(params)).fetchall()
        return rows[0][0] if rows else None


class Tx(Snapshot):
    """One open transaction: run statements on `cur`, append audit rows with `audit`."""

    def __init__(self, cur: duckdb.DuckDBPyConnection, actor: str, store: Store,
                 keeps: frozenset[str] = frozenset()):
        super().__init__(cur)
        self.actor = actor
        self.store = store
        self.keeps = keeps                       # memo keys (first element) this write never changes
        self.settled: int | None = None          # the revision just before BEGIN, when nothing was committing
        self.audited = False
        self.last_audit_id: int | None = None   # the newest audit row of this transaction (row seals)
        self._planned: PlannedRow | None = None  # that row until it is written (`audit`)
        self.topics: set[str] = set()            # the topics this transaction changes (`changed`)
        # (head id, rows) of `audit.head_read` run at BEGIN with the seals' read (a small write): its first `audit`
        # plans from them instead of reading the anchor again.
        self.head_rows: tuple[int, list[Any]] | None = None
        self.appended_rows: dict[str, list[dict[str, Any]]] = {}   # per sealed table, the rows of `appended`


    def today(self) -> date:
        """The store's "today" (`Store.today`), for a check made inside the write."""
        return self.store.today()
    def memo(self, key: Any, compute: Callable[[], T]) -> T:
        """`compute()` — a transaction sees its own uncommitted rows — except for a key it keeps
        (`Store.write(keeps=…)`: it writes nothing that key is read from): that one comes from (or goes to)
        the Store's memo of the revision it began at, when no commit came or is coming in between (module
        docstring) — its snapshot and that revision's committed rows then agree there."""
        if self.settled is None or not (isinstance(key, tuple) and key and key[0] in self.keeps):
            return compute()
        found, value = self.store._memo_get(self.settled, key)
        if not found:
            value = compute()
        if _settled(self.store) != self.settled:     # a commit since BEGIN, or one under way: not that revision's
            return compute() if found else value
        if not found:
            self.store._memo_put(self.settled, key, value)
        return value

    def changed(self, topic: str) -> None:
        """This transaction writes the tables of `topic`: its generation changes at the commit
        (`Store.generation`, module docstring)."""
        self.topics.add(topic)

    def appended(self, table: str, row: Mapping[str, Any]) -> None:
        """`row` — every column, as stored (`INSERT … RETURNING *`) — was appended by this transaction to the sealed
        table `table`, and is (with the others it names) every row the transaction appends to it. A small write's
        row seals are then computed from these rows rather than read back (`seals._finish_small`), when they are
        exactly the table's rows above its mark at BEGIN; else they are read, as for a write that names none."""
        self.appended_rows.setdefault(table, []).append(dict(row))

    execute = Snapshot.fetch     # one statement, its result read completely (rows as dicts, [] for none)

    def insert_frame(self, table: str, frame: pd.DataFrame | Any) -> int:
        """Bulk insert a DataFrame or Arrow table by column name; returns the row count.

        Columns absent from `frame` take their defaults (sequences included).
        """
        if not _IDENTIFIER.match(table):
            raise StoreError(f"not a table name: {table!r}")
        view = f"_bulk_{threading.get_ident()}"
        self.cur.register(view, frame)
        try:
            self.cur.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {view}").fetchall()
        finally:
            self.cur.unregister(view)
        return len(frame)

    def audit(self, action: str, entity: str, entity_id: object,
              before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> None:
        """Append one hash-chained row to audit_log inside this transaction.

        Its place in the chain is fixed here (and a write the chain refuses raises here); the row is
        written at the next `audit` or just before COMMIT — the newest with the transaction's row seals
        (db/seals.py), so it is hashed, and the anchor moved, once. Until then it is not in audit_log."""
        from valuation.db.audit import plan

        self.flush_audit()
        hint = self.last_audit_id if self.last_audit_id is not None else self.store.audit_head_id
        read, self.head_rows = self.head_rows, None       # read at BEGIN: right for the first audit row only
        rows = read[1] if read is not None and self.last_audit_id is None and read[0] == hint else None
        self._planned = plan(self.cur, at=self.store.now(), actor=self.actor, action=action, entity=entity,
                             entity_id=entity_id, before=before, after=after, head_table=self.store.audit_head_seen,
                             head_hint=hint if self.store.audit_head_seen else None, head_rows=rows)
        self.audited = True
        self.last_audit_id = int(self._planned.row["id"])

    def flush_audit(self, seals_json: str | None = None) -> None:
        """Write the audit row planned by `audit`, if any (with `seals_json`: db/seals.py)."""
        if self._planned is not None:
            from valuation.db.audit import write_planned

            planned, self._planned = self._planned, None
            write_planned(self.cur, planned, seals_json)


_OPEN: dict[str, weakref.WeakSet[Store]] = {}     # the open Stores of each file (resolved path) of this process
_OPEN_LOCK = threading.Lock()
_COMMITTING: dict[str, int] = {}    # per file: commits between the start of their COMMIT and their new revision


def _settled(store: Store) -> int | None:
    """`store`'s revision when no commit of its file is under way in this process (None while one is): every
    commit before it has moved the revisions of the file's Stores (`Tx.memo`)."""
    with _OPEN_LOCK:
        return None if _COMMITTING.get(store.file_key) else store._revision


@contextmanager
def _committing(store: Store) -> Iterator[None]:
    """Around a COMMIT and the new revision it gives (`_file_changed`): `_settled` is None meanwhile."""
    with _OPEN_LOCK:
        _COMMITTING[store.file_key] = _COMMITTING.get(store.file_key, 0) + 1
    try:
        yield
    finally:
        with _OPEN_LOCK:
            _COMMITTING[store.file_key] -= 1


def _register(store: Store) -> None:
    with _OPEN_LOCK:
        _OPEN.setdefault(store.file_key, weakref.WeakSet()).add(store)


def _file_changed(store: Store, topics: frozenset[str] | None = None, keeps: frozenset[str] = frozenset()) -> None:
    """A commit through `store`: a new revision for every Store of its file in this process, and a new
    generation of `topics` (None: of every topic — a migration); the memo values of the revision whose
    keys the commit `keeps` (their first element) go on to the new one."""
    with _OPEN_LOCK:
        for other in list(_OPEN.get(store.file_key, ())):
            old, other._revision = other._revision, next(_REVISIONS)
            memo_revision, values = other._memo
            if keeps and memo_revision == old:
                other._memo = (other._revision, {k: v for k, v in values.items()
                                                 if isinstance(k, tuple) and k and k[0] in keeps})
            if topics is None:
                other._topics_base, other._topics = next(_REVISIONS), {}
            else:
                other._topics.update({t: next(_REVISIONS) for t in topics})


def store_of(db: Store | Tx) -> Store:
    """The Store behind a Store or an open transaction (its clock, its tables)."""
    return db.store if isinstance(db, Tx) else db


class Store:
    """The DuckDB file of one process. See the module docstring for the rules it keeps."""

    def __init__(self, path: str | Path, *, migrate: bool = True, read_only: bool = False,
                 must_exist: bool = False, clock: Callable[[], datetime] | None = None,
                 migrate_to: int | None = None) -> None:
        """Open `path` (created when missing unless `must_exist` or `read_only`) and apply pending
        migrations (unless `migrate=False` or `read_only`). Raises StoreLocked when another
        process holds the file, StoreError when it cannot be used."""
        self.path = str(path)
        self.read_only = read_only
        self._clock = clock or utc_now
        self._write_lock = threading.Lock()
        self._cursor_lock = threading.Lock()
        self._local = threading.local()
        self._closed = False
        self._revision = next(_REVISIONS)
        self._topics_base = next(_REVISIONS)     # every topic's generation until a commit names it
        self._topics: dict[str, int] = {}
        self._memo: tuple[int, dict[Any, Any]] = (self._revision, {})
        self.file_key = str(Path(self.path).resolve())    # its file, for the revision of every Store of it
        _register(self)
        self.applied_now: list[int] = []  # versions applied by this open
        # An audited write committed through this Store: the audit anchor's table exists (it
        # is only ever created, by that write; the file is held by this process meanwhile).
        self.audit_head_seen = False
        self.audit_head_id: int | None = None   # the newest audit row it committed: the head `audit.plan` expects
        self._sealing: bool | None = None   # row seals (migration 017): known at the first write
        self._seal_state: seals.SealState | None = None
        if (must_exist or read_only) and not Path(self.path).is_file():
            raise StoreError(f"there is no database at {self.path}; create it with: "
                             f"python -m valuation db init --db {self.path}")
        if not Path(self.path).parent.is_dir():
            raise StoreError(f"the folder of {self.path} does not exist")
        new_file = not read_only and self.path != ":memory:" and not Path(self.path).exists()
        self._con = _connect(self.path, read_only)
        if new_file and Path(self.path).is_file():
            os.chmod(self.path, 0o600)      # a new database is its owner's only, whatever the umask (issue 45, item 14)
        try:
            if migrate and not read_only:
                self.applied_now = self.migrate(up_to=migrate_to)
        except BaseException:
            self.close()
            raise

    # -- plumbing ----------------------------------------------------------------
    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def now(self) -> datetime:
        """Now in the stored form (zone-less UTC) of the one clock (`core.clock.now_utc`); a test's or
        the demo's fixed clock may give naive instants, which are taken as UTC."""
        moment = self._clock()
        return moment if moment.tzinfo is None else clock.stored(moment)

    def now_utc(self) -> datetime:
        """Now as an aware UTC instant (the same clock as `now`)."""
        aware = clock.aware(self.now())
        assert aware is not None
        return aware

    def today(self) -> date:
        """The office's calendar day now (`clock.today_brasilia` on this Store's clock): THE "today" of every
        check and default date. Never the UTC day of `now`: from 21:00 in Brasília that is tomorrow."""
        return clock.today_brasilia(self.now_utc())

    def _seals_enabled(self) -> bool:
        """Whether this database seals rows (db/seals.py); asked once per open, after the migrations."""
        if self._sealing is None:
            cur = self.cursor()
            try:
                self._seal_state = seals.enabled(cur)
                self._sealing = self._seal_state is not None
            finally:
                cur.close()
        return self._sealing

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A fresh cursor for one thread/request; close it when done."""
        if self._closed:
            raise StoreError("the store is closed")
        with self._cursor_lock:
            return self._con.cursor()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._con.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def revision(self) -> int:
        """Changes with every data-changing commit; unique to this Store in the process (module docstring)."""
        return self._revision

    def memo(self, key: Any, compute: Callable[[], T]) -> T:
        """`compute()` — read from committed rows only, the same for every reader (no user's scope in it) —
        kept while the revision stays: every reader of the same `key` gets the same object, to be treated
        as read-only. Not for a transaction, which sees its own uncommitted rows (`Tx.memo`). A new
        revision starts empty (and a full one, at `MEMO_MAX` values); a value stored after a commit raced it lands
        in the old revision's dict, which no reader sees again."""
        revision, kept = self._revision, self._memo
        if kept[0] != revision or len(kept[1]) >= MEMO_MAX:
            kept = self._memo = (revision, {})
        try:
            return kept[1][key]
        except KeyError:
            value = kept[1][key] = compute()
            return value

    def _memo_get(self, revision: int, key: Any) -> tuple[bool, Any]:
        """(found, value) of `key` in the memo of `revision` (`Tx.memo`)."""
        kept = self._memo
        if kept[0] != revision or key not in kept[1]:
            return False, None
        return True, kept[1][key]

    def _memo_put(self, revision: int, key: Any, value: Any) -> None:
        """Keep `value` for `key` in the memo of `revision`, if that is still the Store's (`Tx.memo`)."""
        kept = self._memo
        if kept[0] != revision or len(kept[1]) >= MEMO_MAX:
            if self._revision != revision:
                return
            kept = self._memo = (revision, {})
        kept[1][key] = value

    def generation(self, topic: str) -> int:
        """Changes with every commit that named `topic` (`Tx.changed`) and with a migration; unique to this
        Store in the process, like `revision`."""
        return self._topics.get(topic, self._topics_base)

    def shutdown(self) -> None:
        """Wait for the write in progress (writes hold the write lock), CHECKPOINT, close."""
        if self._closed:
            return
        with self._write_lock:
            if not self.read_only:
                try:
                    self.checkpoint()
                except (duckdb.Error, StoreError):
                    pass  # the WAL is replayed at the next open: nothing is lost
            self.close()

    def checkpoint(self) -> None:
        """Write the WAL into the file (after large imports and `db init --demo`)."""
        cur = self.cursor()
        try:
            cur.execute("CHECKPOINT").fetchall()
        finally:
            cur.close()

    # -- reads -------------------------------------------------------------------
    def fetch(self, sql: str, params: Params | None = ()) -> list[dict[str, Any]]:
        """All rows as dicts with exact values (Decimal for DECIMAL, date, datetime)."""
        cur = self.cursor()
        try:
            return _rows(cur.execute(sql, _params(params)))
        finally:
            cur.close()

    def fetch_one(self, sql: str, params: Params | None = ()) -> dict[str, Any] | None:
        rows = self.fetch(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Params | None = ()) -> Any:
        cur = self.cursor()
        try:
            rows = cur.execute(sql, _params(params)).fetchall()
        finally:
            cur.close()
        return rows[0][0] if rows else None

    def fetch_df(self, sql: str, params: Params | None = ()) -> pd.DataFrame:
        """A DataFrame via Arrow: DECIMAL columns hold exact Decimals (pd.ArrowDtype), never floats."""
        import pandas as pd

        cur = self.cursor()
        try:
            rel = cur.sql(sql, params=_params(params))
            if rel is None:
                return pd.DataFrame()
            table = rel.to_arrow_table()
        finally:
            cur.close()
        return table.to_pandas(types_mapper=pd.ArrowDtype)

    @contextmanager
    def snapshot(self) -> Iterator[Snapshot]:
        """A `Snapshot`: reads in one transaction of a cursor of their own, ended (nothing written) after."""
        cur = self.cursor()
        try:
            cur.execute("BEGIN TRANSACTION")
            try:
                yield Snapshot(cur)
            finally:
                _rollback(cur)
        finally:
            cur.close()

    # -- writes ------------------------------------------------------------------
    @contextmanager
    def transaction(self, actor: str, *, bookkeeping: bool = False, sealed: Sequence[str] | None = None,
                    small: bool = False, keeps: Sequence[str] = ()) -> Iterator[Tx]:
        """BEGIN … COMMIT on a cursor of its own; ROLLBACK and re-raise on any error.

        One writer at a time in this process; not re-entrant (a nested call is a bug). The commit
        counts in `revision` unless `bookkeeping` (it changes nothing any page shows). `sealed`: the
        sealed tables (db/seals.py, by the table their rows come from) this write may add rows to or
        change — only those are read for the row seals; None: every one. A row written to a sealed table
        not named stays unsealed and `audit verify` names it. `small`: the write appends a few rows to its
        sealed tables (one entry): their seals are written and read back at once (`seals.begin`), and it appends to
        the audit chain through `Tx.audit` only, so the anchor its first audit row links onto is read with the
        seals at BEGIN (an audit row appended otherwise before it would make that row's id taken: the INSERT
        fails, nothing is written). `keeps`: the
        memo keys (by their first element) this write never changes — read from the memo inside it, carried
        over its commit (module docstring).
        """
        if self.read_only:
            raise StoreError(f"the database {self.path} is open read-only")
        if getattr(self._local, "in_tx", False):
            raise StoreError("nested transaction: pass the open Tx down instead")
        with self._write_lock:
            self._local.in_tx = True
            cur = self.cursor()
            try:
                settled = _settled(self) if keeps else None      # before BEGIN: see `Tx.memo`
                cur.execute("BEGIN TRANSACTION")
                try:
                    # A small write audits through `Tx.audit` alone: the anchor it links onto is read with the seals.
                    head = self.audit_head_id if small and self.audit_head_seen else None
                    if head is None:
                        also: tuple[str, ...] = ()
                    else:
                        from valuation.db.audit import head_read

                        also = head_read(head)
                    marks = seals.begin(cur, self._seal_state, None if sealed is None else frozenset(sealed),
                                        small, also) if self._seals_enabled() else None
                    tx = Tx(cur, actor, self, frozenset(keeps))
                    if head is not None and marks is not None:
                        tx.head_rows = (head, marks["_also"])
                    # Its snapshot is taken by its first read of the file (the seals' read): a memo is trusted
                    # only then, so that a commit after `settled` cannot be in the snapshot unseen.
                    tx.settled = settled if marks is not None else None
                    yield tx
                    wrote = seals.finish(tx, marks)       # digests of the sealed rows written here, into the chain
                    tx.flush_audit()                       # the newest audit row, when no seal went into it
                    with _committing(self) if not bookkeeping else nullcontext():
                        cur.execute("COMMIT")
                        if not bookkeeping:
                            _file_changed(self, frozenset(tx.topics), tx.keeps)
                    if marks is not None and self._seal_state is not None:
                        self._seal_state.committed(wrote, marks.get("_after"))
                    if tx.audited:
                        self.audit_head_seen = True
                        self.audit_head_id = tx.last_audit_id
                except BaseException:
                    _rollback(cur)
                    raise
            finally:
                cur.close()
                self._local.in_tx = False

    def write(self, actor: str, fn: Callable[[Tx], T], *, retries: int = 3, bookkeeping: bool = False,
              sealed: Sequence[str] | None = None, small: bool = False, keeps: Sequence[str] = ()) -> T:
        """Run `fn(tx)` in a transaction (`transaction`'s `bookkeeping`, `sealed`, `small` and `keeps`); retry it
        whole on write-write conflicts.

        `fn` must not swallow DuckDB errors (a later COMMIT would silently roll back).
        Constraint violations become ConflictError; persistent conflicts too.
        """
        attempt = 0
        while True:
            try:
                with self.transaction(actor, bookkeeping=bookkeeping, sealed=sealed, small=small,
                                      keeps=keeps) as tx:
                    return fn(tx)
            except duckdb.TransactionException as exc:
                if attempt >= retries:
                    raise ConflictError("A alteração conflitou com outra gravação simultânea; "
                                        "tente novamente.") from exc
                attempt += 1
                time.sleep(RETRY_PAUSE_S * attempt)
            except duckdb.ConstraintException as exc:
                raise ConflictError(f"A alteração viola uma restrição do banco de dados: {exc}") from exc

    # -- schema ------------------------------------------------------------------
    def schema_version(self) -> int:
        """The highest applied migration (0 for a database without any)."""
        if not self.has_table("schema_migrations"):
            return 0
        return int(self.scalar("SELECT coalesce(max(version), 0) FROM schema_migrations"))

    def has_table(self, name: str) -> bool:
        return bool(self.scalar(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'", [name]))

    def migrate(self, up_to: int | None = None) -> list[int]:
        """Apply the pending migrations in order (up to version `up_to`, default all), each in its own
        transaction; returns their versions."""
        shipped = [m for m in available_migrations() if up_to is None or m.version <= up_to]
        by_version = {m.version: m for m in shipped}
        applied_now: list[int] = []
        with self._write_lock:
            cur = self.cursor()
            try:
                cur.execute(SCHEMA_MIGRATIONS_DDL)
                applied = {int(v): (n, sha) for v, n, sha in
                           cur.execute("SELECT version, name, sha256 FROM schema_migrations").fetchall()}
                for version, (name, sha) in sorted(applied.items()):
                    mig = by_version.get(version)
                    if mig is None:
                        raise StoreError(
                            f"the database {self.path} has migration {version:03d}_{name}, which this "
                            f"program does not know: it was written by a newer version of valuation")
                    if mig.sha256 != sha:
                        raise StoreError(
                            f"migration {version:03d}_{mig.name}.sql changed after it was applied to "
                            f"{self.path}. Never edit an applied migration: add a new numbered file "
                            f"(a development database can be re-created with db init on a new path)")
                for mig in shipped:
                    if mig.version in applied:
                        continue
                    cur.execute("BEGIN TRANSACTION")
                    try:
                        cur.execute(mig.sql)
                        cur.execute("INSERT INTO schema_migrations VALUES (?, ?, ?, ?)",
                                    [mig.version, mig.name, mig.sha256, self.now()])
                        with _committing(self):
                            cur.execute("COMMIT")
                            _file_changed(self)
                    except duckdb.Error as exc:
                        _rollback(cur)
                        raise StoreError(f"migration {mig.version:03d}_{mig.name} failed on "
                                         f"{self.path}: {exc}") from exc
                    applied_now.append(mig.version)
            finally:
                cur.close()
        return applied_now
