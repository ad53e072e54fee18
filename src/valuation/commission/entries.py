"""A member's entries in an open round: one at a time (a form), many at once (typed columns),
and reading them back (issue 3; Lei 7.542/1986 art. 20 §3, art. 21 §2).

Per item a member enters a vote, a value (currency + price date, converted with the stored rate
on or before the price date: never a later one) and, for a historical vote, a significance 1–5
and a "must keep" proposal, with the source of the value. Every entry is a new `assessment_log`
row (who, when, the rate used, the exact BRL value); a second entry for the same item is a
correction pointing at the row it replaces (`supersedes`). `assessment_current` holds the entry
in force and the item's consensus follows at once (`consensus_pivot`). While the round is open a
member sees only his or her own entries. The checks of a cell are `valuation.commission.sheet`'s,
shared with the sheet import (`sheet_import`), which writes through `write_entries` too.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.commission import consensus_pivot
from valuation.commission.consensus_sql import INLINE_IDS
from valuation.commission.entry_codes import score_code, score_code_sql, vote_code, vote_code_sql
from valuation.commission.fx import EXACT
from valuation.commission.rates import attach_rates
from valuation.commission.rounds import PSEUDONYM_SQL, ROUND_MEMO, YOU, fetch_round, register, status_conflict
from valuation.commission.sheet import (
    AMOUNT_TYPE,
    FIELD_TYPES,
    LABELS,
    MAX_VALUE_BRL,
    Entries,
    Problems,
    as_mask,
    check_entries,
    single_entry,
)
from valuation.core.errors import AccessDenied, InputError, Problem
from valuation.db.access import Principal, allowed, require
from valuation.db.paging import DEFAULT_PAGE_SIZE, check_page

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

__all__ = ["ENTRY_LABELS", "AssessmentImport", "RecordedEntry", "my_assessments", "record_assessment",
           "record_assessments_bulk", "round_entries"]

VALUES_AFTER_CLOSE = ("Rodada aberta: a DPC acompanha o andamento (quantos itens cada membro avaliou); os valores "
                      "e votos de cada membro aparecem no encerramento, como para os membros.")
TOO_BIG = "valor convertido em reais grande demais (máximo R$ 9.999.999.999.999.999,99)"
NEVER_LATER = " (nunca se usa cotação posterior à data do preço)"
AT_VALUATION_DATE = (", a data de avaliação fixada no contrato, pela qual se convertem os preços (Lei 7.542/1986, "
                     "art. 21 §3; nunca se usa cotação posterior)")
# Field labels for pages that show entry problems next to widgets.
ENTRY_LABELS = dict(LABELS)


@dataclass(frozen=True)
class RecordedEntry:
    """One row of the trail (assessment_log)."""

    log_id: int
    round_id: int
    item_id: int
    member_id: int
    historical: bool | None
    amount: Decimal | None
    currency: str | None
    price_date: date | None
    rate: Decimal | None          # the rate used (1 for BRL)
    rate_date: date | None        # its date, never after price_date (None for BRL)
    value_brl: Decimal | None     # amount × rate, exact
    significance: int | None
    must_keep: bool | None
    source: str | None
    source_note: str | None
    supersedes: int | None
    entered_by: str
    entered_at: datetime
    conversion_date: date | None = None       # the contract's valuation date used (art. 21 §3), else None
    conversion_rate_date: date | None = None  # the rate's day at that date (rate_date is then None)


@dataclass(frozen=True)
class AssessmentImport:
    """What a sheet import or a bulk entry wrote (import_id 0 and no file for a bulk entry)."""

    round_id: int
    import_id: int
    file_name: str
    sha256: str
    rows: int
    new: int
    corrections: int
    ignored_columns: tuple[str, ...]


def member_round(tx: Tx, round_id: int, *, count: bool = True, nup: bool = True) -> dict[str, Any]:
    """The round row, refused unless it is open (entries are made only then)."""
    row = fetch_round(tx, round_id, count=count, nup=nup)
    status_conflict(row, ("aberta",), "registrar avaliações")
    return row


def _column(frame: pd.DataFrame, name: str) -> pa.Array:
    return pa.array(frame[name].array, from_pandas=True)


# -- many entries (a sheet, a bulk entry) --------------------------------------------------------
def write_entries(tx: Tx, rnd: Mapping[str, Any], user: Principal, entries: Entries, item_ids: pa.Array, *,
                  import_id: int | None) -> tuple[pa.Table, int]:
    """Convert, check and write a batch of one member's entries (all or nothing).

    `item_ids` (int64, null where the item is unknown — already reported) lines up with
    `entries.frame`. Adds the rate problems to `entries.problems` and raises them all;
    otherwise appends assessment_log rows, brings assessment_current in step and
    recomputes the consensus of the items touched. Returns (the log rows written:
    id, item_id, supersedes; corrections).
    """
    f, p = entries.frame, entries.problems
    n = len(f)
    amount, currency, price_date = _column(f, "amount"), _column(f, "currency"), _column(f, "price_date")
    fixed = rnd.get("valuation_date")          # the contract's valuation date (art. 21 §3), else each price's
    lookup = price_date if fixed is None else pa.array([fixed] * n, type=pa.date32())
    rate, rate_date = _batch_rates(tx, p, amount, currency, lookup, fixed is not None)
    value = pc.multiply(pc.cast(amount, AMOUNT_TYPE), rate)       # decimal128(37,8): exact
    p.add(as_mask(pc.greater(value, pa.scalar(MAX_VALUE_BRL, pa.decimal128(18, 2)))), "amount", TOO_BIG)
    p.raise_if_any()

    log = pa.table({
        "round_id": pa.array(np.full(n, rnd["id"], dtype=np.int64)),
        "item_id": item_ids,
        "member_id": pa.array(np.full(n, user.id, dtype=np.int64)),
        "historical": _column(f, "historical"),
        "amount": pc.cast(amount, AMOUNT_TYPE),
        "currency": currency,
        "price_date": price_date,
        "rate": rate,
        **_rate_dates(rate_date, fixed, amount),
        "value_brl": pc.cast(value, pa.decimal128(26, 8)),
        "significance": pc.cast(_column(f, "significance"), pa.int32()),
        "must_keep": _column(f, "must_keep"),
        "source": _column(f, "source"),
        "source_note": _column(f, "source_note"),
    })
    # A few items: name them in every statement, so that DuckDB reads only the row groups
    # holding them (a one-value correction must not scan a million-item round).
    ids = np.unique(pc.drop_null(item_ids).to_numpy()).tolist()
    only = f" AND c.item_id IN ({', '.join(map(str, ids))})" if len(ids) <= INLINE_IDS else ""
    written = _append_log(tx, rnd, user, log, import_id, only)
    _current_in_step(tx, rnd, user, written, only)
    consensus_pivot.bulk_entries(tx, rnd, user.id, written, ids)
    written = written.sort_by("id").select(["id", "item_id", "supersedes"])
    corrections = int(pc.sum(pc.is_valid(written["supersedes"]).cast(pa.int64())).as_py() or 0)
    return written, corrections


def _rate_dates(rate_date: pa.Array, fixed: date | None, amount: pa.Array) -> dict[str, pa.Array]:
    """The log's date columns of a batch (migration 030): the rate's day in `rate_date` for a price-date
    conversion; at the contract's valuation date, `conversion_date` and `conversion_rate_date` instead."""
    n = len(rate_date)
    if fixed is None:
        return {"rate_date": rate_date, "conversion_date": pa.nulls(n, pa.date32()),
                "conversion_rate_date": pa.nulls(n, pa.date32())}
    used = pc.if_else(amount.is_valid(), pa.scalar(fixed, pa.date32()), pa.scalar(None, pa.date32()))
    return {"rate_date": pa.nulls(n, pa.date32()), "conversion_date": used, "conversion_rate_date": rate_date}


