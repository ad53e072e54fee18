"""The hash-chained audit log (architecture.md "Storage": tampering is detectable by a check).

Each row's `hash` is the sha256 of the canonical JSON (sorted keys, no spaces,
UTF-8) of its fields `id, at, actor, action, entity, entity_id, before_json,
after_json, prev_hash`, where `at` is written `YYYY-MM-DDTHH:MM:SS.ffffff` and
`prev_hash` is the previous row's hash (`GENESIS`, 64 zeros, for row 1). Ids run
1, 2, 3… without gaps, so `verify_chain` detects an edited row (its hash no
longer matches), a deleted row (a gap, and the next row's prev_hash points at
nothing) and a re-hashed edit (the following row's prev_hash). What a chain alone
cannot show is the removal of the newest rows: the head anchor below covers that.

Head anchor (issue 8): every append also records, in the one-row table `audit_head`
(created with the first audited write), how many rows the application has appended,
the newest row's id and hash, and — when the environment variable
`VALUATION_AUDIT_KEY` is set — an HMAC-SHA256 seal of those three values under that
key. The next row links onto the anchored head (not onto whatever the table's last
row is), so a tampering done behind the application's back stays visible after later
writes. `verify_chain` compares the table with the anchor: a deleted last row, rows
appended outside the application, a dropped anchor, and (with the key) a chain
re-hashed and re-anchored by someone without the key are all reported. Not
detectable from the file alone: a coordinated rewrite of log and anchor when no key
is configured (or by someone holding the key), and the removal of the whole log
together with the anchor (it looks like a new database) — compare with a head recorded
elsewhere (`chain_head`, the backup manifest). See SECURITY.md.

Wreck positions never enter the log (rules.md §8: the admin, who reads the log,
is not cleared for positions), nor the free texts that may describe a spot (issue 24: a wreck's
notes and signalling, a found thing's place and notes): `append` redacts every row (`redact`), and
the row keeps `sigilo`, an HMAC of the masked values under the database's own secret
(`audit_secret`), so the chain still covers them. The admin reads the log through
`valuation.db.audit_log` (filters, pages, exports), which masks them again when read.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

import duckdb

from valuation.core.errors import InputError, Problem, StoreError

GENESIS = "0" * 64
AUDIT_KEY_ENV_NAME = "VALUATION_AUDIT_KEY"
HASHED_FIELDS = ("id", "at", "actor", "action", "entity", "entity_id", "before_json", "after_json", "prev_hash")
POSITION_FIELDS = ("lat_deg", "lat_min", "lat_hem", "lon_deg", "lon_min", "lon_hem", "datum",
                   "position_approximate", "depth_m", "latitude", "longitude")
VERIFY_BATCH = 10_000  # rows read per query while verifying: bounded memory on a long log


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat(timespec="microseconds")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot audit a {type(value).__name__}")


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no spaces, UTF-8 text, Decimal/date as strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default)


def _quoted(columns: tuple[str, ...]) -> str:
    """Column names quoted: `at` is a reserved word in DuckDB 2.0 ("at" in every statement)."""
    return ", ".join(f'"{c}"' for c in columns)


def _at_text(at: datetime) -> str:
    return at.replace(tzinfo=None).isoformat(sep="T", timespec="microseconds")


def row_hash(row: Mapping[str, Any]) -> str:
    """The sha256 (hex) of one audit row's canonical JSON over HASHED_FIELDS, plus `seals_json` when
    the row carries row seals (issue 14: rows without it hash exactly as before)."""
    payload = {k: row[k] for k in HASHED_FIELDS}
    payload["id"] = int(payload["id"])
    payload["at"] = _at_text(payload["at"])
    if row.get("seals_json") is not None:
        payload["seals_json"] = row["seals_json"]
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def redact_position(record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A copy of `record` with wreck-position fields replaced by 'sigilosa' (what a reader sees; the
    log itself is redacted by `append`, with a digest of what it masks)."""
    if record is None:
        return None
    return {k: (MASK if k in POSITION_FIELDS and v is not None else v) for k, v in record.items()}


