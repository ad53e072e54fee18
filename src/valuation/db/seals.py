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

A write may name the sealed tables it writes (`Store.write(sealed=…)`: a member's entry names
`assessment_log`); then `begin` and `finish` read those alone. That changes nothing for what it writes; a
row it added to, or changed in, a table it did not name would stay unsealed and `verify` would name it,
as it names a row written behind the application's back.

`verify(db)` re-hashes every sealed row and names the first that differs from its latest seal (or
has none, or was removed), and checks `row_seals` against the chain.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from valuation.core.statuses import STATEMENT_ISSUED
from valuation.db import seal_digest

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
# The registry's versions (migration 070): every state a registry record had — who, when, why — append-only.
SEALED += (Sealed("registry_versions", ("id", "entity", "record_key", "version", "data_json", "reason", "origin",
                                        "changed_by", "changed_at"), "versão de registro do cadastro",
                  baseline_alone=True),)
# The dated acts that change a contract's state (migration 072), append-only.
SEALED += (Sealed("contract_acts", ("id", "contract_id", "act", "from_status", "to_status", "effective_on",
                                    "reference", "reason", "recorded_by", "recorded_at"),
                  "ato de situação de contrato", baseline_alone=True),)
# The office an officer answers for (migration 071, after the users' seal was drawn), re-sealed when it changes.
USER_OFFICE = "user_office"
SEALED += (Sealed(USER_OFFICE, ("id",), "Capitania do usuário", append_only=False, source="users",
                  extra=(("office_code", "{alias}.office_code"),), subject="Usuário nº {id}", baseline_alone=True),)
# Issue 44: the notification of an appeal's decision (migration 076), append-only — the day the next appeal's 10
# days run from (Lei 9.784/1999 art. 59).
SEALED += (Sealed("appeal_notices", ("id", "appeal_id", "notice", "notified_on", "recorded_by", "recorded_at"),
                  "ciência da decisão de recurso (Lei 9.784/1999 art. 59)"),)
# Issue 43, items 3 and 15: the kept copy of an act rendered on demand (migration 078), append-only — what the act
# said when it was issued (its content key) and the sha256 of the file every later download serves.
SEALED += (Sealed("issued_copies", ("id", "content_key", "sha256", "kept_at"),
                  "cópia registrada de documento emitido", baseline_alone=True),)
# Issue 42 item 5: the annulments of steps and events recorded by mistake (migration 080), append-only — which
# record, why, who and when (Lei 9.784/1999 arts. 50 and 53).
SEALED += (Sealed("annulments", ("id", "record_table", "record_id", "reason", "annulled_by", "annulled_at"),
                  "anulação de registro feito por engano (Lei 9.784/1999 art. 53)", baseline_alone=True),)
# Issue 43, item 4: the uploads of a signed file refused before any of its signatures was recorded (migration 079),
# append-only — who sent which file for which record, and why it was refused.
SEALED += (Sealed("signed_upload_refusals", ("id", "record_table", "record_id", "document_id", "code", "reason",
                                             "file_sha256", "file_size", "uploaded_by", "uploaded_at"),
                  "envio recusado de documento assinado", baseline_alone=True),)
# Issue 42 item 1: the filings, their files and the office's examination of each (migration 082), append-only — the
# day a filing reached the office starts the Authority's period (Lei 9.784/1999 art. 24) and ends the party's.
SEALED += (Sealed("filings", ("id", "request_id", "document_no", "kind", "subject", "organisation_id", "office_code",
                              "channel", "received_on", "filed_by", "filed_at"), "protocolo (peticionamento)",
                  subject="Protocolo nº {id}", baseline_alone=True),
           Sealed("filing_files", ("id", "filing_id", "position", "name", "media_type", "size_bytes", "sha256"),
                  "arquivo de protocolo", subject="Arquivo de protocolo nº {id}", baseline_alone=True),
           Sealed("filing_reviews", ("id", "filing_id", "note", "reviewed_by", "reviewed_at"),
                  "exame de protocolo pela OM (Lei 9.784/1999 art. 24)", subject="Exame de protocolo nº {id}",
                  baseline_alone=True))
