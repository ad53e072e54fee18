"""The rules of the Commission members' entries — one at a time (a form) or a whole sheet —
typed and checked (issue 3; rules.md §2) — pure, no database, no clock.

A member records per item: a vote (historical or not; blank = did not vote), a value
with its currency and the date of the price (Lei 7.542/1986 art. 20 §3: values
"considerando os preços do mercado internacional"), for a historical vote a
significance score 1–5 and a "must keep" proposal (rules.md §3 step 1), and the
source of the value: a comparable sale, a catalogue, or an external appraisal by an
organisation renowned in the segment (art. 21 §2), whose name then goes in the note.

The same vectorised rules (`check_entries`) serve one entry from a form and a sheet
of a million rows, so the two can never disagree. Problems are collected, never
raised one by one: a form gets `Problem(field, "Rótulo: motivo.")`, a sheet
`Problem("linha N, coluna X", "motivo (valor: …)")` for every bad cell — all or
nothing. What needs the database (is the item in the round? is there a rate on or
before the price date?) is added by the store to the same collector
(`valuation.commission.entries`), before anything is written. Reading a sheet's cells is
`valuation.commission.sheet_import.parse_sheet`.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.core.errors import InputError, Problem
from valuation.core.money import parse_brl
from valuation.importing.cells import MAX_PROBLEMS, claim_cells, more_problems, parse_dates, with_value
from valuation.importing.tabular import normalise_header

FIELDS: tuple[str, ...] = ("item_code", "historical", "amount", "currency", "price_date", "significance",
                           "must_keep", "source", "source_note")
LABELS: dict[str, str] = {
    "item_code": "Código do item",
    "item_id": "Item",
    "historical": "Voto (valor histórico)",
    "amount": "Valor",
    "currency": "Moeda",
    "price_date": "Data do preço",
    "significance": "Significância",
    "must_keep": "Proposta de manter na União",
    "source": "Fonte do valor",
    "source_note": "Observação sobre a fonte",
}
SOURCES: dict[str, str] = {
    "venda_comparavel": "venda comparável",
    "catalogo": "catálogo",
    "avaliacao_externa": "avaliação externa (organização de renome, art. 21 §2)",
}
SOURCE_ALIASES: dict[str, str] = {
    "venda_comparavel": "venda_comparavel", "venda": "venda_comparavel", "comparavel": "venda_comparavel",
    "comparable_sale": "venda_comparavel", "venda_comparada": "venda_comparavel", "leilao": "venda_comparavel",
    "catalogo": "catalogo", "catalogue": "catalogo", "catalog": "catalogo",
    "avaliacao_externa": "avaliacao_externa", "avaliacao": "avaliacao_externa", "externa": "avaliacao_externa",
    "laudo": "avaliacao_externa", "laudo_externo": "avaliacao_externa", "external_appraisal": "avaliacao_externa",
}
_CURRENCY = "[A-Z]{3}"           # the whole cell: ISO 4217's three capital letters
FIELD_TYPES: dict[str, pa.DataType] = {
    "item_code": pa.string(), "historical": pa.bool_(), "amount": pa.decimal128(18, 2), "currency": pa.string(),
    "price_date": pa.date32(), "significance": pa.int64(), "must_keep": pa.bool_(), "source": pa.string(),
    "source_note": pa.string(),
}

AMOUNT_TYPE = FIELD_TYPES["amount"]        # assessment_log.amount DECIMAL(18,2)
# A converted value must leave room for the consensus and decisions, DECIMAL(18,2).
MAX_VALUE_BRL = Decimal("9999999999999999.99")


# -- problems ---------------------------------------------------------------------------
class Problems:
    """Bad cells as boolean masks per field; rendered as `Problem`s only when raised.

    `lines` is None for a form (one entry: `Problem(field, "Rótulo: motivo.")`), else the
    file line of each row (`Problem("linha N, coluna X", "motivo (valor: …)")`); `columns`
    maps a field to the header text written in the file. A cell is reported once: the
    first check that flags it wins.
    """

    def __init__(self, n: int, *, lines: np.ndarray | None = None, columns: Mapping[str, str] | None = None,
                 raw: Mapping[str, pd.Series] | None = None):
        self.n = n
        self.lines = lines
        self.columns = dict(columns or {})
        self.raw = dict(raw or {})
        self._seen: dict[str, np.ndarray] = {}
        self._parts: list[pd.DataFrame] = []
        self.general: list[Problem] = []

    def add(self, mask: np.ndarray, field: str, message: str | np.ndarray) -> None:
        mask, message = claim_cells(self._seen, field, mask, message)
        if not mask.any():
            return
        count = int(mask.sum())
        order = FIELDS.index(field) if field in FIELDS else len(FIELDS)
        self._parts.append(pd.DataFrame({
            "row": np.flatnonzero(mask),
            "order": np.full(count, order),
            "field": np.full(count, field, dtype=object),
            "message": message if isinstance(message, np.ndarray) else np.full(count, message, dtype=object),
        }))

    def bad_rows(self) -> np.ndarray:
        out = np.zeros(self.n, dtype=bool)
        for mask in self._seen.values():
            out |= mask
        return out

    def __bool__(self) -> bool:
        return bool(self._parts or self.general)

    def problems(self) -> list[Problem]:
        listed: list[Problem] = list(self.general)
        if not self._parts:
            return listed
        table = pd.concat(self._parts, ignore_index=True).sort_values(["row", "order"], kind="stable")
        total = len(table)
        for row, field, message in table.head(MAX_PROBLEMS)[["row", "field", "message"]].itertuples(
                index=False, name=None):
            if self.lines is None:
                listed.append(Problem(field, f"{LABELS.get(field, field)}: {message}."))
            else:
                column = self.columns.get(field, field)
                raw = self.raw.get(field)
                shown = "" if raw is None else str(raw.iloc[int(row)])
                listed.append(Problem(f"linha {int(self.lines[int(row)])}, coluna {column}",
                                      with_value(message, shown)))
        return listed + more_problems(total)

    def raise_if_any(self) -> None:
        if self:
            raise InputError(self.problems())


# -- the typed entries -------------------------------------------------------------------
class Entries:
    """Typed entries, one row each; null where a cell/argument is empty.

    `frame` columns: item_code (str), historical (bool), amount (decimal128(18,2)),
    currency (str), price_date (date32), significance (int64), must_keep (bool),
    source (str, one of SOURCES), source_note (str) — all Arrow-backed (`FIELD_TYPES`). After
    `check_entries` a non-historical entry has significance and must_keep null, a
    historical one has must_keep true/false.

    One entry of a form (`single_entry`) is kept as plain values in `one` (field → the value its
    column would hold, as `as_py()` gives it); its one-row `frame` is built only when asked for.
    """

    def __init__(self, frame: pd.DataFrame | None, problems: Problems,
                 given: Mapping[str, np.ndarray] | None = None, *, one: Mapping[str, Any] | None = None) -> None:
        if frame is None and one is None:
            raise ValueError("Entries needs a frame or one entry's values")
        self._frame = frame
        self.problems = problems
        # Per field, the cells that were filled in, whatever they held: a bad value is
        # reported once, as itself, not again as "missing" in the rules that depend on it.
        self.given = given
        self.one = one

    @property
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            assert self.one is not None
            self._frame = typed_frame({name: pa.array([self.one[name]], type=FIELD_TYPES[name]) for name in FIELDS})
        return self._frame

    def __len__(self) -> int:
        return 1 if self._frame is None else len(self._frame)


def as_mask(mask: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean Arrow mask as numpy, nulls False."""
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(bool)


