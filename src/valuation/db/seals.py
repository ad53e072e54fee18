"""Tamper-evident data tables (issue 14, item 9).

The audit chain proves what the application did; these seals prove that the rows it wrote are
still what it wrote. For each sealed table a row's digest is the sha256 of the JSON of a fixed
list of its columns (`SEALED`; a column added later gets a seal of its own, as
`assessment_conversion`). The write funnel (`Store.transaction`) calls `begin` when a
transaction opens and `finish` just before COMMIT:

- append-only tables (issued statements — with the sha256 of their PDF —, decisions, the
  assessment log, the process numbers given): the rows with an id above the one at `begin` are new in this transaction
  and get sealed; an UPDATE or DELETE of a sealed row is never done by the application, so it is
  reported by `verify` even when done inside a write;
- `users` (roles, organisation, body, active, e-mail, password hash): every row whose digest
  changed during this transaction is sealed again (a change behind the application's back, made
  between two writes, is left unsealed and stays visible);
- the content of an issued statement (issue 24, item 5: `STATEMENT_CONTENT`, one seal per issued
  statement, its row_id the statement's id): the digests of its `statement_lines`,
  `statement_survey_lines` and `statement_items`, sealed with the header in the write that issues it,
  so an issued statement is one sealed whole. A database sealed before this seal existed gets the
  content of every issued statement sealed by its next write (`baseline_alone`: only while no such
  seal exists at all — the Store looks that up once per open, `SealState`).

The digests go to `row_seals` (tbl, row_id, digest, audit_id) and, per table, their count and the
digest of the sorted `row_id:digest` lines go into `seals_json` of the transaction's last audit row
(hashed with it, so the chain covers them); a transaction that sealed rows but audited nothing gets
a `rows_sealed` audit row. While no seal exists at all (a database that predates sealing), the
next write seals every row already there; removing the seals later does not re-open that door:
`verify` compares every `seals_json` of the chain with `row_seals`.

`verify(db)` re-hashes every sealed row and names the first that differs from its latest seal (or
has none, or was removed), and checks `row_seals` against the chain.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from valuation.core.statuses import STATEMENT_ISSUED

SEALS_TABLE = "row_seals"
SEALED_ACTION = "rows_sealed"


@dataclass(frozen=True)
class Sealed:
    table: str
    columns: tuple[str, ...]
    label: str                        # pt-BR, for the verification message
    where: str = "true"               # which rows are sealed
    append_only: bool = True
    extra: tuple[tuple[str, str], ...] = ()   # (name, SQL expression) digested with the columns
    source: str = ""                  # the table whose rows are sealed, when `table` is a name of its own
    subject: str = "Tabela {table}, registro {id}"   # how the verification message names a row
    baseline_alone: bool = False      # sealed in full at the first write that finds no seal of it (a seal
                                      # added by a later version, for a database sealed before it)

    @property
    def rows_from(self) -> str:
        return self.source or self.table

    def digest_sql(self, alias: str = "r") -> str:
        parts = [f"{c} := {alias}.{c}" for c in self.columns] + [f"{n} := {e.format(alias=alias)}"
                                                                  for n, e in self.extra]
        return f"sha256(CAST(to_json(struct_pack({', '.join(parts)})) AS VARCHAR))"


_STATEMENT_COLUMNS = (
    "id", "contract_id", "status", "number", "version", "supersedes", "draft_id", "correction_reason", "as_of",
    "cancelled", "terms_json", "fingerprint", "historical_items", "other_items", "historical_total",
    "historical_reward", "adjudicated_value", "cash_balance", "unpaid_residual", "other_total", "other_payment",
    "gross", "survey_deduction", "survey_uncovered", "net", "surveyor_organisation_id", "warnings_json",
    "blockers_json", "pdf_sha256", "created_by", "created_at")

SEALED: tuple[Sealed, ...] = (
    Sealed("statements", _STATEMENT_COLUMNS, "demonstrativo emitido", where=f"status = '{STATEMENT_ISSUED}'",
           extra=(("pdf_content_sha256", "sha256({alias}.pdf)"),)),
    Sealed("decisions", ("id", "round_id", "item_id", "historical", "value_brl", "significance", "must_keep",
                         "basis", "supersedes", "decided_by", "decided_at"), "decisão da Comissão"),
    Sealed("assessment_log", ("id", "round_id", "item_id", "member_id", "historical", "amount", "currency",
                              "price_date", "rate", "rate_date", "value_brl", "significance", "must_keep", "source",
                              "source_note", "supersedes", "entered_by", "entered_at", "import_id"),
           "valor ou voto de membro da Comissão"),
    Sealed("process_numbers", ("id", "nup", "unit_code", "year", "sequence", "subject", "subject_id", "office_code",
                               "act_on", "assigned_by", "assigned_at"), "número único de protocolo (NUP)"),
    Sealed("users", ("id", "username", "full_name", "email", "role", "organisation_id", "commission_body",
                     "password_hash", "active"), "usuário (perfil e acesso)", append_only=False),
)


# Issue 24, item 5: an issued statement is one sealed whole — besides its header and PDF (above), the
# digest of its lines, survey-cost lines and adjudicated items, one seal per statement (row_id = its id).
STATEMENT_CONTENT = "statement_content"
_CONTENT_ROWS = (("lines", "statement_lines", ("line_no", "section", "key", "label", "amount", "detail", "basis"),
                  "line_no"),
                 ("survey_lines", "statement_survey_lines", ("line_no", "survey_contract", "line", "planned", "actual",
                                                             "approved_overrun", "overrun_reason", "accepted",
                                                             "variance"), "line_no"),
                 ("items", "statement_items", ("item_id", "grp", "value_brl", "significance"), "item_id"))


def _rows_digest(table: str, columns: tuple[str, ...], order: str) -> str:
    """SQL: the sha256 of the JSON lines of `table`'s rows of one statement ({alias}.id), in `order`."""
    fields = ", ".join(f'"{c}" := x."{c}"' for c in columns)
    return (f"(SELECT sha256(coalesce(string_agg(CAST(to_json(struct_pack({fields})) AS VARCHAR), chr(10) "
            f"ORDER BY x.{order}), '')) FROM {table} x WHERE x.statement_id = {{alias}}.id)")