def _batch_rates(tx: Tx, p: Problems, amount: pa.Array, currency: pa.Array,
                 price_date: pa.Array, fixed: bool = False) -> tuple[pa.Array, pa.Array]:
    """(rate, rate_date) of every good row with a value, by one ASOF join in row order; a currency
    without rates, or without one on or before the price date (`fixed`: the contract's valuation
    date, whose day every row then carries), is a problem of its row."""
    n = len(amount)
    needs_rate = ~p.bad_rows() & as_mask(amount.is_valid())
    if not needs_rate.any():
        return pa.nulls(n, pa.decimal128(18, 6)), pa.nulls(n, pa.date32())
    stage = pa.table({"row": pa.array(np.arange(n), type=pa.int64()),
                      "currency": pc.if_else(pa.array(needs_rate), currency, pa.scalar(None, pa.string())),
                      "price_date": price_date})
    view = register(tx, "rates", stage)
    try:
        found = attach_rates(tx, view)
    finally:
        tx.cur.unregister(view)
    known = as_mask(found["known"])
    unknown_currency = needs_rate & ~known
    no_rate = needs_rate & known & ~as_mask(found["rate"].is_valid())
    if unknown_currency.any():
        names = np.array(pc.filter(currency, pa.array(unknown_currency)).to_pylist(), dtype=object)
        p.add(unknown_currency, "currency", "não há cotação de " + names + " cadastrada: cadastre-a em Câmbio")
    if no_rate.any():
        names = np.array(pc.filter(currency, pa.array(no_rate)).to_pylist(), dtype=object)
        days = np.array([d.strftime("%d/%m/%Y") for d in pc.filter(price_date, pa.array(no_rate)).to_pylist()],
                        dtype=object)
        p.add(no_rate, "price_date", "não há cotação de " + names + " em ou antes de " + days
              + (AT_VALUATION_DATE if fixed else NEVER_LATER))
    return (found["rate"].combine_chunks().cast(pa.decimal128(18, 6)),
            found["rate_date"].combine_chunks().cast(pa.date32()))