# -- confidential values (issue 24, item 3) -----------------------------------------------------------
MASK = "sigilosa"
SIGILO_KEY = "sigilo"                  # the HMAC of what a row masks; never shown
SECRET_TABLE = "audit_secret"          # migration 018: the database's own key for those HMACs
# Free texts that may describe a spot, by the entity of the audit row (positions are masked under any entity).
CONFIDENTIAL_TEXT: dict[str, frozenset[str]] = {
    "wreck": frozenset({"notes", "signalling"}),
    "wrecks": frozenset({"notes", "signalling"}),
    "found_thing": frozenset({"place", "notes"}),
}


def masked_fields(entity: object) -> frozenset[str]:
    """The keys whose values never reach the log's text for an audit row of `entity`."""
    return frozenset(POSITION_FIELDS) | CONFIDENTIAL_TEXT.get(str(entity), frozenset())


def _mask(value: Any, fields: frozenset[str], path: str, found: dict[str, Any]) -> Any:
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            key = f"{path}.{k}" if path else str(k)
            if k in fields and v is not None and v != MASK:
                found[key] = v
                out[k] = MASK
            else:
                out[k] = _mask(v, fields, key, found)
        return out
    if isinstance(value, (list, tuple)):
        return [_mask(v, fields, f"{path}.{i}", found) for i, v in enumerate(value)]
    return value


def _secret(cur: duckdb.DuckDBPyConnection, *, create: bool) -> bytes:
    rows = cur.execute(f"SELECT secret FROM {SECRET_TABLE} WHERE singleton = 1").fetchall()
    if rows:
        return str(rows[0][0]).encode("ascii")
    if not create:
        raise StoreError("this database has no audit secret yet (nothing was masked)")
    import secrets

    secret = secrets.token_hex(32)
    cur.execute(f"INSERT INTO {SECRET_TABLE} VALUES (1, ?, current_timestamp)", [secret]).fetchall()
    return secret.encode("ascii")


def confidential_digest(cur: duckdb.DuckDBPyConnection, values: Mapping[str, Any], *, create: bool = False) -> str:
    """HMAC-SHA256 (hex), under the database's audit secret, of the canonical JSON of masked `values`
    ({path: value}): what an audit row keeps of the values it masks."""
    message = canonical_json(dict(values)).encode("utf-8")
    return hmac.new(_secret(cur, create=create), message, hashlib.sha256).hexdigest()