_HEADER = SEALED[0]
SEALED += (Sealed(STATEMENT_CONTENT, ("id",), "linhas, custos de pesquisa e bens adjudicados (statement_lines, "
                  "statement_survey_lines, statement_items)", where=_HEADER.where, source=_HEADER.table,
                  extra=tuple((name, _rows_digest(t, cols, order)) for name, t, cols, order in _CONTENT_ROWS),
                  subject="Demonstrativo emitido nº {id}", baseline_alone=True),)
# Issue 25, rule 5: the day a value was converted at when the contract fixed a valuation date (art. 21 §3;
# migration 030 added the two columns after the log's seal was drawn): one more seal per assessment row.
ASSESSMENT_CONVERSION = "assessment_conversion"
SEALED += (Sealed(ASSESSMENT_CONVERSION, ("id",), "data de conversão de um valor de membro (art. 21 §3)",
                  source="assessment_log", extra=(("conversion_date", "{alias}.conversion_date"),
                                                   ("conversion_rate_date", "{alias}.conversion_rate_date")),
                  subject="Valor de membro nº {id}", baseline_alone=True),)
# Issue 27, section 1: the registry of issued documents (code, CRC and sha256 of every issued PDF), append-only.
SEALED += (Sealed("issued_documents", ("id", "code", "kind", "record_table", "record_id", "record_key", "office",
                                       "nup", "issued_at", "crc", "sha256", "size", "issued_by"),
                  "documento emitido (código de verificação)", baseline_alone=True),)
