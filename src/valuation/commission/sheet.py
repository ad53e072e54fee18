"""The Commission members' entries — one at a time or a whole sheet — parsed and checked
(issue 3; rules.md §2) — pure, no database, no clock.

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
(`valuation.commission.workflow`), before anything is written.

Sheet columns (header names compared without case, accents or punctuation; see
`HEADER_ALIASES`): item_code (required), historical, amount, currency, price_date,
significance, must_keep, source, source_note. Yes/no cells: sim/não (also s/n,
x, 1/0, true/false, verdadeiro/falso). Numbers and dates as in
`valuation.importing.tabular` (decimal comma or point, dd/mm/aaaa or ISO).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.core.errors import InputError, Problem
from valuation.importing.tabular import (
    MAX_PROBLEMS,
    claim_cells,
    decimal_convention,
    default_convention,
    more_problems,
    normalise_header,
    parse_dates,
    parse_decimal,
    read_table,
    with_value,
)

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
HEADER_ALIASES: dict[str, tuple[str, ...]] = {
    "item_code": ("item_code", "codigo", "codigo_do_item", "codigo_item", "cod_item", "cod", "item"),
    "historical": ("historical", "historico", "voto", "voto_historico", "interesse_historico", "e_historico"),
    "amount": ("amount", "valor", "preco", "value", "valor_estimado", "valor_atribuido"),
    "currency": ("currency", "moeda"),
    "price_date": ("price_date", "data_do_preco", "data_preco", "data_do_valor", "data_valor", "data"),
    "significance": ("significance", "significancia", "relevancia", "grau_de_significancia"),
    "must_keep": ("must_keep", "manter", "manter_na_uniao", "deve_manter", "proposta_de_manter", "reter"),
    "source": ("source", "fonte", "fonte_do_valor", "origem", "origem_do_valor"),
    "source_note": ("source_note", "observacao", "observacoes", "obs", "observacao_da_fonte", "referencia"),
}
_ALIAS_TO_FIELD = {alias: f for f, aliases in HEADER_ALIASES.items() for alias in aliases}
_YES = frozenset({"sim", "s", "x", "1", "true", "verdadeiro", "yes", "y"})
_NO = frozenset({"nao", "n", "0", "false", "falso", "no"})
_CURRENCY = re.compile(r"^[A-Z]{3}$")

AMOUNT_TYPE = pa.decimal128(18, 2)        # assessment_log.amount DECIMAL(18,2)
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
@dataclass(frozen=True, eq=False)
class Entries:
    """Typed entries, one row each; null where a cell/argument is empty.

    `frame` columns: item_code (str), historical (bool), amount (decimal128(18,2)),
    currency (str), price_date (date32), significance (int64), must_keep (bool),
    source (str, one of SOURCES), source_note (str) — all Arrow-backed. After
    `check_entries` a non-historical entry has significance and must_keep null, a
    historical one has must_keep true/false.
    """

    frame: pd.DataFrame
    problems: Problems
    # Per field, the cells that were filled in, whatever they held: a bad value is
    # reported once, as itself, not again as "missing" in the rules that depend on it.
    given: Mapping[str, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.frame)


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
    """
    f = entries.frame
    p = entries.problems
    n = len(f)
    if n == 0:
        return entries
    given = entries.given or {}

    def filled(name: str, arr: pa.Array) -> np.ndarray:
        mask = as_mask(arr.is_valid())
        return mask | given[name] if name in given else mask

    hist = _col(f, "historical")
    hist_true = as_mask(pc.equal(hist, True))
    amount = _col(f, "amount")
    has_amount = filled("amount", amount)
    has_vote = filled("historical", hist)
    currency = _col(f, "currency")
    price_date = _col(f, "price_date")
    sig = _col(f, "significance")
    must_keep = _col(f, "must_keep")
    source = _col(f, "source")
    note = _col(f, "source_note")
    has = {name: filled(name, arr) for name, arr in
           (("currency", currency), ("price_date", price_date), ("significance", sig),
            ("must_keep", must_keep), ("source", source), ("source_note", note))}

    p.add(~has_vote & ~has_amount, "historical", "informe o voto, o valor, ou os dois")
    p.add(as_mask(pc.less(amount, pa.scalar(Decimal(0), amount.type))), "amount",
          "não pode ser negativo")
    for name, why in (("currency", "obrigatória junto com o valor"),
                      ("price_date", "obrigatória junto com o valor"),
                      ("source", "obrigatória junto com o valor")):
        p.add(has_amount & ~has[name], name, why)
    for name in ("currency", "price_date", "source", "source_note"):
        p.add(~has_amount & has[name], name, "só se informa junto com um valor")
    cur_ok = as_mask(pc.match_substring_regex(currency, _CURRENCY.pattern))
    p.add(has["currency"] & ~cur_ok, "currency", "deve ser um código de três letras maiúsculas (ex.: BRL, USD)")
    p.add(has["price_date"] & as_mask(pc.greater(price_date, pa.scalar(today, pa.date32()))), "price_date",
          f"data no futuro (hoje é {today:%d/%m/%Y})")
    src_ok = as_mask(pc.is_in(source, value_set=pa.array(list(SOURCES))))
    p.add(has["source"] & ~src_ok, "source", "deve ser venda_comparavel, catalogo ou avaliacao_externa")
    external = as_mask(pc.equal(source, "avaliacao_externa"))
    p.add(external & ~has["source_note"], "source_note",
          "informe a organização de renome que fez a avaliação externa (Lei 7.542 art. 21 §2)")
    sig_ok = as_mask(pc.and_(pc.greater_equal(sig, 1), pc.less_equal(sig, 5)))
    p.add(hist_true & ~has["significance"], "significance", "obrigatória para voto histórico (1 a 5)")
    p.add(has["significance"] & ~sig_ok, "significance", "deve ser um número inteiro de 1 a 5")
    vote_unreadable = has_vote & ~as_mask(hist.is_valid())
    p.add(~hist_true & ~vote_unreadable & has["significance"], "significance", "só se informa com voto histórico")
    p.add(~hist_true & ~vote_unreadable & as_mask(pc.equal(must_keep, True)), "must_keep",
          "só se propõe com voto histórico")

    mk = pc.if_else(pa.array(hist_true), pc.fill_null(must_keep, False), pa.scalar(None, pa.bool_()))
    sig_kept = pc.if_else(pa.array(hist_true), sig, pa.scalar(None, pa.int64()))
    frame = f.copy()
    frame["must_keep"] = pd.Series(pd.arrays.ArrowExtensionArray(mk), index=f.index)
    frame["significance"] = pd.Series(pd.arrays.ArrowExtensionArray(sig_kept), index=f.index)
    return Entries(frame, p, entries.given)