def _col(frame: pd.DataFrame, name: str) -> pa.Array:
    arr = pa.array(frame[name].array, from_pandas=True)
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def check_entries(entries: Entries, *, today: date) -> Entries:
    """The rules every entry obeys, vectorised (the same for a form and a sheet):

    - a vote or a value (or both): an entry with neither says nothing;
    - a value comes with its currency, the date of the price (not in the future) and
      its source; without a value, none of those (nor a note);
    - the value is ≥ 0 (DECIMAL(18,2)); the currency three letters (ISO 4217);
    - significance 1–5 and the "must keep" proposal only with a historical vote
      (the significance is then required; "must keep" defaults to no);
    - an external appraisal names the organisation in the note (art. 21 §2).

    Records problems in `entries.problems`; returns entries with must_keep defaulted.
    The rules are `_rules`, read here through `_Columns`; one entry of a form reads them
    through `_One` (`single_entry`): one definition, two readings.
    """
    f = entries.frame
    if len(f) == 0:
        return entries
    cells = _Columns(f, entries.given or {})
    kept = _rules(entries.problems, cells, today)
    frame = f.copy()
    for name, arr in kept.items():
        frame[name] = pd.Series(pd.arrays.ArrowExtensionArray(arr), index=f.index)
    return Entries(frame, entries.problems, entries.given)