# Issue 42 item 3: the intimations and their ciência (migration 084), append-only — the day a party's period runs from.
SEALED += (Sealed("intimations", ("id", "request_id", "act", "text", "fixed_day", "delivery", "organisation_id",
                                  "office_code", "tacit_days", "issued_by", "issued_at", "issued_on"),
                  "intimação", subject="Intimação nº {id}", baseline_alone=True),
           Sealed("intimation_ciencias", ("id", "intimation_id", "kind", "day", "opened_by", "step_id",
                                          "recorded_by", "recorded_at"),
                  "ciência de intimação (Lei 11.419/2006 art. 5)", subject="Ciência nº {id}", baseline_alone=True))
# Issue 42 item 2: each act as a document of its process, and the NUPs brought from the protocol system (migration
# 085), append-only — which process an act belongs to and its number in it.
SEALED += (Sealed("process_documents", ("id", "process_subject", "process_id", "document_no", "subject", "subject_id",
                                        "recorded_by", "recorded_at"),
                  "documento de processo", subject="Documento de processo nº {id}", baseline_alone=True),
           Sealed("adopted_numbers", ("id", "process_number_id", "recorded_by", "recorded_at"),
                  "NUP trazido do sistema de protocolo", subject="NUP adotado nº {id}",
                  baseline_alone=True))
BY_TABLE = {s.table: s for s in SEALED}


@dataclass
class SealState:
    """What a Store keeps between its writes: the `baseline_alone` tables that have no seal yet
    (looked up once per open; a table leaves the set when a committed write sealed it), and the
    highest id of each append-only table at its last commit (`tops`: a hint — `begin` checks it)."""
    fresh: set[str]
    tops: dict[str, int] = field(default_factory=dict)

    def committed(self, sealed: set[str], tops: dict[str, int] | None = None) -> None:
        self.fresh -= sealed
        if tops is not None:      # every append-only table's, or a scoped write's own (`begin`'s `only`)
            self.tops.update(tops)


def _has_seals(cur: Any) -> bool:
    return bool(cur.execute("SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ? "
                            "AND database_name = current_database()", [SEALS_TABLE]).fetchall()[0][0])


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


# What `begin` and `_pending` read, measured at a million-item round (6 M assessment rows, 12 M seals, on
# the shared 2 cores): the max ids as scalar subqueries of one SELECT took 10–40 ms, as a UNION ALL of one
# aggregate each 1–2 ms; a max(id) over a table with rows committed since the last checkpoint scans the
# whole column (30–80 ms), a max over `id >= mark` reads the last row group; a join of the users with
# their latest seals scans every seal (3–9 ms); binding a digest expression costs more than reading the
# users' columns. So: one UNION ALL over the append-only tables, one part per table the rows come from
# (`statements` carries two seals, `assessment_log` two), and the mutable tables' sealed values as read.
BASELINE_KEY = -1


def _union(parts: list[str]) -> str:
    return " UNION ALL ".join(parts)


def _sources(specs: tuple[Sealed, ...]) -> list[tuple[str, str, tuple[Sealed, ...]]]:
    """The seals grouped by the rows they cover — (table read, which rows, seals): one read per group."""
    groups: dict[tuple[str, str], list[Sealed]] = {}
    for spec in specs:
        groups.setdefault((spec.rows_from, spec.where), []).append(spec)
    return [(src, where, tuple(group)) for (src, where), group in groups.items()]


def _values(s: Sealed) -> list[str]:
    """The SQL of what a seal digests (its columns, its extra expressions), alias `r`."""
    return [f"r.{c}" for c in s.columns] + [e.format(alias="r") for _n, e in s.extra]