def redact(cur: duckdb.DuckDBPyConnection, entity: object, record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`record` as the log keeps it: positions (any entity) and the entity's confidential free texts read
    "sigilosa", at any depth; when anything was masked, `sigilo` holds the HMAC of the masked values."""
    if record is None:
        return None
    found: dict[str, Any] = {}
    out = _mask(dict(record), masked_fields(entity), "", found)
    if found:
        out[SIGILO_KEY] = confidential_digest(cur, found, create=True)
    return out


class AuditSealError(StoreError):
    """A write refused because the audit anchor's seal cannot be extended honestly: its seal does
    not verify under the key, the key is missing in a keyed deployment, or the anchor lost its seal
    while the key is configured. Extending such an anchor would re-seal a forged chain (issue 14)."""


SEAL_KEY_MISSING = ("Gravação recusada: a cadeia de auditoria deste banco é selada, mas a chave "
                    f"{AUDIT_KEY_ENV_NAME} não está definida neste processo. Defina a chave (a mesma do "
                    "serviço) e tente de novo.")
SEAL_BROKEN = ("Gravação recusada: o selo da cadeia de auditoria não confere com a chave configurada — a cadeia "
               "pode ter sido reescrita fora da aplicação (ou a chave é outra). Nenhuma gravação é feita até a "
               "verificação: o administrador foi alertado; rode `python -m valuation audit verify`.")
SEAL_STRIPPED = ("Gravação recusada: a chave da cadeia de auditoria está definida, mas a âncora não tem selo "
                 "(o selo foi removido fora da aplicação, ou a chave acaba de ser configurada). Verifique a cadeia "
                 "e sele-a com `python -m valuation audit seal --db …`.")

# Called (best effort, never raising) with the refusal's message when a write is refused for the seal:
# the service registers one that records and reports an alert (service/asgi.py, jobs/runs.py).
SEAL_ALERT_HOOKS: list[Callable[[str], None]] = []


def _seal_refusal(anchor: Mapping[str, Any] | None, key: bytes | None) -> str | None:
    """Why a write may not extend `anchor` under `key` (the refusal message), or None when it may."""
    if anchor is None:
        return None                                    # a new chain: the first write creates the anchor
    seal = anchor.get("seal")
    if seal:
        if key is None:
            return SEAL_KEY_MISSING
        expected = head_seal(int(anchor["row_count"]), int(anchor["head_id"]), str(anchor["head_hash"]), key)
        return None if hmac.compare_digest(str(seal), expected) else SEAL_BROKEN
    return SEAL_STRIPPED if key is not None else None


def may_extend(store: Any) -> bool:
    """May this process append to the chain of `store` now (its anchor's seal is honest under the
    configured key, or there is no anchor yet)? Asked before an optional write (a backup's record)."""
    return _seal_refusal(_read_anchor(store), audit_key()) is None


def _refuse_write(message: str) -> None:
    for hook in list(SEAL_ALERT_HOOKS):
        try:
            hook(message)
        except Exception:  # noqa: BLE001 - an alert must never turn a refusal into another error
            pass
    raise AuditSealError(message)


def append(cur: duckdb.DuckDBPyConnection, *, at: datetime, actor: str, action: str, entity: str,
           entity_id: object, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None,
           trusted_seal_key: bytes | None = None, reseal: bool = False,
           accept_broken: bool = False, head_table: bool = False) -> dict[str, Any]:
    """Append one chained row on `cur` (inside the caller's transaction); returns the row.
    `plan` and `write_planned` (below) at once; see `plan` for the rules."""
    return write_planned(cur, plan(cur, at=at, actor=actor, action=action, entity=entity, entity_id=entity_id,
                                   before=before, after=after, trusted_seal_key=trusted_seal_key, reseal=reseal,
                                   accept_broken=accept_broken, head_table=head_table))


@dataclass
class PlannedRow:
    """An audit row whose place in the chain is fixed (its id, the hash it links onto, the anchor's
    count) but not yet written: `write_planned` writes it, with the transaction's row seals when it is
    the transaction's newest row (so the row is hashed and the anchor written once). Nothing may be
    appended to the chain between `plan` and `write_planned` (the Store's transaction writes a planned
    row before it plans the next one, and before its COMMIT)."""
    row: dict[str, Any]               # the hashed fields, `hash` not yet computed
    count: int                        # rows the application has appended once this one is written
    create_anchor: bool               # no anchor yet: the write creates its table


def plan(cur: duckdb.DuckDBPyConnection, *, at: datetime, actor: str, action: str, entity: str,
         entity_id: object, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None,
         trusted_seal_key: bytes | None = None, reseal: bool = False,
         accept_broken: bool = False, head_table: bool = False, head_hint: int | None = None,
         head_rows: Sequence[Sequence[Any]] | None = None) -> PlannedRow:
    """The next chained row of `cur`'s chain (inside the caller's transaction), checked and redacted,
    to be written by `write_planned`.

    The row links onto the anchored head (`audit_head`); see the module docstring. Refused
    (`AuditSealError`, and the alert hooks are called) when the anchor's seal does not verify
    under the configured key, when the anchor is sealed and no key is configured, or when the key
    is configured and the anchor has no seal. `reseal=True` (the `audit seal` command only, after a
    whole-chain check) accepts an unsealed anchor or one sealed under `trusted_seal_key`;
    `accept_broken=True` (a restore with --accept-broken-chain, and only for its
    RESTORE_ACCEPTED_ACTION row, which `verify_chain` reports forever) skips the seal check.
    `head_table`: the caller knows that the anchor's table exists (this process committed
    an audited write on this file since opening it), so the catalog is not searched for it; `head_hint`:
    the anchored head's id it expects (the newest row it wrote) — the anchor and the rows from that id on are
    then read by one statement, and again from the anchor's own head when it is another; `head_rows`: what that
    statement gives (`head_read(head_hint)`), read earlier in this transaction with nothing appended to the chain
    since (`Store.transaction`, for a small write) — it is then not run again."""
    anchor, top = _read_head(cur, head_table, head_hint, head_rows)
    if anchor is not None:    # the rows from the anchored head on (the last row group): the same next id
        last = [] if top is None else [(top, None)]
    else:
        last = cur.execute("SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1").fetchall()
    last_id, last_hash = (int(last[0][0]), str(last[0][1])) if last else (0, GENESIS)
    refusal = _seal_refusal(anchor, audit_key())
    if refusal is not None and reseal:
        old_ok = anchor is not None and (not anchor.get("seal") or (
            trusted_seal_key is not None and _seal_refusal(anchor, trusted_seal_key) is None))
        refusal = None if old_ok else refusal
    if accept_broken:
        if action != RESTORE_ACCEPTED_ACTION:
            raise StoreError("accept_broken is only for the restore's own record")
        refusal = None
    if refusal is not None:
        _refuse_write(refusal)
    if anchor is not None:
        # Link onto what the application last wrote: rows removed from (or added to) the end
        # behind its back stay visible as a gap / a broken link after this write.
        count, link_id, link_hash = int(anchor["row_count"]), int(anchor["head_id"]), str(anchor["head_hash"])
        next_id = max(last_id, link_id) + 1
    elif last:
        # Rows but no anchor: it was dropped behind the application's back (or the file predates
        # anchoring). Leave a permanent trace before going on; verify_chain reports it.
        count = int(cur.execute("SELECT count(*) FROM audit_log").fetchall()[0][0])
        marker = _insert_row(cur, row_id=last_id + 1, prev_hash=last_hash, at=at, actor=actor,
                             action=ANCHOR_MISSING_ACTION, entity="audit_log", entity_id=None, before=None,
                             after={"rows_found": count, "last_id": last_id, "last_hash": last_hash})
        count, link_id, link_hash, next_id = count + 1, marker["id"], marker["hash"], marker["id"] + 1
    else:
        count, link_id, link_hash, next_id = 0, 0, GENESIS, 1
    row = _row(row_id=next_id, prev_hash=link_hash, at=at, actor=actor, action=action, entity=entity,
               entity_id=entity_id, before=redact(cur, entity, before), after=redact(cur, entity, after))
    return PlannedRow(row=row, count=count + 1, create_anchor=anchor is None)


def write_planned(cur: duckdb.DuckDBPyConnection, planned: PlannedRow,
                  seals_json: str | None = None) -> dict[str, Any]:
    """Write a planned row (with `seals_json`, hashed with it, when given) and move the anchor onto it;
    returns the row as written."""
    row = dict(planned.row)
    if seals_json is not None:
        row["seals_json"] = seals_json
    _insert(cur, row)
    _write_anchor(cur, row_count=planned.count, head_id=row["id"], head_hash=row["hash"], at=row["at"],
                  create=planned.create_anchor)
    return row


def _insert_row(cur: duckdb.DuckDBPyConnection, *, row_id: int, prev_hash: str, at: datetime, actor: str,
                action: str, entity: str, entity_id: object, before: Mapping[str, Any] | None,
                after: Mapping[str, Any] | None) -> dict[str, Any]:
    row = _row(row_id=row_id, prev_hash=prev_hash, at=at, actor=actor, action=action, entity=entity,
               entity_id=entity_id, before=before, after=after)
    _insert(cur, row)
    return row


def _row(*, row_id: int, prev_hash: str, at: datetime, actor: str, action: str, entity: str, entity_id: object,
         before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> dict[str, Any]:
    """The hashed fields of one audit row (no hash yet)."""
    return {
        "id": row_id,
        "at": at.replace(tzinfo=None),
        "actor": actor,
        "action": action,
        "entity": entity,
        "entity_id": None if entity_id is None else str(entity_id),
        "before_json": None if before is None else canonical_json(dict(before)),
        "after_json": None if after is None else canonical_json(dict(after)),
        "prev_hash": prev_hash,
    }


def _insert(cur: duckdb.DuckDBPyConnection, row: dict[str, Any]) -> None:
    """Hash `row` (its seals_json too, when it has one) and insert it."""
    row["hash"] = row_hash(row)
    cols = (*HASHED_FIELDS, "hash") + (("seals_json",) if row.get("seals_json") is not None else ())
    cur.execute(f"INSERT INTO audit_log ({_quoted(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                [row[c] for c in cols]).fetchall()


# -- head anchor (issue 8) --------------------------------------------------------------
HEAD_TABLE = "audit_head"
AUDIT_KEY_ENV = AUDIT_KEY_ENV_NAME         # the seal key; keep it outside the database file
ANCHOR_MISSING_ACTION = "audit_anchor_missing"
RESTORE_ACCEPTED_ACTION = "restore_broken_chain_accepted"
HEAD_DDL = f"""
CREATE TABLE IF NOT EXISTS {HEAD_TABLE} (
    singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
    row_count  BIGINT NOT NULL,      -- rows the application has appended
    head_id    BIGINT NOT NULL,      -- the newest row's id
    head_hash  VARCHAR NOT NULL,     -- the newest row's hash
    seal       VARCHAR,              -- HMAC-SHA256 of the three above under VALUATION_AUDIT_KEY, or NULL
    updated_at TIMESTAMP NOT NULL
)"""


def audit_key() -> bytes | None:
    """The seal key from the environment (`VALUATION_AUDIT_KEY`), or None when unset."""
    key = os.environ.get(AUDIT_KEY_ENV, "")
    return key.encode("utf-8") if key else None


def head_seal(row_count: int, head_id: int, head_hash: str, key: bytes) -> str:
    """HMAC-SHA256 (hex) that binds the anchor to a key kept outside the database file."""
    message = f"valuation-audit-head:{int(row_count)}:{int(head_id)}:{head_hash}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def _has_column(db: Any, table: str, column: str) -> bool:
    return bool(db.scalar("SELECT count(*) FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = ? "
                          "AND column_name = ? AND database_name = current_database()", [table, column]))


def _has_head_table(db: Any) -> bool:
    sql = "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND schema_name = 'main'"
    if isinstance(db, duckdb.DuckDBPyConnection):
        return bool(db.execute(sql, [HEAD_TABLE]).fetchall()[0][0])
    return bool(db.scalar(sql, [HEAD_TABLE]))


# The keys of the anchor's row and of the top's in `_read_head`'s read: negative and large, apart from the keys of
# a read it may join at BEGIN (`head_read`: seals.begin's are 0, 1, … and -1).
_ANCHOR_ROW, _TOP_ROW = -1000, -1001


def _head_parts(hint: str) -> list[str]:
    return [f"SELECT {_ANCHOR_ROW}, row_count, head_id, head_hash, seal FROM {HEAD_TABLE} WHERE singleton = 1",
            f"SELECT {_TOP_ROW}, max(id), NULL, NULL, NULL FROM audit_log WHERE id >= {hint}"]


_HEAD_AND_TOP = " UNION ALL ".join(_head_parts("?"))


def head_read(hint: int) -> tuple[str, ...]:
    """`plan`'s read of the anchor and of the rows from head `hint` on, as SELECT parts of five columns, the first a
    key of their own, for a statement that runs them with another module's at BEGIN (`seals.begin`'s `also`,
    `Store.transaction`); the rows they give go to `plan` as `head_rows`."""
    return tuple(_head_parts(str(int(hint))))


def _read_head(cur: duckdb.DuckDBPyConnection, known: bool, hint: int | None,
               rows: Sequence[Sequence[Any]] | None = None) -> tuple[dict[str, Any] | None, int | None]:
    """(the anchor or None, the max id of audit_log from the anchored head on — None without an anchor, or
    when no row is there): `plan`'s reads, in one statement when the table is `known` and the head `hint`
    is right — none when `rows`, what that statement gives, were read already (`head_read`)."""
    if known and hint is not None:
        if rows is None:
            rows = cur.execute(_HEAD_AND_TOP, [int(hint)]).fetchall()
        found = {int(r[0]): tuple(r[1:]) for r in rows}
        head = found.get(_ANCHOR_ROW)
        anchor = None if head is None else dict(zip(("row_count", "head_id", "head_hash", "seal"), head))
        if anchor is not None and int(anchor["head_id"]) == int(hint):
            return anchor, found[_TOP_ROW][0]
    else:
        anchor = _read_anchor(cur, known=known)
    if anchor is None:
        return None, None
    return anchor, cur.execute("SELECT max(id) FROM audit_log WHERE id >= ?",
                               [int(anchor["head_id"])]).fetchall()[0][0]


def _read_anchor(db: Any, *, known: bool = False) -> dict[str, Any] | None:
    """The anchor row (row_count, head_id, head_hash, seal), or None when there is none
    (`known`: the table exists, no need to look it up)."""
    if not known and not _has_head_table(db):
        return None
    sql = f"SELECT row_count, head_id, head_hash, seal FROM {HEAD_TABLE} WHERE singleton = 1"
    if isinstance(db, duckdb.DuckDBPyConnection):
        rows = db.execute(sql).fetchall()
        return dict(zip(("row_count", "head_id", "head_hash", "seal"), rows[0])) if rows else None
    return db.fetch_one(sql)


def _write_anchor(cur: duckdb.DuckDBPyConnection, *, row_count: int, head_id: int, head_hash: str,
                  at: datetime, create: bool) -> None:
    key = audit_key()
    seal = None if key is None else head_seal(row_count, head_id, head_hash, key)
    if not create:      # the row exists (it was just read): a plain update by key
        cur.execute(f"UPDATE {HEAD_TABLE} SET row_count = ?, head_id = ?, head_hash = ?, seal = ?, updated_at = ? "
                    "WHERE singleton = 1", [row_count, head_id, head_hash, seal, at.replace(tzinfo=None)]).fetchall()
        return
    cur.execute(HEAD_DDL).fetchall()
    cur.execute(f"INSERT INTO {HEAD_TABLE} VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (singleton) DO UPDATE SET "
                "row_count = excluded.row_count, head_id = excluded.head_id, head_hash = excluded.head_hash, "
                "seal = excluded.seal, updated_at = excluded.updated_at",
                [row_count, head_id, head_hash, seal, at.replace(tzinfo=None)]).fetchall()


def read_anchor(store: Any) -> dict[str, Any] | None:
    """The head anchor as stored (row_count, head_id, head_hash, seal), or None."""
    return _read_anchor(store)


_CONFIGURED = object()


def _check_anchor(store: Any, checked: int, last_id: int, last_hash: str,
                  key: Any = _CONFIGURED) -> tuple[bool, int | None, str]:
    """Compare an intact chain (`checked` rows, ending at `last_id`/`last_hash`) with its anchor;
    the seal is checked under `key` (default: the configured key; None: not checked)."""
    anchor = _read_anchor(store)
    if anchor is None:
        if checked == 0:
            return (True, None, "")
        return (False, last_id + 1, f"Âncora da cadeia ausente (tabela {HEAD_TABLE}): não é possível garantir "
                                    f"que registros posteriores ao {last_id} não foram removidos.")
    count, head_id, head_hash = int(anchor["row_count"]), int(anchor["head_id"]), str(anchor["head_hash"])
    if head_id > last_id or count > checked:
        return (False, last_id + 1, f"Registro(s) de auditoria removido(s) do fim: a âncora registra {count} "
                                    f"registro(s) até o número {head_id}, mas a tabela termina no {last_id}.")
    if head_id < last_id:
        return (False, head_id + 1, f"Registro(s) de auditoria acrescentado(s) fora da aplicação: a âncora termina "
                                    f"no registro {head_id}, a tabela continua até o {last_id}.")
    if head_hash != last_hash or count != checked:
        return (False, last_id, f"Cadeia reescrita fora da aplicação: o registro {last_id} não confere com a "
                                f"âncora (hash ou contagem diferentes).")
    if key is _CONFIGURED:
        key = audit_key()
    if key is None:
        return (True, None, " Âncora confere" + (" (selo não verificado: chave ausente)." if anchor["seal"] else "."))
    if not anchor["seal"]:
        return (False, last_id, f"Âncora sem selo, mas {AUDIT_KEY_ENV} está definida: a âncora foi gravada sem a "
                                f"chave ou substituída fora da aplicação.")
    if not hmac.compare_digest(str(anchor["seal"]), head_seal(count, head_id, head_hash, key)):
        return (False, last_id, "Selo da âncora não confere: a cadeia foi reescrita fora da aplicação (ou a chave "
                                f"em {AUDIT_KEY_ENV} é outra).")
    return (True, None, " Âncora confere e o selo é válido.")


@dataclass(frozen=True)
class ChainCheck:
    """The outcome of a whole-chain check: `checked` rows verified before the end or the first
    broken row (`bad_id`); `anchor` is the anchor's verdict when the chain is intact."""
    ok: bool
    bad_id: int | None
    message: str
    checked: int
    head_hash: str | None = None
    anchor: str = ""
    content: str = ""          # the row seals' verdict (db/seals.py)


def verify_chain(store: Any, *, progress: Callable[[int, int], None] | None = None,
                 batch: int = VERIFY_BATCH) -> tuple[bool, int | None, str]:
    """(ok, first_bad_id, message in pt-BR): checks ids, prev_hash links and every hash.

    `progress(checked, total)` is called after each batch of `batch` rows (a page shows a bar)."""
    result = chain_check(store, progress, batch)
    return (result.ok, result.bad_id, result.message)


def chain_check(store: Any, progress: Callable[[int, int], None] | None, batch: int,
                key: Any = _CONFIGURED) -> ChainCheck:
    """The whole check of `verify_chain` as a ChainCheck: every row's link and hash, the anchor and its
    seal, the row seals (db/seals.py) and an unfinished load. `audit_log.check_chain` shows it. On a Store,
    every read is of one snapshot (`Store.snapshot`): a write committed meanwhile is not half in the check —
    its rows read without the anchor moved with them (or the reverse) would look like a tampering."""
    if hasattr(store, "snapshot"):
        with store.snapshot() as snap:
            return _chain_check(snap, progress, batch, key)
    return _chain_check(store, progress, batch, key)


def _chain_check(store: Any, progress: Callable[[int, int], None] | None, batch: int, key: Any) -> ChainCheck:
    prev_id, prev_hash, checked = 0, GENESIS, 0
    total = int(store.scalar("SELECT count(*) FROM audit_log")) if progress else 0
    cols = _quoted((*HASHED_FIELDS, "hash")) + (", seals_json" if _has_column(store, "audit_log", "seals_json") else "")
    while True:
        rows = store.fetch(f"SELECT {cols} FROM audit_log WHERE id > ? ORDER BY id LIMIT {int(batch)}", [prev_id])
        if not rows:
            break
        for row in rows:
            broken = _broken(row, prev_id, prev_hash)
            if broken is not None:
                return ChainCheck(False, int(row["id"]), broken, checked)
            prev_id, prev_hash, checked = int(row["id"]), row["hash"], checked + 1
        if progress:
            progress(checked, max(total, checked))
    ok, bad, note = _check_anchor(store, checked, prev_id, prev_hash, key)
    if not ok:
        return ChainCheck(False, bad, note, checked, prev_hash)
    from valuation.db import seals

    sealed_ok, sealed_note = seals.verify(store)
    if not sealed_ok:
        return ChainCheck(False, None, sealed_note, checked, prev_hash)
    load = unfinished_load(store) if checked else None
    if load is not None:
        return ChainCheck(False, int(load["id"]), f"Carga interrompida: o registro {load['id']} iniciou a carga de "
                                                  f"«{load['entity']}», que não terminou; os dados estão incompletos "
                                                  "(refaça a carga: db init --demo).", checked, prev_hash)
    if checked == 0:
        return ChainCheck(True, None, "Registro de auditoria vazio.", 0)
    rows = "1 registro" if checked == 1 else f"{checked} registros"
    return ChainCheck(True, None, f"Cadeia íntegra: {rows}; último hash {prev_hash}.{note}{sealed_note}", checked,
                      prev_hash, note.strip().rstrip("."), sealed_note.strip())


def _broken(row: Mapping[str, Any], prev_id: int, prev_hash: str) -> str | None:
    """Why `row` breaks the chain after (prev_id, prev_hash), or None."""
    rid = int(row["id"])
    if rid != prev_id + 1:
        return (f"Registro(s) de auditoria removido(s): falta(m) o(s) número(s) "
                f"{prev_id + 1} a {rid - 1} antes do registro {rid}.")
    if row["prev_hash"] != prev_hash:
        return (f"Cadeia rompida no registro {rid}: o hash anterior não confere "
                "(registro anterior alterado ou removido).")
    if row_hash(row) != row["hash"]:
        return f"Registro de auditoria {rid} foi alterado: o hash não confere."
    if row["action"] == RESTORE_ACCEPTED_ACTION:
        return (f"Registro {rid}: esta cópia foi restaurada de um backup que a cadeia de auditoria não garantia "
                f"(cadeia rompida, ou conteúdo fora do que o backup atestava; --accept-broken-chain); o que veio "
                f"antes dele não está garantido.")
    if row["action"] == ANCHOR_MISSING_ACTION:
        return (f"Registro {rid}: a âncora da cadeia tinha sido removida fora da aplicação "
                f"antes dele; registros do fim podem ter sido apagados.")
    return None


def seal_chain(store: Any, *, actor: str, old_key: bytes | None = None) -> ChainCheck:
    """Seal the anchor under the configured key (`audit seal`): when keying is switched on for an
    existing database (its anchor has no seal) or the key is rotated (`old_key`, the key the anchor
    is sealed with now). The whole chain is verified first — under `old_key`, or with the seal
    unchecked when the anchor has none — and nothing is sealed unless it is intact; the sealing
    itself is an audited row (`audit_sealed`). Raises AuditSealError / InputError otherwise."""
    key = audit_key()
    if key is None:
        raise InputError(Problem(AUDIT_KEY_ENV, f"{AUDIT_KEY_ENV} não está definida: defina a nova chave."))
    anchor = _read_anchor(store)
    if anchor is not None and anchor.get("seal") and old_key is None:
        if _seal_refusal(anchor, key) is None:
            return chain_check(store, None, VERIFY_BATCH)          # already sealed under this key
        raise AuditSealError(SEAL_BROKEN)
    check = chain_check(store, None, VERIFY_BATCH, key=old_key)
    if not check.ok:
        raise AuditSealError(f"A cadeia não confere (registro {check.bad_id}): {check.message} Nada foi selado.")

    def run(tx: Any) -> None:
        append(tx.cur, at=tx.store.now(), actor=actor, action="audit_sealed", entity="audit_log", entity_id=None,
               before=None, after={"rows": check.checked, "rotated": old_key is not None},
               trusted_seal_key=old_key, reseal=True)

    store.write(actor, run)
    return chain_check(store, None, VERIFY_BATCH)


LOAD_STARTED = "load_started"     # a bulk load (the demo) begins: its entity names what is loaded
LOAD_COMPLETE = "load_complete"   # … and ends; a start without its end is an interrupted load
DEMO_LOAD = "demo"                # the entity of the demo's load markers (`db init --demo`)


def unfinished_load(store: Any) -> dict[str, Any] | None:
    """The newest LOAD_STARTED row that no LOAD_COMPLETE of the same entity follows (id, entity), or None."""
    return store.fetch_one(
        "SELECT s.id, s.entity FROM audit_log s WHERE s.action = ? AND NOT EXISTS (SELECT 1 FROM audit_log c "
        "WHERE c.action = ? AND c.entity = s.entity AND c.id > s.id) ORDER BY s.id DESC LIMIT 1",
        [LOAD_STARTED, LOAD_COMPLETE])


def completed_load(store: Any, entity: str) -> bool:
    """Whether a bulk load of `entity` (e.g. "demo") ran to its end in this database."""
    return store.fetch_one("SELECT 1 AS done FROM audit_log WHERE action = ? AND entity = ? LIMIT 1",
                           [LOAD_COMPLETE, entity]) is not None


def chain_head(store: Any) -> dict[str, Any] | None:
    """The newest row's id and hash (record it elsewhere to detect removal of the newest rows)."""
    return store.fetch_one("SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1")