def _append_log(tx: Tx, rnd: Mapping[str, Any], user: Principal, log: pa.Table, import_id: int | None,
                only: str) -> pa.Table:
    """Insert the log rows, each pointing at the member's entry in force it corrects; returns them."""
    view = register(tx, "entries", log)
    try:
        return tx.cur.sql(
            f"INSERT INTO assessment_log (round_id, item_id, member_id, historical, amount, currency, price_date, "
            f"rate, rate_date, conversion_date, conversion_rate_date, value_brl, significance, must_keep, source, "
            f"source_note, supersedes, entered_by, entered_at, import_id) "
            f"SELECT s.round_id, s.item_id, s.member_id, s.historical, s.amount, s.currency, s.price_date, s.rate, "
            f"s.rate_date, s.conversion_date, s.conversion_rate_date, s.value_brl, s.significance, s.must_keep, "
            f"s.source, s.source_note, c.log_id, ?, ?, ? "
            f"FROM {view} s LEFT JOIN (SELECT c.item_id, c.log_id FROM assessment_current c WHERE c.round_id = ? "
            f"AND c.member_id = ?{only}) c ON c.item_id = s.item_id "
            f"RETURNING id, round_id, item_id, member_id, historical, value_brl, significance, must_keep, supersedes",
            params=[user.username, tx.store.now(), import_id, rnd["id"], user.id]).to_arrow_table()
    finally:
        tx.cur.unregister(view)


def _current_in_step(tx: Tx, rnd: Mapping[str, Any], user: Principal, written: pa.Table, only: str) -> None:
    """assessment_current follows the new log rows: corrections update, first entries insert."""
    view = register(tx, "written", written)
    try:
        vcode = vote_code_sql("l", rnd["president_id"])
        scode = score_code_sql("l")
        tx.execute(
            f"UPDATE assessment_current AS c SET log_id = l.id, historical = l.historical, value_brl = l.value_brl, "
            f"significance = l.significance, must_keep = l.must_keep, vote_code = {vcode}, "
            f"score_code = {scode} FROM {view} l "
            f"WHERE l.supersedes IS NOT NULL AND c.round_id = l.round_id AND c.item_id = l.item_id "
            f"AND c.member_id = l.member_id AND c.round_id = ? AND c.member_id = ?{only}", [rnd["id"], user.id])
        tx.execute(
            f"INSERT INTO assessment_current (round_id, item_id, member_id, log_id, historical, value_brl, "
            f"significance, must_keep, vote_code, score_code) SELECT l.round_id, l.item_id, l.member_id, l.id, "
            f"l.historical, l.value_brl, l.significance, l.must_keep, {vcode}, {scode} "
            f"FROM {view} l WHERE l.supersedes IS NULL")
    finally:
        tx.cur.unregister(view)