def _sealed_values(cur: Any, only: frozenset[str] | None = None) -> dict[str, dict[int, tuple[Any, ...]]]:
    """Per mutable seal (of the tables in `only`, or all), row id → the values its digest covers, as read
    now (one plain read per table: the digest is a function of them, so equal values mean an equal
    digest — no float column is sealed)."""
    out: dict[str, dict[int, tuple[Any, ...]]] = {}
    for src, where, group in _sources(_scoped(_mutable(), only)):
        exprs = list(dict.fromkeys(e for spec in group for e in _values(spec)))
        at = {spec.table: [exprs.index(e) for e in _values(spec)] for spec in group}
        rows = cur.execute(f"SELECT r.id, {', '.join(exprs)} FROM {src} r WHERE ({where})").fetchall()
        for spec in group:
            out[spec.table] = {int(r[0]): tuple(r[1 + i] for i in at[spec.table]) for r in rows}
    return out


def _digests_of(cur: Any, s: Sealed, ids: list[int]) -> dict[int, str]:
    """row id → its digest now, for a few rows of a mutable table."""
    rows = cur.execute(f"SELECT r.id, {s.digest_sql()} FROM {s.rows_from} r WHERE ({s.where}) "
                       "AND list_contains(?, r.id)", [ids]).fetchall()
    return {int(i): d for i, d in rows}


def _latest_seals(cur: Any, s: Sealed, ids: list[int]) -> dict[int, str]:
    """row id → the digest of its latest seal, for a few rows of one table."""
    rows = cur.execute(f"SELECT row_id, arg_max(digest, audit_id) FROM {SEALS_TABLE} WHERE tbl = ? "
                       "AND list_contains(?, row_id) GROUP BY row_id", [s.table, ids]).fetchall()
    return {int(i): d for i, d in rows}


def _scoped(specs: tuple[Sealed, ...], only: frozenset[str] | None) -> tuple[Sealed, ...]:
    """The seals of the tables a write named (`only`: the tables their rows come from), or all of them."""
    return specs if only is None else tuple(s for s in specs if s.rows_from in only)


ALSO_WIDTH = 5    # the columns of each part of `begin`'s `also` (its own parts are padded to as many)