class _Reading:
    """What both readings of the rules share: a cell is filled when it holds a value or was given one
    (`Entries.given`: a bad value is reported once, as itself)."""

    def __init__(self, given: Mapping[str, np.ndarray]) -> None:
        self._given = given

    def valid(self, name: str) -> np.ndarray:
        raise NotImplementedError

    def filled(self, name: str) -> np.ndarray:
        mask = self.valid(name)
        return mask | self._given[name] if name in self._given else mask


class _Columns(_Reading):
    """The rules' reading of a batch: Arrow columns, every test a numpy mask (null: False)."""

    def __init__(self, frame: pd.DataFrame, given: Mapping[str, np.ndarray]) -> None:
        super().__init__(given)
        self._frame = frame
        self._cols: dict[str, pa.Array] = {}

    def col(self, name: str) -> pa.Array:
        if name not in self._cols:
            self._cols[name] = _col(self._frame, name)
        return self._cols[name]

    def valid(self, name: str) -> np.ndarray:
        return as_mask(self.col(name).is_valid())

    def equals(self, name: str, value: object) -> np.ndarray:
        return as_mask(pc.equal(self.col(name), value))

    def below(self, name: str, value: object) -> np.ndarray:
        arr = self.col(name)
        return as_mask(pc.less(arr, pa.scalar(value, arr.type)))

    def after(self, name: str, value: object) -> np.ndarray:
        arr = self.col(name)
        return as_mask(pc.greater(arr, pa.scalar(value, arr.type)))

    def within(self, name: str, low: int, high: int) -> np.ndarray:
        arr = self.col(name)
        return as_mask(pc.and_(pc.greater_equal(arr, low), pc.less_equal(arr, high)))

    def matches(self, name: str, pattern: str) -> np.ndarray:
        return as_mask(pc.match_substring_regex(self.col(name), f"^(?:{pattern})$"))

    def one_of(self, name: str, values: Collection[str]) -> np.ndarray:
        return as_mask(pc.is_in(self.col(name), value_set=pa.array(list(values))))

    def kept_if(self, mask: np.ndarray, name: str, default: object = None) -> pa.Array:
        arr = self.col(name)
        if default is not None:
            arr = pc.fill_null(arr, default)
        return pc.if_else(pa.array(mask), arr, pa.scalar(None, arr.type))


class _One(_Reading):
    """The rules' reading of one entry: plain values (None: empty), every test a one-cell numpy mask,
    true exactly where `_Columns` gives true for the same value in a one-row column."""

    def __init__(self, values: Mapping[str, Any], given: Mapping[str, np.ndarray]) -> None:
        super().__init__(given)
        self._values = values

    @staticmethod
    def _mask(flag: bool) -> np.ndarray:
        return np.array([flag])

    def valid(self, name: str) -> np.ndarray:
        return self._mask(self._values[name] is not None)

    def equals(self, name: str, value: object) -> np.ndarray:
        v = self._values[name]
        return self._mask(v is not None and bool(v == value))

    def below(self, name: str, value: Any) -> np.ndarray:
        v = self._values[name]
        return self._mask(v is not None and bool(v < value))

    def after(self, name: str, value: Any) -> np.ndarray:
        v = self._values[name]
        return self._mask(v is not None and bool(v > value))

    def within(self, name: str, low: int, high: int) -> np.ndarray:
        v = self._values[name]
        return self._mask(v is not None and low <= v <= high)

    def matches(self, name: str, pattern: str) -> np.ndarray:
        v = self._values[name]
        return self._mask(v is not None and re.fullmatch(pattern, v) is not None)

    def one_of(self, name: str, values: Collection[str]) -> np.ndarray:
        return self._mask(self._values[name] in values)

    def kept_if(self, mask: np.ndarray, name: str, default: object = None) -> Any:
        v = self._values[name]
        return (default if v is None else v) if bool(mask[0]) else None