# -- one entry (a form) ---------------------------------------------------------------------------
def record_assessment(store: Store, user: Principal, round_id: int, item_id: int, *, historical: bool | None,
                      amount: Decimal | None, currency: str | None, price_date: date | None,
                      significance: int | None, must_keep: bool | None, source: str | None,
                      source_note: str | None = None) -> RecordedEntry:
    """Record the member's own vote/value for one item of an open round (Lei 7.542 art. 20 §3,
    art. 21 §2). A second entry for the same item is a correction: a new row pointing at the
    one it replaces. Bad input → InputError naming each field (pt-BR); nothing written."""
    require(user, "enter_assessments")
    entries = single_entry(historical=historical, amount=amount, currency=currency, price_date=price_date,
                           significance=significance, must_keep=must_keep, source=source,
                           source_note=source_note, today=store.today())
    if isinstance(item_id, bool) or not isinstance(item_id, int):
        entries.problems.add(np.array([True]), "item_id", "identificador inválido")
        entries.problems.raise_if_any()

    def run(tx: Tx) -> dict[str, Any]:
        rnd = member_round(tx, round_id, count=False, nup=False)
        # Every member's entry in force for the item, read once: the member's own (the one corrected)
        # and the others (the item's consensus, `consensus_pivot.one_entry`).
        item_rows = tx.cur.execute("SELECT member_id, log_id, historical, value_brl, significance, must_keep "
                                   "FROM assessment_current WHERE round_id = ? AND item_id = ?",
                                   [round_id, item_id]).fetchall()
        # An item with an entry in force is in the round: entries are written only for the round's items
        # (here and `write_entries`), and a round's items are given once, by `open_round`, never removed —
        # so round_items is read only for an item nobody valued yet (issue 28: one statement of ~20).
        in_round = bool(item_rows) or tx.fetch_one("SELECT 1 AS x FROM round_items WHERE round_id = ? "
                                                   "AND item_id = ?", [round_id, item_id]) is not None
        if not in_round:
            entries.problems.add(np.array([True]), "item_id", f"não faz parte da rodada {rnd['number']}")
        prev = next((int(r[1]) for r in item_rows if int(r[0]) == user.id), None)
        before = None if prev is None else tx.fetch_one("SELECT * FROM assessment_log WHERE id = ?", [prev])
        after = None if not in_round else _write_one(tx, rnd, user, entries, item_id, prev,
                                                     [(r[0], *r[2:]) for r in item_rows])
        if after is None:      # not a plain entry (or not in the round): the batch path checks and reports
            written, _ = write_entries(tx, rnd, user, entries, pa.array([item_id], type=pa.int64()), import_id=None)
            after = tx.fetch_one("SELECT * FROM assessment_log WHERE id = ?", [int(written["id"][0].as_py())])
            assert after is not None
        tx.audit("assessment_corrected" if before else "assessment_recorded", "assessment", after["id"],
                 _audit_entry(before), _audit_entry(after))
        return after

    # The one sealed table an entry writes (its log row, `write_entries` too): the seals read it alone
    # (issue 28: the other sealed tables were ~5 of the entry's ~24 ms at a million items); one row, so its
    # seals are written and read back in one statement (`small`). It writes no round, contract or process
    # number (what `fetch_round` reads): the round row comes from the memo and stays there (`keeps`).
    return _entry(store.write(user.username, run, sealed=("assessment_log",), small=True, keeps=ROUND_MEMO))