# Issue 26: the steps of a request's process (migration 060), append-only — the days the Authority's own
# periods of Lei 9.784/1999 run from, and the written reasons of its extensions.
SEALED += (Sealed("request_steps", ("id", "request_id", "kind", "day", "reference_day", "reason", "note",
                                    "recorded_by", "recorded_at"), "etapa de requerimento (Lei 9.784/1999)"),)
# Issue 27: the CPF of a user (migration 066, after the users' seal was drawn) — whose certificate must sign,
# whom a gov.br login is — re-sealed whenever it changes, like the user's row.
USER_CPF = "user_cpf"
SEALED += (Sealed(USER_CPF, ("id",), "CPF do usuário", append_only=False, source="users",
                  extra=(("cpf", "{alias}.cpf"),), subject="Usuário nº {id}", baseline_alone=True),)
# Issue 26 §2: the Authority's decisions (with their notification days), the appeals and their steps (migration
# 064), append-only — the days the appeal's periods run from, its instance and outcome.
SEALED += (Sealed("administrative_decisions", ("id", "kind", "record_table", "record_id", "office_code", "wreck_id",
                                               "contract_id", "organisation_id", "summary", "authority", "decided_on",
                                               "notice", "notified_on", "recorded_by", "recorded_at"),
                  "decisão administrativa (Lei 9.784/1999)"),
           Sealed("appeals", ("id", "decision_id", "instance", "filed_on", "appellant", "organisation_id", "grounds",
                              "on_time", "suspensive", "suspensive_reason", "recorded_by", "recorded_at"),
                  "recurso administrativo (Lei 7.542/1986 art. 33)"),
           Sealed("appeal_steps", ("id", "appeal_id", "kind", "day", "outcome", "reason", "note", "recorded_by",
                                   "recorded_at"), "etapa de recurso (Lei 9.784/1999)"))
# Issue 27 §2: the signatures verified on issued documents (migration 067), append-only — who signed which
# revision of which document, the outcome of its verification and the sha256 of the file.
SEALED += (Sealed("document_signatures", ("id", "document_id", "code", "upload_id", "revision", "signer_cpf",
                                          "signer_name", "signer_user_id", "signed_at", "outcome", "reason",
                                          "file_sha256", "file_size", "revision_end", "uploaded_by", "uploaded_at"),
                  "assinatura verificada de documento emitido", baseline_alone=True),)
BY_TABLE = {s.table: s for s in SEALED}


@dataclass
class SealState:
    """What a Store keeps between its writes: the `baseline_alone` tables that have no seal yet
    (looked up once per open; a table leaves the set when a committed write sealed it)."""
    fresh: set[str]

    def committed(self, sealed: set[str]) -> None:
        self.fresh -= sealed


def _has_seals(cur: Any) -> bool:
    return bool(cur.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ? "
                            "AND database_name = current_database()", [SEALS_TABLE]).fetchall()[0][0])


def _dirty_sql(s: Sealed) -> str:
    """(id, digest) of the rows of a mutable table whose content differs from their latest seal."""
    return (f"SELECT r.id, {s.digest_sql()} AS d FROM {s.rows_from} r LEFT JOIN (SELECT row_id, "
            f"arg_max(digest, audit_id) AS d FROM {SEALS_TABLE} WHERE tbl = '{s.table}' GROUP BY row_id) z "
            f"ON z.row_id = r.id WHERE ({s.where}) AND z.d IS DISTINCT FROM {s.digest_sql()}")


def _append_only() -> tuple[Sealed, ...]:
    return tuple(s for s in SEALED if s.append_only)


def _mutable() -> tuple[Sealed, ...]:
    return tuple(s for s in SEALED if not s.append_only)