_Cells = _Columns | _One


def _rules(p: Problems, cells: _Cells, today: date) -> dict[str, Any]:
    """Record the entries' problems in `p` (the rules of `check_entries`); returns the columns the
    rules default — must_keep (no, for a historical vote) and significance, kept only with a
    historical vote — in the reading's form (an Arrow column, or one value)."""
    hist_true = cells.equals("historical", True)
    has_amount = cells.filled("amount")
    has_vote = cells.filled("historical")
    has = {name: cells.filled(name) for name in
           ("currency", "price_date", "significance", "must_keep", "source", "source_note")}

    p.add(~has_vote & ~has_amount, "historical", "informe o voto, o valor, ou os dois")
    _value_rules(p, cells, has, has_amount, today)
    _vote_rules(p, cells, has, has_vote, hist_true)
    return {"must_keep": cells.kept_if(hist_true, "must_keep", False),
            "significance": cells.kept_if(hist_true, "significance")}


def _value_rules(p: Problems, cells: _Cells, has: Mapping[str, np.ndarray], has_amount: np.ndarray,
                 today: date) -> None:
    """A value: ≥ 0, with its currency (ISO), its price date (not in the future) and its source
    (an external appraisal names the organisation); without one, none of those."""
    p.add(cells.below("amount", Decimal(0)), "amount", "não pode ser negativo")
    for name, why in (("currency", "obrigatória junto com o valor"),
                      ("price_date", "obrigatória junto com o valor"),
                      ("source", "obrigatória junto com o valor")):
        p.add(has_amount & ~has[name], name, why)
    for name in ("currency", "price_date", "source", "source_note"):
        p.add(~has_amount & has[name], name, "só se informa junto com um valor")
    cur_ok = cells.matches("currency", _CURRENCY)
    p.add(has["currency"] & ~cur_ok, "currency", "deve ser um código de três letras maiúsculas (ex.: BRL, USD)")
    p.add(has["price_date"] & cells.after("price_date", today), "price_date",
          f"data no futuro (hoje é {today:%d/%m/%Y})")
    src_ok = cells.one_of("source", SOURCES)
    p.add(has["source"] & ~src_ok, "source", "deve ser venda_comparavel, catalogo ou avaliacao_externa")
    external = cells.equals("source", "avaliacao_externa")
    p.add(external & ~has["source_note"], "source_note",
          "informe a organização de renome que fez a avaliação externa (Lei 7.542 art. 21 §2)")


def _vote_rules(p: Problems, cells: _Cells, has: Mapping[str, np.ndarray], has_vote: np.ndarray,
                hist_true: np.ndarray) -> None:
    """Significance 1–5 (required) and "must keep" only with a historical vote."""
    sig_ok = cells.within("significance", 1, 5)
    p.add(hist_true & ~has["significance"], "significance", "obrigatória para voto histórico (1 a 5)")
    p.add(has["significance"] & ~sig_ok, "significance", "deve ser um número inteiro de 1 a 5")
    vote_unreadable = has_vote & ~cells.valid("historical")
    p.add(~hist_true & ~vote_unreadable & has["significance"], "significance", "só se informa com voto histórico")
    p.add(~hist_true & ~vote_unreadable & cells.equals("must_keep", True), "must_keep",
          "só se propõe com voto histórico")


def typed_frame(cols: dict[str, pa.Array]) -> pd.DataFrame:
    """The Entries frame of typed Arrow columns (one per FIELDS)."""
    # DataFrame._from_arrays: the plain constructor costs ~6× more, which a one-entry form pays.
    arrays = [pd.arrays.ArrowExtensionArray(cols[name]) for name in FIELDS]
    n = len(arrays[0]) if arrays else 0
    return pd.DataFrame._from_arrays(arrays, columns=list(FIELDS), index=pd.RangeIndex(n), verify_integrity=False)


