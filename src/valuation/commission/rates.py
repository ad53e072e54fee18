"""The exchange-rate table (PTAX-style: BRL per unit of a currency on a day), rules.md §2.

Members may price an item in a foreign currency with the date of the price
(Lei 7.542/1986 art. 20 §3: "preços do mercado internacional"); the store converts
it with the rate of that date or else of the latest earlier date — never a later
one (`valuation.commission.fx`). This module keeps the table: manual entry (`add_rate`), import
of a series (`import_rates`), listing (`list_rates`), and the vectorised look-up
the assessment store uses (`attach_rates`, an ASOF join).

Who: dpc and the Commission's president write rates; dpc and the Commission read
them; explorers and the admin neither.

Import format (all or nothing; every bad row listed in pt-BR): a CSV/XLSX with the
columns date;currency;rate (header optional; names data/moeda/taxa accepted),
decimal comma or point, dates dd/mm/aaaa or ISO — or the Central Bank's daily
PTAX file layout without header (date;code;type;currency;buy;sell;…), whose
selling rate is used.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.commission.fx import BRL, is_currency_code
from valuation.commission.sheet import as_mask
from valuation.core.errors import InputError, Problem
from valuation.core.money import parse_brl
from valuation.db.access import Principal, require
from valuation.db.paging import check_page
from valuation.importing.cells import decimal_convention, default_convention, parse_dates, parse_decimal
from valuation.importing.tabular import normalise_header, read_table

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

RATE_TYPE = pa.decimal128(18, 6)      # fx_rates.brl DECIMAL(18,6)
MAX_PAGE_SIZE = 500
MAX_PROBLEMS = 1_000
_HEADERS = {
    "day": ("date", "day", "data", "dia", "data_da_cotacao", "data_cotacao"),
    "currency": ("currency", "moeda", "codigo_da_moeda", "simbolo"),
    "brl": ("rate", "brl", "taxa", "cotacao", "taxa_de_venda", "venda", "ptax", "valor"),
}
_HEADER_TO_FIELD = {a: f for f, aliases in _HEADERS.items() for a in aliases}
_COLUMN_LABEL = {"day": "data", "currency": "moeda", "brl": "taxa"}


@dataclass(frozen=True)
class RateRow:
    currency: str
    day: date
    brl: Decimal
    source: str
    recorded_by: str
    recorded_at: datetime


@dataclass(frozen=True)
class RatesImport:
    """What an import did: rows read, rates added, rows already stored with the same value."""

    rows: int
    added: int
    unchanged: int
    currencies: tuple[str, ...]
    first_day: date | None
    last_day: date | None
    sha256: str


# -- manual entry -------------------------------------------------------------------------
def add_rate(store: Store, user: Principal, currency: str, day: date, brl: Decimal | str | int, *,
             source: str = "manual", replace: bool = False) -> RateRow:
    """Store the rate of `currency` on `day` (BRL per unit). Refuses BRL, a future day, a
    non-positive rate or more than 6 decimal places. An existing rate of that day with the
    same value is kept as is; a different one is refused unless `replace` (the values
    already converted keep the rate they used: assessment_log.rate)."""
    require(user, "add_rates")
    problems: list[Problem] = []
    cur = currency.strip().upper() if isinstance(currency, str) else ""
    if not is_currency_code(cur):
        problems.append(Problem("currency", "Moeda: deve ser um código de três letras (ex.: USD)."))
    elif cur == BRL:
        problems.append(Problem("currency", "Moeda: o real (BRL) não tem cotação."))
    if isinstance(day, datetime) or not isinstance(day, date):
        problems.append(Problem("day", "Data: informe o dia da cotação."))
    elif day > (today := store.today()):
        problems.append(Problem("day", f"Data: no futuro (hoje é {today:%d/%m/%Y})."))
    rate = _rate_value(brl)
    if isinstance(rate, str):
        problems.append(Problem("brl", f"Taxa: {rate}."))
    if problems:
        raise InputError(problems)
    assert isinstance(rate, Decimal)
    src = (source or "manual").strip() or "manual"

    def run(tx: Tx) -> RateRow:
        old = tx.fetch_one("SELECT brl FROM fx_rates WHERE currency = ? AND day = ?", [cur, day])
        if old is not None and old["brl"] != rate:
            if not replace:
                raise InputError(Problem("brl", f"Taxa: já existe cotação de {cur} em {day:%d/%m/%Y} "
                                                f"({_fmt(old['brl'])}); para corrigi-la, confirme a substituição."))
            tx.execute("UPDATE fx_rates SET brl = ?, source = ?, recorded_by = ?, recorded_at = ? "
                       "WHERE currency = ? AND day = ?", [rate, src, user.username, store.now(), cur, day])
            tx.audit("rate_replaced", "fx_rate", f"{cur} {day.isoformat()}", {"brl": old["brl"]},
                     {"brl": rate, "source": src})
        elif old is None:
            tx.execute("INSERT INTO fx_rates (currency, day, brl, source, recorded_by, recorded_at) "
                       "VALUES (?, ?, ?, ?, ?, ?)", [cur, day, rate, src, user.username, store.now()])
            tx.audit("rate_added", "fx_rate", f"{cur} {day.isoformat()}", None, {"brl": rate, "source": src})
        row = tx.fetch_one("SELECT * FROM fx_rates WHERE currency = ? AND day = ?", [cur, day])
        assert row is not None
        return _row(row)

    return store.write(user.username, run)


MIN_RATE, MAX_RATE = Decimal("0.000001"), Decimal("999999999999.999999")   # DECIMAL(18,6), above zero


def _rate_value(value: object) -> Decimal | str:
    """The rate as a Decimal, or why not (pt-BR): read by the one pt-BR parser (`core.money.parse_brl`,
    up to 6 places: '5,7810', '5.7810'; '5.781' is pt-BR's 5 781; mixed separators refused, never guessed)."""
    try:
        return parse_brl(value, path="brl", label="Taxa", minimum=MIN_RATE, maximum=MAX_RATE, places=6)
    except InputError as exc:
        return exc.problems[0].message.removeprefix("Taxa: ").rstrip(".")


def _fmt(d: Decimal) -> str:
    return format(d.normalize(), "f").replace(".", ",")


def _row(r: dict[str, Any]) -> RateRow:
    return RateRow(currency=r["currency"], day=r["day"], brl=r["brl"], source=r["source"],
                   recorded_by=r["recorded_by"], recorded_at=r["recorded_at"])


# -- import -------------------------------------------------------------------------------
Bad = list[tuple[int, int, str, str, str]]   # (row, order, column, message, value)


def import_rates(store: Store, user: Principal, data: bytes, file_name: str) -> RatesImport:
    """Import a PTAX-style series (see the module docstring); all or nothing."""
    require(user, "import_rates")
    frame, lines, columns, raw = _read_rates(data, file_name)
    n = len(frame)
    bad: Bad = []
    table, good = _checked_rates(raw, columns, lines, store.today(), frame.attrs.get("separator"), bad)

    def run(tx: Tx) -> RatesImport:
        view = f"_rates_{id(table)}"
        tx.cur.register(view, table)
        try:
            clash = tx.execute(
                f"SELECT s.row, r.brl AS stored FROM {view} s JOIN fx_rates r "
                f"ON r.currency = s.currency AND r.day = s.day WHERE r.brl <> s.brl ORDER BY s.row")
            for c in clash:
                bad.append((int(c["row"]), 2, columns["brl"],
                            f"já existe cotação com outro valor ({_fmt(c['stored'])}) para esta moeda e data",
                            str(raw["brl"][int(c["row"])])))
            if bad:
                raise InputError(_problems(bad, lines))
            unchanged = int(tx.scalar(f"SELECT count(*) FROM {view} s JOIN fx_rates r "
                                      f"ON r.currency = s.currency AND r.day = s.day"))
            rows = tx.execute(
                f"INSERT INTO fx_rates (currency, day, brl, source, recorded_by, recorded_at) "
                f"SELECT s.currency, s.day, s.brl, ?, ?, ? FROM {view} s WHERE NOT EXISTS "
                f"(SELECT 1 FROM fx_rates r WHERE r.currency = s.currency AND r.day = s.day)",
                [f"importação {file_name}"[:200], user.username, store.now()])
            added = int(next(iter(rows[0].values()))) if rows else 0
            span = tx.fetch_one(f"SELECT min(day) AS a, max(day) AS b, list(DISTINCT currency ORDER BY currency) "
                                f"AS c FROM {view}") or {}
        finally:
            tx.cur.unregister(view)
        result = RatesImport(rows=n, added=added, unchanged=unchanged, currencies=tuple(span.get("c") or ()),
                             first_day=span.get("a"), last_day=span.get("b"), sha256=hashlib.sha256(data).hexdigest())
        tx.audit("rates_imported", "fx_rate", file_name, None,
                 {"file": file_name, "sha256": result.sha256, "rows": n, "added": added, "unchanged": unchanged,
                  "currencies": list(result.currencies)})
        return result

    if bad and not good.any():
        raise InputError(_problems(bad, lines))
    return store.write(user.username, run)


def _checked_rates(raw: dict[str, list[str]], columns: dict[str, str], lines: np.ndarray, today: date,
                   separator: str | None, bad: Bad) -> tuple[pa.Table, np.ndarray]:
    """(the good rows as a table: row, currency, day, brl — the first of a day repeated in the
    file; the mask of good rows); every bad cell goes to `bad`."""
    def flag(mask: np.ndarray, field: str, message: str) -> None:
        for i in np.flatnonzero(mask):
            bad.append((int(i), ("day", "currency", "brl").index(field), columns[field], message,
                        str(raw[field][int(i)])))

    day_col = parse_dates(raw["day"])
    flag(day_col.blank, "day", "campo obrigatório vazio")
    flag(day_col.invalid, "day", "deve ser uma data dd/mm/aaaa ou aaaa-mm-dd")
    flag(day_col.impossible, "day", "data inexistente")
    flag(day_col.ok & day_col.after(today), "day", f"data no futuro (hoje é {today:%d/%m/%Y})")
    cur = pc.utf8_upper(pa.array(raw["currency"], type=pa.string()))
    cur_blank = as_mask(pc.equal(cur, ""))
    cur_ok = as_mask(pc.match_substring_regex(cur, r"^[A-Z]{3}$"))
    flag(cur_blank, "currency", "campo obrigatório vazio")
    flag(~cur_blank & ~cur_ok, "currency", "deve ser um código de três letras (ex.: USD)")
    flag(cur_ok & as_mask(pc.equal(cur, BRL)), "currency", "o real (BRL) não tem cotação")
    convention = decimal_convention([raw["brl"]], default=default_convention(separator))
    rate = parse_decimal(raw["brl"], convention=convention, precision=18, scale=6)
    flag(rate.blank, "brl", "campo obrigatório vazio")
    flag(rate.invalid, "brl", "deve ser um número (ex.: 5,7810)")
    flag(rate.ambiguous, "brl", "número ambíguo: o arquivo usa ponto e vírgula decimais")
    flag(rate.too_precise, "brl", "deve ter no máximo 6 casas decimais")
    flag(rate.too_large, "brl", "valor grande demais")
    flag(rate.ok & as_mask(pc.less_equal(rate.values, pa.scalar(Decimal(0), rate.values.type))), "brl",
         "deve ser um número maior que zero")
    good = day_col.ok & cur_ok & rate.ok
    table = pa.table({"row": pa.array(np.arange(len(good)), type=pa.int64()), "currency": cur,
                      "day": day_col.values, "brl": pc.cast(rate.values, RATE_TYPE)}).filter(pa.array(good))
    return _first_of_each_day(table, raw, columns, lines, bad), good


def _first_of_each_day(table: pa.Table, raw: dict[str, list[str]], columns: dict[str, str], lines: np.ndarray,
                       bad: Bad) -> pa.Table:
    """The table without the repeats of a (currency, day) already in the file; a repeat with
    another rate goes to `bad`."""
    if not table.num_rows:
        return table
    dup = pd.DataFrame({"currency": table["currency"].to_pylist(), "day": table["day"].to_pylist(),
                        "brl": table["brl"].to_pylist(), "row": table["row"].to_pylist()})
    first = dup.groupby(["currency", "day"])["row"].transform("min")
    first_brl = dup.groupby(["currency", "day"])["brl"].transform("first")
    conflict = (dup["row"] != first) & (dup["brl"] != first_brl)
    for row, frow in zip(dup.loc[conflict, "row"], first[conflict]):
        bad.append((int(row), 2, columns["brl"],
                    f"outra taxa para a mesma moeda e data na linha {int(lines[int(frow)])}",
                    str(raw["brl"][int(row)])))
    return table.filter(pa.array((dup["row"] == first).to_numpy()))


def _problems(bad: Bad, lines: np.ndarray) -> list[Problem]:
    bad.sort(key=lambda b: (b[0], b[1]))
    seen: set[tuple[int, int]] = set()
    out: list[Problem] = []
    for row, order, column, message, value in bad:
        if (row, order) in seen:
            continue
        seen.add((row, order))
        text = f'{message} (valor: "{value}")' if value else message
        out.append(Problem(f"linha {int(lines[row])}, coluna {column}", text))
    if len(out) > MAX_PROBLEMS:
        rest = len(out) - MAX_PROBLEMS
        out = out[:MAX_PROBLEMS] + [Problem("", f"… e mais {rest} problema{'s' if rest > 1 else ''}")]
    return out


def _read_rates(data: bytes, file_name: str) -> tuple[pd.DataFrame, np.ndarray, dict[str, str], dict[str, list[str]]]:
    """(frame, file lines, field → column label, field → raw strings) of a rates file."""
    df, meta = read_table(data, file_name)
    header = list(meta.header)
    fields: dict[str, int] = {}
    for pos, title in enumerate(header):
        f = _HEADER_TO_FIELD.get(normalise_header(title)) if title else None
        if f is not None and f not in fields:
            fields[f] = pos
    body = [["" if v is None else str(v) for v in r] for r in df.itertuples(index=False, name=None)]
    lines = df.index.to_numpy(dtype=np.int64)
    if len(fields) == 3:
        labels = {f: header[pos] for f, pos in fields.items()}
    else:
        # No header: the first line is data (a bare date;currency;rate series, or the
        # Central Bank's daily PTAX file: date;code;type;currency;buy;sell;…).
        first = parse_dates([header[0] if header else ""])
        if not first.ok[0]:
            raise InputError(Problem(f"linha {meta.header_line}",
                                     'cabeçalho não reconhecido: use as colunas "data;moeda;taxa" '
                                     "(ou o arquivo diário de fechamento PTAX do Banco Central)"))
        body = [header, *body]
        lines = np.concatenate([[meta.header_line], lines]).astype(np.int64)
        width = len(header)
        if width >= 6:     # PTAX fechamento: 0 date, 3 currency, 5 selling rate
            fields = {"day": 0, "currency": 3, "brl": 5}
            labels = {"day": "1 (data)", "currency": "4 (moeda)", "brl": "6 (taxa de venda)"}
        elif width >= 3:
            fields = {"day": 0, "currency": 1, "brl": 2}
            labels = {"day": "1 (data)", "currency": "2 (moeda)", "brl": "3 (taxa)"}
        else:
            raise InputError(Problem(f"linha {meta.header_line}",
                                     "o arquivo precisa de três colunas: data;moeda;taxa"))
    if not body:
        raise InputError(Problem("", "o arquivo não tem linhas de dados (só o cabeçalho)"))
    raw = {f: [(r[pos] if pos < len(r) else "").strip() for r in body] for f, pos in fields.items()}
    frame = pd.DataFrame({"n": np.arange(len(body))})
    frame.attrs["separator"] = meta.separator
    return frame, lines, labels, raw


# -- reading ------------------------------------------------------------------------------
def list_rates(store: Store, user: Principal, currency: str | None = None, *, start: date | None = None,
               end: date | None = None, page: int = 1, page_size: int = 50) -> pd.DataFrame:
    """One page of rates, newest first. Columns: currency, day, brl, source, recorded_by, recorded_at."""
    require(user, "read_rates")
    check_page(page, page_size, MAX_PAGE_SIZE)
    where: list[str] = ["TRUE"]
    params: list[Any] = []
    if currency:
        where.append("currency = ?")
        params.append(currency.strip().upper())
    if start is not None:
        where.append("day >= ?")
        params.append(start)
    if end is not None:
        where.append("day <= ?")
        params.append(end)
    params += [page_size, (page - 1) * page_size]
    return store.fetch_df(
        f"SELECT currency, day, brl, source, recorded_by, recorded_at FROM fx_rates WHERE {' AND '.join(where)} "
        f"ORDER BY day DESC, currency LIMIT ? OFFSET ?", params)


def rate_on_or_before(store: Store, user: Principal, currency: str, day: date) -> RateRow | None:
    """The rate used for a price of `currency` dated `day`: that day's, else the latest
    earlier one; None when there is none (a later rate is never used; `valuation.commission.fx`)."""
    require(user, "read_rates")
    row = store.fetch_one("SELECT * FROM fx_rates WHERE currency = ? AND day <= ? ORDER BY day DESC LIMIT 1",
                          [currency, day])
    return None if row is None else _row(row)


def attach_rates(tx: Tx, view: str) -> pa.Table:
    """For each row of the registered relation `view` (columns row, currency, price_date),
    the rate on or before its price date: columns row, rate, rate_date, known (the
    currency has any rate at all). BRL gets rate 1 and no rate date. One ASOF join."""
    rel = tx.cur.sql(
        f"""SELECT s.row,
                   CASE WHEN s.currency = 'BRL' THEN CAST(1 AS DECIMAL(18,6)) ELSE r.brl END AS rate,
                   CASE WHEN s.currency = 'BRL' THEN NULL ELSE r.day END AS rate_date,
                   s.currency = 'BRL' OR s.currency IN (SELECT DISTINCT currency FROM fx_rates) AS known
            FROM {view} s ASOF LEFT JOIN fx_rates r ON r.currency = s.currency AND s.price_date >= r.day
            ORDER BY s.row""")
    return rel.to_arrow_table()