def begin(cur: Any, state: SealState | None = None, only: frozenset[str] | None = None,
          small: bool = False, also: tuple[str, ...] = ()) -> dict[str, Any]:
    """What `finish` compares with: the max id of each append-only table, and the sealed values of
    every row of the others (None: every row is a candidate — the table has no seal yet).

    The max ids are exact: with the Store's `tops` of its last commit, `max(id) WHERE id >= top` gives
    the new max when rows were added since (by another Store of the process, or behind its back), the top
    itself when nothing was, and NULL when the top row is gone — then the whole table is read.

    `only` (a write that names the sealed tables it writes, `Store.write(sealed=…)`): those tables alone are
    read here and by `finish` — a row this write adds to, or changes in, another sealed table stays unsealed
    and `verify` names it; rows added behind the application's back stay unsealed as before. While a
    database has no seal at all, every table is read (its baseline is sealed whole); a `baseline_alone` seal
    without a seal yet is sealed whole by the next write that reads its table.

    `small` (`Store.write(small=True)`: the write appends a few rows — one entry): `finish` may seal them
    without counting them first (`_finish_small`). It decides only how the same seals are found, never which.

    `also`: SELECT parts of another read at BEGIN (`Store.transaction`: the audit anchor's, `audit.head_read`), run in
    the same statement — `ALSO_WIDTH` columns each, the first a key none of this read's own takes (0, 1, … and
    `BASELINE_KEY`); their rows are left, as read, in `marks["_also"]`."""
    hint = state.tops if state is not None else {}
    groups = _sources(_scoped(_append_only(), only))
    pad = ", NULL" * (ALSO_WIDTH - 2) if also else ""
    parts = []
    for k, (src, _where, group) in enumerate(groups):
        known = [int(hint[spec.table]) for spec in group if spec.table in hint]
        parts.append(f"SELECT {k}, max(id){pad} FROM {src} WHERE id >= {min(known)}" if len(known) == len(group)
                     else f"SELECT {k}, coalesce(max(id), 0){pad} FROM {src}")
    parts.append(f"SELECT {BASELINE_KEY}, count(*){pad} FROM (SELECT 1 FROM {SEALS_TABLE} LIMIT 1)")
    own = set(range(len(groups))) | {BASELINE_KEY}
    rows = cur.execute(_union(parts + list(also))).fetchall()
    found = {r[0]: r[1] for r in rows if r[0] in own}
    others = [r for r in rows if r[0] not in own]
    if only is not None and not found[BASELINE_KEY]:      # no seal at all yet: the baseline, every table
        return {**begin(cur, state), "_also": others}
    marks: dict[str, Any] = {"_only": only, "_small": small, "_also": others}
    for k, (src, _where, group) in enumerate(groups):
        top = found[k]
        if top is None:           # the top row of the last commit is gone (nothing at or above it)
            top = cur.execute(f"SELECT coalesce(max(id), 0) FROM {src}").fetchall()[0][0]
        marks.update({spec.table: int(top) for spec in group})
    marks["_baseline"] = bool(found[BASELINE_KEY])
    marks["_fresh"] = set(state.fresh) if state is not None else set()
    values = _sealed_values(cur, only)
    for spec in _scoped(_mutable(), only):
        known_seal = marks["_baseline"] and spec.table not in marks["_fresh"]   # else every row is sealed now
        marks[spec.table] = values[spec.table] if known_seal else None
    if state is not None:
        state.tops.update({spec.table: marks[spec.table] for spec in _scoped(_append_only(), only)})
    return marks


def _floor(s: Sealed, marks: dict[str, Any]) -> int:
    """The id above which an append-only table's rows are sealed now (0: every row, the baseline)."""
    if not marks["_baseline"] or s.table in marks["_fresh"]:
        return 0
    return int(marks[s.table])


def _pending(cur: Any, marks: dict[str, Any]) -> dict[str, list[tuple[int, str]] | int]:
    """Per table, what to seal: (id, digest) pairs for the mutable tables, the lower id bound for the
    append-only ones (0 for the baseline of a database without seals: every row). Leaves in
    `marks["_after"]` the max id of each append-only table (the Store's `tops` once committed) and in
    `marks["_counts"]` the rows to seal per append-only table.

    A row of a mutable table is sealed when its digest differs from its latest seal and from its digest
    at `begin`: a row changed behind the application's back before this transaction (it differed from
    its seal already) and left alone by it stays unsealed. Only the rows whose sealed values moved during
    the transaction (usually none) are digested and looked up in `row_seals`."""
    out: dict[str, Any] = {}
    only = marks.get("_only")
    groups = _sources(_scoped(_append_only(), only))
    parts = []
    for k, (src, where, group) in enumerate(groups):
        floors = [_floor(spec, marks) for spec in group]
        counts = ", ".join(f"count(*) FILTER (WHERE id > {f} AND ({where}))" for f in floors)
        parts.append(f"SELECT {k}, [{counts}], max(id) FROM {src} WHERE id > {min(floors)}")
    found = {int(k): (n, top) for k, n, top in cur.execute(_union(parts)).fetchall()} if parts else {}
    marks["_after"], marks["_counts"] = {}, {}
    for k, (_src, _where, group) in enumerate(groups):
        counts, top = found[k]
        for spec, n in zip(group, counts):
            marks["_after"][spec.table] = max(int(marks[spec.table]), int(top if top is not None else 0))
            if n:
                out[spec.table] = _floor(spec, marks)
                marks["_counts"][spec.table] = int(n)
    values = _sealed_values(cur, only)
    for spec in _scoped(_mutable(), only):
        before = marks[spec.table]
        moved = [i for i, v in values[spec.table].items() if before is None or before.get(i) != v]
        if moved:
            now, latest = _digests_of(cur, spec, moved), _latest_seals(cur, spec, moved)
            changed = [(i, now[i]) for i in moved if latest.get(i) != now[i]]
            if changed:
                out[spec.table] = changed
    return out