# -- one entry (a form) -------------------------------------------------------------------
def single_entry(*, historical: object, amount: object, currency: object, price_date: object,
                 significance: object, must_keep: object, source: object, source_note: object,
                 today: date) -> Entries:
    """One member's entry from a form, typed and checked; problems by field (pt-BR).

    Money is never a float (`money.as_decimal`'s rule): pass a Decimal, an int or a
    decimal string. Dates: `date`, ISO or dd/mm/aaaa text. The rules are `check_entries`'s
    (`_rules`), read on the entry's plain values (`_One`): a form pays no columns.
    """
    values, bad = form_values(historical=historical, amount=amount, currency=currency, price_date=price_date,
                              significance=significance, must_keep=must_keep, source=source,
                              source_note=source_note)
    p = Problems(1)
    for name, message in bad.items():
        p.add(np.array([True]), name, message)
    given = {name: np.array([True]) for name in bad}
    kept = _rules(p, _One(values, given), today)
    return Entries(None, p, given, one={**values, **kept})


def form_values(*, historical: object, amount: object, currency: object, price_date: object,
                significance: object, must_keep: object, source: object,
                source_note: object) -> tuple[dict[str, Any], dict[str, str]]:
    """A form's entry typed: (field → the value its column holds, None when empty or unreadable;
    field → why it could not be read)."""
    bad: dict[str, str] = {}

    def bool_or_none(name: str, value: object) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        bad[name] = "deve ser sim, não ou em branco"
        return None

    hist = bool_or_none("historical", historical)
    keep = bool_or_none("must_keep", must_keep)
    amt = _form_amount(amount, bad)
    cur = None
    if currency is not None and currency != "":
        if isinstance(currency, str):
            cur = currency.strip().upper() or None
        else:
            bad["currency"] = "deve ser um código de três letras (ex.: USD)"
    day = None
    if price_date is not None and price_date != "":
        day = _as_date(price_date)
        if day is None:
            bad["price_date"] = "deve ser uma data (dd/mm/aaaa)"
    sig = _form_significance(significance, bad)
    src = None
    if source is not None and source != "":
        src = SOURCE_ALIASES.get(normalise_header(str(source)), str(source))
    note = None
    if source_note is not None:
        if not isinstance(source_note, str):
            bad["source_note"] = "deve ser um texto"
        else:
            note = source_note.strip() or None
    values = {"item_code": None, "historical": hist, "amount": amt, "currency": cur, "price_date": day,
              "significance": sig, "must_keep": keep, "source": src, "source_note": note}
    return values, bad


def _form_amount(amount: object, bad: dict[str, str]) -> Decimal | None:
    """The typed amount of a form, read by the one pt-BR parser (`core.money.parse_brl`: '1.234,56' or
    '1234.56'; never a float; misplaced thousands separators such as '1001.76,41' refused, never guessed —
    issue 23 item 2), else None with the reason in `bad`. A negative amount is read (the entry rules
    refuse it by name)."""
    if amount is None or amount == "":
        return None
    try:
        return parse_brl(amount, path="amount", label=LABELS["amount"], minimum=None, maximum=MAX_VALUE_BRL)
    except InputError as exc:
        bad["amount"] = exc.problems[0].message.removeprefix(f"{LABELS['amount']}: ")
        return None


def _form_significance(significance: object, bad: dict[str, str]) -> int | None:
    if significance is None or significance == "":
        return None
    if isinstance(significance, bool) or not isinstance(significance, (int, str)):
        bad["significance"] = "deve ser um número inteiro de 1 a 5"
        return None
    try:
        return int(str(significance).strip())
    except ValueError:
        bad["significance"] = "deve ser um número inteiro de 1 a 5"
        return None


def _as_date(value: object) -> date | None:
    if isinstance(value, datetime):
        return None  # a moment is not a price date: pass the day
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        parsed = parse_dates([value])
        if parsed.ok[0]:
            return parsed.values[0].as_py()
    return None


def describe_source(code: str | None) -> str:
    return "—" if code is None else SOURCES.get(code, code)


__all__ = ["Entries", "FIELDS", "FIELD_TYPES", "LABELS", "MAX_VALUE_BRL", "Problems", "SOURCES", "as_mask",
           "check_entries", "describe_source", "form_values", "single_entry", "typed_frame"]