def _typed_frame(cols: dict[str, pa.Array]) -> pd.DataFrame:
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
    decimal string. Dates: `date`, ISO or dd/mm/aaaa text.
    """
    p = Problems(1)
    bad: dict[str, str] = {}

    def bool_or_none(name: str, value: object) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        bad[name] = "deve ser sim, não ou em branco"
        return None

    hist = bool_or_none("historical", historical)
    keep = bool_or_none("must_keep", must_keep)
    amt: Decimal | None = None
    if amount is not None and amount != "":
        if isinstance(amount, bool) or isinstance(amount, float):
            bad["amount"] = "informe um número decimal exato (ex.: 1.234,56), nunca um número de ponto flutuante"
        else:
            try:
                text = str(amount).strip()
                if isinstance(amount, str) and "," in text:
                    text = text.replace(".", "").replace(",", ".")
                amt = Decimal(text)
                if not amt.is_finite():
                    raise InvalidOperation
            except (InvalidOperation, ValueError):
                bad["amount"] = "deve ser um número (ex.: 1.234,56)"
                amt = None
            if amt is not None:
                if amt != amt.quantize(Decimal("0.01"), rounding="ROUND_DOWN"):
                    bad["amount"] = "deve ter no máximo 2 casas decimais"
                    amt = None
                elif abs(amt) > MAX_VALUE_BRL:
                    bad["amount"] = "valor grande demais"
                    amt = None
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
    sig = None
    if significance is not None and significance != "":
        if isinstance(significance, bool) or not isinstance(significance, (int, str)):
            bad["significance"] = "deve ser um número inteiro de 1 a 5"
        else:
            try:
                sig = int(str(significance).strip())
            except ValueError:
                bad["significance"] = "deve ser um número inteiro de 1 a 5"
    src = None
    if source is not None and source != "":
        src = SOURCE_ALIASES.get(normalise_header(str(source)), str(source))
    note = None
    if source_note is not None:
        if not isinstance(source_note, str):
            bad["source_note"] = "deve ser um texto"
        else:
            note = source_note.strip() or None

    cols = {
        "item_code": pa.array([None], type=pa.string()),
        "historical": pa.array([hist], type=pa.bool_()),
        "amount": pa.array([amt], type=AMOUNT_TYPE),
        "currency": pa.array([cur], type=pa.string()),
        "price_date": pa.array([day], type=pa.date32()),
        "significance": pa.array([sig], type=pa.int64()),
        "must_keep": pa.array([keep], type=pa.bool_()),
        "source": pa.array([src], type=pa.string()),
        "source_note": pa.array([note], type=pa.string()),
    }
    for name, message in bad.items():
        p.add(np.array([True]), name, message)
    given = {name: np.array([True]) for name in bad}
    return check_entries(Entries(_typed_frame(cols), p, given), today=today)


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


# -- a sheet -----------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Sheet:
    """A parsed sheet: the typed, checked entries, the file line of each row, the header
    text of each field found, and the named columns that were ignored."""

    entries: Entries
    lines: np.ndarray
    columns: dict[str, str]
    ignored_columns: tuple[str, ...]
    format: str
    row_count: int


def _yes_no(text: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """(bool array with nulls for blank, mask of cells that are neither yes nor no)."""
    folded = _fold_vector(text)
    yes = as_mask(pc.is_in(folded, value_set=pa.array(sorted(_YES))))
    no = as_mask(pc.is_in(folded, value_set=pa.array(sorted(_NO))))
    blank = as_mask(pc.equal(folded, ""))
    values = pa.array(np.where(yes, True, False), type=pa.bool_(), mask=~(yes | no))
    return values, ~(yes | no | blank)


def _fold_vector(text: pa.Array) -> pa.Array:
    """normalise_header over a column, via its distinct values (sheets repeat sim/não)."""
    uniques = pc.unique(text)
    mapping = [normalise_header(v) if v else "" for v in uniques.to_pylist()]
    idx = pc.index_in(text, value_set=uniques)
    return pc.take(pa.array(mapping, type=pa.string()), idx)


def parse_sheet(data: bytes, file_name: str, *, today: date) -> Sheet:
    """Read a sheet of entries (CSV or XLSX) and check every cell; nothing raised for bad
    cells — they are in `sheet.entries.problems`, to which the store adds its own checks
    before raising. Raises InputError at once for an unreadable file, a missing
    `item_code` column, two columns naming one field, or a sheet without data rows."""
    df, meta = read_table(data, file_name)
    where = f"linha {meta.header_line}"
    positions: dict[str, int] = {}
    ignored: list[str] = []
    errors: list[Problem] = []
    for pos, title in enumerate(meta.header):
        if not title:
            continue
        field = _ALIAS_TO_FIELD.get(normalise_header(title))
        if field is None:
            ignored.append(title)
        elif field in positions:
            errors.append(Problem(where, f'as colunas "{meta.header[positions[field]]}" e "{title}" '
                                         f"indicam o mesmo campo ({field})"))
        else:
            positions[field] = pos
    if "item_code" not in positions:
        errors.append(Problem(where, 'coluna obrigatória ausente: "item_code" (nomes aceitos: codigo, '
                                     'codigo_do_item, item_code, …)'))
    if not ({"historical", "amount"} & set(positions)):
        errors.append(Problem(where, 'a planilha precisa de uma coluna "historical" (voto) ou "amount" (valor)'))
    if errors:
        raise InputError(errors)
    if df.empty:
        raise InputError([Problem("", "o arquivo não tem linhas de dados (só o cabeçalho)")])

    n = len(df)
    lines = df.index.to_numpy(dtype=np.int64)
    empty = pa.array([""] * n, type=pa.string())
    text = {}
    for name in FIELDS:
        if name in positions:
            arr = pa.array(df.iloc[:, positions[name]].array, from_pandas=True)
            arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
            text[name] = pc.fill_null(pc.cast(arr, pa.string()), "")
        else:
            text[name] = empty
    raw = {name: pd.Series(text[name].to_pandas(), copy=False) for name in FIELDS}
    columns = {name: meta.header[pos] for name, pos in positions.items()}
    p = Problems(n, lines=lines, columns=columns, raw=raw)

    def blank(name: str) -> np.ndarray:
        return as_mask(pc.equal(text[name], ""))

    def nullify(arr: pa.Array, name: str) -> pa.Array:
        return pc.if_else(pc.equal(text[name], ""), pa.scalar(None, arr.type), arr)

    # item_code: required, once per file.
    codes = text["item_code"]
    no_code = blank("item_code")
    p.add(no_code, "item_code", "campo obrigatório vazio")
    code_series = pd.Series(codes.to_pandas(), copy=False)
    first = pd.Series(lines).groupby(code_series.to_numpy(dtype=object)).transform("min").to_numpy()
    repeated = ~no_code & (first != lines)
    p.add(repeated, "item_code", _concat("item repetido no arquivo (primeira ocorrência na linha ",
                                         first[repeated], ")"))

    hist, hist_bad = _yes_no(text["historical"])
    p.add(hist_bad, "historical", "deve ser sim, não ou vazio (não votou)")
    keep, keep_bad = _yes_no(text["must_keep"])
    p.add(keep_bad, "must_keep", "deve ser sim, não ou vazio")

    convention = decimal_convention([text["amount"]], default=default_convention(meta.separator))
    amount = parse_decimal(text["amount"], convention=convention, precision=18, scale=2)
    p.add(amount.invalid, "amount", "deve ser um número (ex.: 1.234,56)")
    p.add(amount.ambiguous, "amount", "número ambíguo: o arquivo usa ponto e vírgula decimais; escreva-o sem "
                                      "separador de milhar (ex.: 1234,5)")
    p.add(amount.too_precise, "amount", "deve ter no máximo 2 casas decimais")
    p.add(amount.too_large, "amount", "valor grande demais")

    currency = nullify(pc.utf8_upper(text["currency"]), "currency")
    dates = parse_dates(text["price_date"])
    p.add(dates.invalid, "price_date", "deve ser uma data dd/mm/aaaa ou aaaa-mm-dd")
    p.add(dates.impossible, "price_date", "data inexistente")

    sig_text = text["significance"]
    sig_ok = as_mask(pc.match_substring_regex(sig_text, r"^\d{1,2}$"))
    p.add(~blank("significance") & ~sig_ok, "significance", "deve ser um número inteiro de 1 a 5")
    sig = pc.cast(pc.if_else(pa.array(sig_ok), sig_text, pa.scalar(None, pa.string())), pa.int64())

    folded_src = _fold_vector(text["source"])
    mapping_keys = pa.array(list(SOURCE_ALIASES), type=pa.string())
    mapping_vals = pa.array(list(SOURCE_ALIASES.values()), type=pa.string())
    src_idx = pc.index_in(folded_src, value_set=mapping_keys)
    src = pc.if_else(src_idx.is_valid(), pc.take(mapping_vals, pc.fill_null(src_idx, 0)), folded_src)
    src = nullify(src, "source")
    note = nullify(text["source_note"], "source_note")

    cols = {
        "item_code": codes,
        "historical": hist,
        "amount": pc.cast(amount.values, AMOUNT_TYPE),
        "currency": currency,
        "price_date": dates.values,
        "significance": sig,
        "must_keep": keep,
        "source": src,
        "source_note": note,
    }
    given = {name: ~blank(name) for name in FIELDS}
    entries = check_entries(Entries(_typed_frame(cols), p, given), today=today)
    return Sheet(entries=entries, lines=lines, columns=columns, ignored_columns=tuple(ignored),
                 format=meta.format, row_count=n)


def _concat(prefix: str, numbers: np.ndarray, suffix: str) -> np.ndarray:
    return (prefix + pd.Series(numbers, dtype=np.int64).astype(str) + suffix).to_numpy(dtype=object)


def template_csv() -> bytes:
    """A sheet template for members (pt-BR Excel: `;` and decimal comma), UTF-8 with BOM."""
    header = ";".join(("codigo", "historico", "valor", "moeda", "data_do_preco", "significancia", "manter",
                       "fonte", "observacao"))
    rows = ["A1-001;sim;1.234,56;BRL;10/03/2025;4;não;catalogo;",
            "A1-002;não;800,00;USD;07/03/2025;;;avaliacao_externa;Leiloeira de renome X"]
    return ("\ufeff" + "\n".join([header, *rows]) + "\n").encode("utf-8")


def describe_source(code: str | None) -> str:
    return "—" if code is None else SOURCES.get(code, code)


__all__ = ["Entries", "FIELDS", "LABELS", "MAX_VALUE_BRL", "Problems", "SOURCES", "Sheet", "as_mask", "check_entries",
           "describe_source", "parse_sheet", "single_entry", "template_csv"]