# Up to this many new seals in one transaction, their aggregates are computed here from the rows the
# INSERT returns; above it (a bulk entry: millions), by `aggregates` in SQL. The same values either way.
RETURNED_SEALS = 10_000


def _line_digest(pairs: list[tuple[int, str]]) -> dict[str, Any]:
    """What `_AGGREGATE_SQL` gives for one table's seals (row_id, digest) under one audit row."""
    text = "\n".join(f"{int(i)}:{d}" for i, d in sorted(pairs))
    return {"rows": len(pairs), "digest": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def finish(tx: Any, marks: dict[str, Any] | None) -> set[str]:
    """Seal what this transaction wrote (see the module docstring); called just before COMMIT.
    Returns the tables it sealed rows of (for `SealState.committed` once the COMMIT succeeded)."""
    if marks is None:
        return set()
    if _small_applies(tx, marks):
        return _finish_small(tx, marks)
    cur = tx.cur
    pending = _pending(cur, marks)
    if not pending:
        return set()
    if tx.last_audit_id is None:      # rows sealed by a write that audited nothing: an audit row of their own
        tx.audit(SEALED_ACTION, SEALS_TABLE, None, None, {"tables": sorted(pending)})
    target = int(tx.last_audit_id)
    by_table = {s.table: s for s in SEALED}
    appended = [(t, what) for t, what in pending.items() if isinstance(what, int)]
    returned = sum(marks["_counts"][t] for t, _ in appended) <= RETURNED_SEALS
    sealed: dict[str, list[tuple[int, str]]] = {}
    if appended:
        select = _union([f"SELECT '{t}', r.id, {by_table[t].digest_sql()}, {int(target)} FROM "
                         f"{by_table[t].rows_from} r WHERE r.id > {int(what)} AND ({by_table[t].where})"
                         for t, what in appended])
        if returned:
            for t, i, d in cur.execute(f"INSERT INTO {SEALS_TABLE} {select} RETURNING tbl, row_id, digest").fetchall():
                sealed.setdefault(t, []).append((int(i), d))
        else:
            cur.execute(f"INSERT INTO {SEALS_TABLE} {select}").fetchall()
    for table, what in pending.items():
        if not isinstance(what, int):
            cur.executemany(f"INSERT INTO {SEALS_TABLE} VALUES (?, ?, ?, ?)", [[table, i, d, target] for i, d in what])
            sealed[table] = list(what)
    summary = {t: _line_digest(pairs) for t, pairs in sealed.items()} if returned else aggregates(cur, target)
    tx.flush_audit(json.dumps(summary, sort_keys=True, separators=(",", ":")))   # hashed with the row, written once
    return set(pending)


def _small_applies(tx: Any, marks: dict[str, Any]) -> bool:
    """Whether `finish` may take `_finish_small`: the write said it appends a few rows (`begin`'s `small`), named
    its sealed tables, all of them append-only with every row sealed (`where` true), none sealed whole now
    (the baseline, a fresh `baseline_alone` seal), and it already has the audit row its seals go into."""
    only = marks.get("_only")
    if not marks.get("_small") or only is None or tx.last_audit_id is None or not marks["_baseline"]:
        return False
    if _scoped(_mutable(), only):
        return False
    return all(spec.where == "true" and spec.table not in marks["_fresh"] for spec in _scoped(_append_only(), only))


def _finish_small(tx: Any, marks: dict[str, Any]) -> set[str]:
    """`finish` for a write that appends a few rows: the rows above each table's mark at `begin` are sealed
    and read back by one INSERT … RETURNING, without `_pending`'s count first — or, when the write handed them
    over (`Tx.appended`) and they are exactly those rows, sealed by one INSERT of their digests computed here
    (`_known_seals`), without reading the table. The same rows, digests, audit row and `seals_json` as `finish`
    (which, for a few rows, also takes them from the INSERT's RETURNING); any number of rows stays right, only
    slower. Leaves in `marks["_after"]` the max id of each table read."""
    specs = _scoped(_append_only(), marks["_only"])
    target = int(tx.last_audit_id)
    known = _known_seals(tx.appended_rows, marks, specs)
    if known is None:
        select = _union([f"SELECT '{s.table}', r.id, {s.digest_sql()}, {target} FROM {s.rows_from} r "
                         f"WHERE r.id > {int(marks[s.table])}" for s in specs])
        found = tx.cur.execute(f"INSERT INTO {SEALS_TABLE} {select} RETURNING tbl, row_id, digest").fetchall()
    else:
        found = known
        if known:
            tx.cur.execute(f"INSERT INTO {SEALS_TABLE} VALUES {', '.join(['(?, ?, ?, ?)'] * len(known))}",
                           [v for t, i, d in known for v in (t, i, d, target)]).fetchall()
    sealed: dict[str, list[tuple[int, str]]] = {}
    for t, i, d in found:
        sealed.setdefault(t, []).append((int(i), d))
    marks["_after"] = {}
    for _src, _where, group in _sources(specs):     # every row of the source above the marks was returned
        top = max((i for s in group for i, _d in sealed.get(s.table, ())), default=0)
        marks["_after"].update({s.table: max(int(marks[s.table]), top) for s in group})
    if not sealed:
        return set()
    tx.flush_audit(json.dumps({t: _line_digest(pairs) for t, pairs in sealed.items()}, sort_keys=True,
                              separators=(",", ":")))
    return set(sealed)


def _known_seals(appended: dict[str, list[dict[str, Any]]], marks: dict[str, Any],
                 specs: tuple[Sealed, ...]) -> list[tuple[str, int, str]] | None:
    """`_finish_small`'s seals — (table, row id, digest), in its INSERT's order — computed from the rows the write
    says it appended (`Tx.appended`, every column as stored) instead of reading them back, or None (then they are
    read): only when, for every table read, those rows are exactly the ids just above its mark at `begin` (no row
    of another writer or of a rolled-back write between) and each digest is one `seal_digest` computes for
    certain — the same digests as `digest_sql`, byte for byte."""
    out: list[tuple[str, int, str]] = []
    for spec in specs:
        rows = sorted(appended.get(spec.rows_from, ()), key=lambda r: int(r["id"]))
        mark = int(marks[spec.table])
        if not rows or [int(r["id"]) for r in rows] != list(range(mark + 1, mark + 1 + len(rows))):
            return None
        for row in rows:
            digest = seal_digest.digest(spec, row)
            if digest is None:
                return None
            out.append((spec.table, int(row["id"]), digest))
    return out


_AGGREGATE_SQL = (f"SELECT audit_id, tbl, count(*) AS n, sha256(string_agg(CAST(row_id AS VARCHAR) || ':' || digest, "
                  f"chr(10) ORDER BY row_id)) AS d FROM {SEALS_TABLE}")


def aggregates(cur: Any, audit_id: int) -> dict[str, dict[str, Any]]:
    """{table: {"rows": n, "digest": …}} of the seals recorded under one audit row."""
    rows = cur.execute(_AGGREGATE_SQL + " WHERE audit_id = ? GROUP BY audit_id, tbl", [audit_id]).fetchall()
    return {tbl: {"rows": int(n), "digest": d} for _a, tbl, n, d in rows}


def verify(db: Any) -> tuple[bool, str]:
    """(ok, message in pt-BR): the seals against the chain, then every sealed row against its seal.
    `db` has fetch/scalar (a Store or a `store.Snapshot`); call it on a chain that verified."""
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