def enabled(cur: Any) -> SealState | None:
    """The seal state of this database (None when it does not seal rows: migration 017 not applied).
    The Store asks once per open."""
    if not _has_seals(cur):
        return None
    alone = [s.table for s in SEALED if s.baseline_alone]
    found = {r[0] for r in cur.execute(f"SELECT DISTINCT tbl FROM {SEALS_TABLE} WHERE list_contains(?, tbl)",
                                       [alone]).fetchall()} if alone else set()
    return SealState(fresh=set(alone) - found)


def begin(cur: Any, state: SealState | None = None) -> dict[str, Any]:
    """What `finish` compares with: the max id of each append-only table and the rows of the others
    that already differ from their seal (changed behind the application's back: left unsealed)."""
    appended = _append_only()
    parts = [f"(SELECT coalesce(max(id), 0) FROM {s.rows_from})" for s in appended]
    row = cur.execute(f"SELECT {', '.join(parts)}, (SELECT count(*) FROM (SELECT 1 FROM {SEALS_TABLE} LIMIT 1))"
                      ).fetchall()[0]
    marks: dict[str, Any] = {s.table: int(v) for s, v in zip(appended, row)}
    marks["_baseline"] = bool(row[-1])
    marks["_fresh"] = set(state.fresh) if state is not None else set()
    for s in _mutable():
        known = marks["_baseline"] and s.table not in marks["_fresh"]   # else every row is sealed now
        marks[s.table] = {int(i): d for i, d in cur.execute(_dirty_sql(s)).fetchall()} if known else {}
    return marks


def _floor(s: Sealed, marks: dict[str, Any]) -> int:
    """The id above which an append-only table's rows are sealed now (0: every row, the baseline)."""
    if not marks["_baseline"] or s.table in marks["_fresh"]:
        return 0
    return int(marks[s.table])


def _pending(cur: Any, marks: dict[str, Any]) -> dict[str, list[tuple[int, str]] | int]:
    """Per table, what to seal: (id, digest) pairs for the mutable tables, the lower id bound for the
    append-only ones (0 for the baseline of a database without seals: every row)."""
    out: dict[str, Any] = {}
    appended = _append_only()
    floors = {s.table: _floor(s, marks) for s in appended}
    parts = [f"(SELECT count(*) FROM {s.rows_from} r WHERE r.id > {int(floors[s.table])} AND ({s.where}))"
             for s in appended]
    for s, n in zip(appended, cur.execute(f"SELECT {', '.join(parts)}").fetchall()[0]):
        if n:
            out[s.table] = floors[s.table]
    for s in _mutable():
        before = marks[s.table]
        changed = [(int(i), d) for i, d in cur.execute(_dirty_sql(s)).fetchall() if before.get(int(i)) != d]
        if changed:
            out[s.table] = changed
    return out


def finish(tx: Any, marks: dict[str, Any] | None) -> set[str]:
    """Seal what this transaction wrote (see the module docstring); called just before COMMIT.
    Returns the tables it sealed rows of (for `SealState.committed` once the COMMIT succeeded)."""
    if marks is None:
        return set()
    cur = tx.cur
    pending = _pending(cur, marks)
    if not pending:
        return set()
    from valuation.db import audit

    target = tx.last_audit_id
    if target is None:
        row = audit.append(cur, at=tx.store.now(), actor=tx.actor, action=SEALED_ACTION, entity=SEALS_TABLE,
                           entity_id=None, before=None, after={"tables": sorted(pending)})
        target = int(row["id"])
    by_table = {s.table: s for s in SEALED}
    for table, what in pending.items():
        s = by_table[table]
        if isinstance(what, int):
            cur.execute(f"INSERT INTO {SEALS_TABLE} SELECT ?, r.id, {s.digest_sql()}, ? FROM {s.rows_from} r "
                        f"WHERE r.id > ? AND ({s.where})", [table, target, what]).fetchall()
        else:
            cur.executemany(f"INSERT INTO {SEALS_TABLE} VALUES (?, ?, ?, ?)", [[table, i, d, target] for i, d in what])
    audit.attach_seals(cur, target, json.dumps(aggregates(cur, target), sort_keys=True, separators=(",", ":")))
    return set(pending)