def _write_one(tx: Tx, rnd: Mapping[str, Any], user: Principal, entries: Entries, item_id: int,
               prev: int | None, in_force: list[tuple[Any, ...]]) -> dict[str, Any] | None:
    """`write_entries` for one entry of `record_assessment`, with plain parameters.

    The same checks, messages and rows as `write_entries` (the log row, the current row,
    the item's consensus); `prev` is the member's entry in force for the item (its log id) and
    `in_force` every member's entry in force before this one (member_id, historical, value_brl,
    significance, must_keep), both already read by the caller. Returns the new assessment_log row,
    or None when the entry is not a plain one (the caller then takes `write_entries`)."""
    one, p = entries.one, entries.problems
    if one is None:
        return None
    amount, currency, price_date = one["amount"], one["currency"], one["price_date"]
    rate: Decimal | None = None
    rate_date: date | None = None
    fixed: date | None = rnd.get("valuation_date")     # the contract's valuation date (art. 21 §3)
    if not bool(p.bad_rows()[0]) and amount is not None:
        if currency is None or price_date is None:
            return None
        rate, rate_date = _one_rate(tx, p, currency, price_date if fixed is None else fixed, fixed is not None)
    value: Decimal | None = None
    if amount is not None and rate is not None:
        value = EXACT.multiply(amount, rate)          # exact, as decimal128(37,8)
        if value > MAX_VALUE_BRL:
            p.add(np.array([True]), "amount", TOO_BIG)
    p.raise_if_any()

    historical, significance, must_keep = one["historical"], one["significance"], one["must_keep"]
    row = tx.fetch_one(
        "INSERT INTO assessment_log (round_id, item_id, member_id, historical, amount, currency, price_date, "
        "rate, rate_date, conversion_date, conversion_rate_date, value_brl, significance, must_keep, source, "
        "source_note, supersedes, entered_by, entered_at, import_id) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL) RETURNING *",
        [rnd["id"], item_id, user.id, historical, amount, currency, price_date, rate,
         rate_date if fixed is None else None, None if fixed is None or rate is None else fixed,
         rate_date if fixed is not None else None, value,
         significance, must_keep, one["source"], one["source_note"], prev, user.username,
         tx.store.now()])
    assert row is not None
    tx.appended("assessment_log", row)            # its seals come from this row (`Tx.appended`)
    log_id = int(row["id"])
    president = rnd["president_id"]
    vcode = vote_code(historical, must_keep, president is not None and int(president) == user.id)
    scode = score_code(significance)
    if prev is not None:
        tx.execute("UPDATE assessment_current SET log_id = ?, historical = ?, value_brl = ?, significance = ?, "
                   "must_keep = ?, vote_code = ?, score_code = ? WHERE round_id = ? AND item_id = ? AND member_id = ?",
                   [log_id, historical, value, significance, must_keep, vcode, scode, rnd["id"], item_id, user.id])
    else:
        tx.execute("INSERT INTO assessment_current (round_id, item_id, member_id, log_id, historical, value_brl, "
                   "significance, must_keep, vote_code, score_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [rnd["id"], item_id, user.id, log_id, historical, value, significance, must_keep, vcode, scode])
    # The item's entries in force now: the others as read, this member's as just written (the log row's
    # values, as stored: assessment_current holds the same columns of the same types).
    now = [r for r in in_force if int(r[0]) != user.id]
    now.append((user.id, row["historical"], row["value_brl"], row["significance"], row["must_keep"]))
    consensus_pivot.one_entry(tx, rnd, user.id, item_id, log_id, historical=historical, value_brl=value,
                              significance=significance, must_keep=must_keep, in_force=now)
    return row


def _one_rate(tx: Tx, p: Problems, currency: str, price_date: date,
              fixed: bool = False) -> tuple[Decimal | None, date | None]:
    """The rate of one value (1 for BRL) and its date, or a problem of the entry when there is none;
    `price_date` is the contract's valuation date when `fixed` (art. 21 §3)."""
    if currency == "BRL":
        return Decimal("1.000000"), None
    found = tx.fetch_one("SELECT brl, day FROM fx_rates WHERE currency = ? AND day <= ? ORDER BY day DESC LIMIT 1",
                         [currency, price_date])
    if found is not None:
        return found["brl"], found["day"]
    if tx.fetch_one("SELECT 1 AS x FROM fx_rates WHERE currency = ? LIMIT 1", [currency]) is None:
        p.add(np.array([True]), "currency",
              np.array(["não há cotação de " + currency + " cadastrada: cadastre-a em Câmbio"], dtype=object))
    else:
        p.add(np.array([True]), "price_date",
              np.array(["não há cotação de " + currency + " em ou antes de " + price_date.strftime("%d/%m/%Y")
                        + (AT_VALUATION_DATE if fixed else NEVER_LATER)], dtype=object))
    return None, None


_ENTRY_FIELDS = tuple(f.name for f in fields(RecordedEntry))
_AUDITED = ("id", "round_id", "item_id", "member_id", "historical", "amount", "currency", "price_date", "rate",
            "rate_date", "conversion_date", "conversion_rate_date", "value_brl", "significance", "must_keep", "source",
            "source_note", "supersedes")


def _entry(row: Mapping[str, Any]) -> RecordedEntry:
    data: dict[str, Any] = {k: row.get(k) for k in _ENTRY_FIELDS if k != "log_id"}
    return RecordedEntry(log_id=int(row["id"]), **data)


def _audit_entry(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return {k: row.get(k) for k in _AUDITED} if row else None


# -- typed columns (generated or migrated data) -----------------------------------------------------
# The entry's fields (sheet.FIELD_TYPES), addressed by the item's id instead of its code.
_BULK_TYPES: dict[str, pa.DataType] = {"item_id": pa.int64(),
                                       **{k: t for k, t in FIELD_TYPES.items() if k != "item_code"}}


def record_assessments_bulk(store: Store, user: Principal, round_id: int,
                            entries: pd.DataFrame | pa.Table) -> AssessmentImport:
    """Many of the member's own entries at once, from typed columns (for generated or
    migrated data): item_id, historical, amount (exact decimals, never floats), currency,
    price_date, significance, must_keep, source, source_note — absent columns are empty.
    The same rules as `record_assessment`, all or nothing; problems are named
    `linha N, coluna X` with N = row position + 1. One transaction, Arrow inserts."""
    require(user, "enter_assessments")
    cols = _bulk_columns(entries)
    n = len(cols["item_id"])
    frame = pd.DataFrame({name: pd.Series(pd.arrays.ArrowExtensionArray(cols["item_id"].cast(pa.string())
                                                                        if name == "item_code" else cols[name]))
                          for name in ("item_code", *[k for k in _BULK_TYPES if k != "item_id"])})
    checked = check_entries(Entries(frame, Problems(n, lines=np.arange(1, n + 1, dtype=np.int64))),
                            today=store.today())

    def run(tx: Tx) -> AssessmentImport:
        rnd = member_round(tx, round_id)
        view = register(tx, "bulk_ids", pa.table({"row": pa.array(np.arange(n), type=pa.int64()),
                                                  "item_id": cols["item_id"]}))
        try:
            outside = tx.cur.sql(f"SELECT s.row FROM {view} s LEFT JOIN round_items ri ON ri.round_id = "
                                 f"{int(round_id)} AND ri.item_id = s.item_id WHERE ri.item_id IS NULL"
                                 ).to_arrow_table()["row"].to_numpy()
            dup = tx.cur.sql(f"SELECT row FROM (SELECT row, row_number() OVER (PARTITION BY item_id ORDER BY row) "
                             f"AS k FROM {view}) WHERE k > 1").to_arrow_table()["row"].to_numpy()
        finally:
            tx.cur.unregister(view)
        for rows, message in ((outside, f"o item não faz parte da rodada {rnd['number']}"), (dup, "item repetido")):
            mask = np.zeros(n, dtype=bool)
            mask[rows] = True
            checked.problems.add(mask, "item_code", message)
        written, corrections = write_entries(tx, rnd, user, checked, cols["item_id"], import_id=None)
        result = AssessmentImport(round_id=round_id, import_id=0, file_name="", sha256="", rows=written.num_rows,
                                  new=written.num_rows - corrections, corrections=corrections, ignored_columns=())
        tx.audit("assessments_recorded", "assessment_round", round_id, None,
                 {"rows": result.rows, "new": result.new, "corrections": corrections, "member_id": user.id})
        return result

    return store.write(user.username, run)


def _bulk_columns(entries: pd.DataFrame | pa.Table) -> dict[str, pa.Array]:
    """The typed columns of a bulk entry (absent ones null); InputError for an unknown column, a
    float amount, a column of the wrong type, or a row without item_id."""
    table = entries if isinstance(entries, pa.Table) else pa.Table.from_pandas(entries, preserve_index=False)
    unknown = [c for c in table.column_names if c not in _BULK_TYPES]
    if unknown or "item_id" not in table.column_names:
        raise InputError(Problem("entries", "Colunas: " + (f"desconhecidas: {', '.join(unknown)}" if unknown
                                                           else "falta item_id") + "."))
    cols: dict[str, pa.Array] = {}
    for name, typ in _BULK_TYPES.items():
        if name not in table.column_names:
            cols[name] = pa.nulls(table.num_rows, typ)
            continue
        arr = table.column(name).combine_chunks()
        if name == "amount" and pa.types.is_floating(arr.type):
            raise InputError(Problem("amount", "Valor: use decimais exatos, nunca números de ponto flutuante."))
        try:
            cols[name] = arr.cast(typ)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InputError(Problem(name, f"{LABELS.get(name, name)}: tipo de coluna inválido ({arr.type}).")
                             ) from exc
    if pc.any(pc.is_null(cols["item_id"])).as_py():
        raise InputError(Problem("item_id", "Item: informe o identificador em todas as linhas."))
    cols["currency"] = pc.utf8_upper(cols["currency"])
    return cols


# -- reading entries --------------------------------------------------------------------------------
def my_assessments(store: Store, user: Principal, round_id: int, *, history: bool = False, page: int = 1,
                   page_size: int = DEFAULT_PAGE_SIZE) -> pd.DataFrame:
    """The member's own entries in a round: the ones in force (default) or the whole trail
    (`history=True`, corrections included), ordered by item code then time.

    Columns: log_id, item_id, item_code, description, historical, amount, currency,
    price_date, rate, rate_date, value_brl, significance, must_keep, source, source_note,
    supersedes, entered_by, entered_at, in_force."""
    require(user, "read_own_assessments")
    check_page(page, page_size)
    fetch_round(store, round_id)
    only = "" if history else "AND c.log_id IS NOT NULL"
    return store.fetch_df(
        f"""SELECT l.id AS log_id, l.item_id, i.item_code, i.description, l.historical, l.amount, l.currency,
                   l.price_date, l.rate, coalesce(l.conversion_rate_date, l.rate_date) AS rate_date,
                   l.conversion_date, l.value_brl, l.significance, l.must_keep, l.source,
                   l.source_note, l.supersedes, l.entered_by, l.entered_at, c.log_id IS NOT NULL AS in_force
            FROM assessment_log l JOIN items i ON i.id = l.item_id
            LEFT JOIN assessment_current c ON c.log_id = l.id
            WHERE l.round_id = ? AND l.member_id = ? {only}
            ORDER BY i.item_code, l.id LIMIT ? OFFSET ?""",
        [round_id, user.id, page_size, (page - 1) * page_size])


def round_entries(store: Store, user: Principal, round_id: int, *, item_id: int | None = None, page: int = 1,
                  page_size: int = DEFAULT_PAGE_SIZE) -> pd.DataFrame:
    """Every member's entry in force, per item (for the president's and DPC's review).

    dpc: with names, after the close (while the round is open dpc follows the progress,
    `views.round_progress`, and this refuses: Delphi independence). Members: while
    the round is open, only their own rows (the others' are not returned); after the close,
    every row with the member replaced by a per-round pseudonym ('Membro N'; 'Você' for their
    own). Explorers and the admin: refused. Columns: item_id, item_code, member, is_me, historical, amount, currency,
    price_date, rate, rate_date, value_brl, significance, must_keep, source, source_note,
    entered_at."""
    require(user, "read_rounds")
    check_page(page, page_size)
    row = fetch_round(store, round_id)
    is_open = row["status"] == "aberta"
    named = allowed(user, "read_member_names")
    if named and is_open:
        raise AccessDenied(VALUES_AFTER_CLOSE, user=user.username, action="round_entries")
    member_params: list[Any] = []
    where_params: list[Any] = []
    if named:
        member_sql, where = "u.full_name", "TRUE"
    else:
        member_sql = f"CASE WHEN c.member_id = ? THEN '{YOU}' ELSE 'Membro ' || CAST(m.n AS VARCHAR) END"
        member_params = [user.id]
        where, where_params = ("c.member_id = ?", [user.id]) if is_open else ("TRUE", [])
    extra, extra_params = ("", []) if item_id is None else (" AND c.item_id = ?", [item_id])
    sql = f"""
        WITH m AS (SELECT c.member_id, {PSEUDONYM_SQL} AS n
                   FROM (SELECT DISTINCT round_id, member_id FROM assessment_current WHERE round_id = ?) c)
        SELECT c.item_id, i.item_code, {member_sql} AS member, c.member_id = ? AS is_me,
               l.historical, l.amount, l.currency, l.price_date, l.rate,
               coalesce(l.conversion_rate_date, l.rate_date) AS rate_date, l.conversion_date, l.value_brl,
               l.significance, l.must_keep, l.source, l.source_note, l.entered_at
        FROM assessment_current c JOIN assessment_log l ON l.id = c.log_id JOIN items i ON i.id = c.item_id
        JOIN users u ON u.id = c.member_id JOIN m ON m.member_id = c.member_id
        WHERE c.round_id = ? AND {where}{extra}
        ORDER BY i.item_code, member LIMIT ? OFFSET ?"""
    params = [round_id, *member_params, user.id, round_id, *where_params, *extra_params, page_size,
              (page - 1) * page_size]
    return store.fetch_df(sql, params)