_AGGREGATE_SQL = (f"SELECT audit_id, tbl, count(*) AS n, sha256(string_agg(CAST(row_id AS VARCHAR) || ':' || digest, "
                  f"chr(10) ORDER BY row_id)) AS d FROM {SEALS_TABLE}")


def aggregates(cur: Any, audit_id: int) -> dict[str, dict[str, Any]]:
    """{table: {"rows": n, "digest": …}} of the seals recorded under one audit row."""
    rows = cur.execute(_AGGREGATE_SQL + " WHERE audit_id = ? GROUP BY audit_id, tbl", [audit_id]).fetchall()
    return {tbl: {"rows": int(n), "digest": d} for _a, tbl, n, d in rows}


def verify(db: Any) -> tuple[bool, str]:
    """(ok, message in pt-BR): the seals against the chain, then every sealed row against its seal.
    `db` has fetch/scalar (a Store or a cursor reader); call it on a chain that verified."""
    if not db.scalar("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ? "
                     "AND database_name = current_database()", [SEALS_TABLE]):
        return True, ""
    recorded: dict[int, dict[str, Any]] = {}
    for r in db.fetch("SELECT id, seals_json FROM audit_log WHERE seals_json IS NOT NULL ORDER BY id"):
        recorded[int(r["id"])] = json.loads(r["seals_json"])
    found: dict[int, dict[str, Any]] = {}
    for r in db.fetch(_AGGREGATE_SQL + " GROUP BY audit_id, tbl ORDER BY audit_id, tbl"):
        found.setdefault(int(r["audit_id"]), {})[r["tbl"]] = {"rows": int(r["n"]), "digest": r["d"]}
    if not recorded and not found:
        return True, " Conteúdo protegido ainda não selado (a próxima gravação registra os selos)."
    for audit_id in sorted(set(recorded) | set(found)):
        if recorded.get(audit_id) != found.get(audit_id):
            return False, (f"Os selos de conteúdo registrados pelo registro de auditoria {audit_id} não conferem "
                           f"com a tabela {SEALS_TABLE}: ela foi alterada fora da aplicação.")
    notes = ""
    for s in SEALED:
        if s.baseline_alone and not db.scalar(f"SELECT count(*) FROM (SELECT 1 FROM {SEALS_TABLE} WHERE tbl = ? "
                                              "LIMIT 1)", [s.table]):
            notes += f" {s.subject.split(' nº')[0]}: conteúdo ainda não selado (a próxima gravação o sela)."
            continue
        bad = db.fetch_one(
            f"WITH cur AS (SELECT r.id, {s.digest_sql()} AS d FROM {s.rows_from} r WHERE {s.where}), "
            f"seal AS (SELECT row_id, arg_max(digest, audit_id) AS d FROM {SEALS_TABLE} WHERE tbl = ? GROUP BY row_id) "
            "SELECT coalesce(cur.id, seal.row_id) AS id, cur.d AS now, seal.d AS sealed FROM cur FULL JOIN seal "
            "ON cur.id = seal.row_id WHERE cur.d IS DISTINCT FROM seal.d ORDER BY 1 LIMIT 1", [s.table])
        if bad is not None:
            why = ("foi removido" if bad["now"] is None else "não tem selo (incluído fora da aplicação)"
                   if bad["sealed"] is None else "foi alterado (não confere com o selo registrado na cadeia)")
            return False, f"{s.subject.format(table=s.table, id=bad['id'])} ({s.label}): {why}."
    n = int(db.scalar(f"SELECT count(*) FROM {SEALS_TABLE}"))
    return True, f" Conteúdo protegido confere ({n} selo{'s' if n != 1 else ''} de linhas).{notes}"
