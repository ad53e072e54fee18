"""Importing a member's filled-in assessment sheet (CSV/XLSX) into an open round (issue 3).

`parse_sheet` reads the file and checks every cell — pure, no database — with the rules of
`valuation.commission.sheet` (the same as a form's); `import_assessments` adds what needs the
database (is the item in the contract, in the round? is there a rate?) and writes through
`entries.write_entries`, in one transaction, with the file recorded in `imports` (name,
SHA-256, rows). All or nothing: when any row is bad nothing is written and every bad cell is
listed ("linha N, coluna X: motivo"). The template a member downloads is `views.round_template`.

Sheet columns (header names compared without case, accents or punctuation; see
`HEADER_ALIASES`): item_code (required), historical, amount, currency, price_date,
significance, must_keep, source, source_note. Yes/no cells: sim/não (also s/n, x, 1/0,
true/false, verdadeiro/falso). Numbers and dates as in `valuation.importing.tabular`
(decimal comma or point, dd/mm/aaaa or ISO).
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.commission.entries import AssessmentImport, member_round, write_entries
from valuation.commission.rounds import register
from valuation.commission.sheet import (
    AMOUNT_TYPE,
    FIELDS,
    SOURCE_ALIASES,
    Entries,
    Problems,
    as_mask,
    check_entries,
    typed_frame,
)
from valuation.core.errors import InputError, Problem
from valuation.db.access import Principal, require
from valuation.importing.cells import (
    DecimalConvention,
    decimal_convention,
    default_convention,
    parse_dates,
    parse_decimal,
)
from valuation.importing.tabular import TableMeta, map_header, normalise_header, read_table

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

__all__ = ["FIELDS", "HEADER_ALIASES", "IMPORT_KIND", "Sheet", "import_assessments", "parse_sheet", "template_csv"]

IMPORT_KIND = "avaliacoes_comissao"
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
    df, meta = read_table(data, file_name, header=_header)      # header first: issue 24, item 10
    positions, ignored = _header(meta)
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
    cols = {"item_code": _codes(text["item_code"], lines, p), **_votes(text, p),
            **_values(text, p, default_convention(meta.separator)), **_sources(text)}
    given = {name: ~_blank(text[name]) for name in FIELDS}
    entries = check_entries(Entries(typed_frame(cols), p, given), today=today)
    return Sheet(entries=entries, lines=lines, columns=columns, ignored_columns=tuple(ignored),
                 format=meta.format, row_count=n)


def _header(meta: TableMeta) -> tuple[dict[str, int], list[str]]:
    """(field → column position, the named columns ignored); InputError for a missing
    item_code, a field named twice, or neither a vote nor a value column."""
    where = f"linha {meta.header_line}"
    positions, ignored, errors = map_header(meta, _ALIAS_TO_FIELD)
    if "item_code" not in positions:
        errors.append(Problem(where, 'coluna obrigatória ausente: "item_code" (nomes aceitos: codigo, '
                                     'codigo_do_item, item_code, …)'))
    if not ({"historical", "amount"} & set(positions)):
        errors.append(Problem(where, 'a planilha precisa de uma coluna "historical" (voto) ou "amount" (valor)'))
    if errors:
        raise InputError(errors)
    return positions, ignored


def _blank(text: pa.Array) -> np.ndarray:
    return as_mask(pc.equal(text, ""))


def _nullify(arr: pa.Array, text: pa.Array) -> pa.Array:
    """`arr` with null where the cell's text is empty."""
    return pc.if_else(pc.equal(text, ""), pa.scalar(None, arr.type), arr)


def _codes(codes: pa.Array, lines: np.ndarray, p: Problems) -> pa.Array:
    """The item codes: required, once per file."""
    no_code = _blank(codes)
    p.add(no_code, "item_code", "campo obrigatório vazio")
    code_series = pd.Series(codes.to_pandas(), copy=False)
    first = pd.Series(lines).groupby(code_series.to_numpy(dtype=object)).transform("min").to_numpy()
    repeated = ~no_code & (first != lines)
    p.add(repeated, "item_code", _concat("item repetido no arquivo (primeira ocorrência na linha ",
                                         first[repeated], ")"))
    return codes


def _votes(text: Mapping[str, pa.Array], p: Problems) -> dict[str, pa.Array]:
    """historical, must_keep (yes/no cells) and significance (1–5), typed."""
    hist, hist_bad = _yes_no(text["historical"])
    p.add(hist_bad, "historical", "deve ser sim, não ou vazio (não votou)")
    keep, keep_bad = _yes_no(text["must_keep"])
    p.add(keep_bad, "must_keep", "deve ser sim, não ou vazio")
    sig_text = text["significance"]
    sig_ok = as_mask(pc.match_substring_regex(sig_text, r"^\d{1,2}$"))
    p.add(~_blank(sig_text) & ~sig_ok, "significance", "deve ser um número inteiro de 1 a 5")
    sig = pc.cast(pc.if_else(pa.array(sig_ok), sig_text, pa.scalar(None, pa.string())), pa.int64())
    return {"historical": hist, "must_keep": keep, "significance": sig}


def _values(text: Mapping[str, pa.Array], p: Problems, default: DecimalConvention) -> dict[str, pa.Array]:
    """amount (the file's decimal convention), currency and price_date, typed."""
    convention = decimal_convention([text["amount"]], default=default)
    amount = parse_decimal(text["amount"], convention=convention, precision=18, scale=2)
    p.add(amount.invalid, "amount", "deve ser um número (ex.: 1.234,56)")
    p.add(amount.ambiguous, "amount", "número ambíguo: o arquivo usa ponto e vírgula decimais; escreva-o sem "
                                      "separador de milhar (ex.: 1234,5)")
    p.add(amount.too_precise, "amount", "deve ter no máximo 2 casas decimais")
    p.add(amount.too_large, "amount", "valor grande demais")
    currency = _nullify(pc.utf8_upper(text["currency"]), text["currency"])
    dates = parse_dates(text["price_date"])
    p.add(dates.invalid, "price_date", "deve ser uma data dd/mm/aaaa ou aaaa-mm-dd")
    p.add(dates.impossible, "price_date", "data inexistente")
    return {"amount": pc.cast(amount.values, AMOUNT_TYPE), "currency": currency, "price_date": dates.values}


def _sources(text: Mapping[str, pa.Array]) -> dict[str, pa.Array]:
    """source (its aliases folded to the code) and source_note."""
    folded_src = _fold_vector(text["source"])
    mapping_keys = pa.array(list(SOURCE_ALIASES), type=pa.string())
    mapping_vals = pa.array(list(SOURCE_ALIASES.values()), type=pa.string())
    src_idx = pc.index_in(folded_src, value_set=mapping_keys)
    src = pc.if_else(src_idx.is_valid(), pc.take(mapping_vals, pc.fill_null(src_idx, 0)), folded_src)
    return {"source": _nullify(src, text["source"]), "source_note": _nullify(text["source_note"], text["source_note"])}


def _concat(prefix: str, numbers: np.ndarray, suffix: str) -> np.ndarray:
    return (prefix + pd.Series(numbers, dtype=np.int64).astype(str) + suffix).to_numpy(dtype=object)


def template_csv() -> bytes:
    """A sheet template for members (pt-BR Excel: `;` and decimal comma), UTF-8 with BOM."""
    header = ";".join(("codigo", "historico", "valor", "moeda", "data_do_preco", "significancia", "manter",
                       "fonte", "observacao"))
    rows = ["A1-001;sim;1.234,56;BRL;10/03/2025;4;não;catalogo;",
            "A1-002;não;800,00;USD;07/03/2025;;;avaliacao_externa;Leiloeira de renome X"]
    return ("\ufeff" + "\n".join([header, *rows]) + "\n").encode("utf-8")


def import_assessments(store: Store, user: Principal, round_id: int, data: bytes, file_name: str) -> AssessmentImport:
    """Record the member's entries from a CSV/XLSX sheet — all or nothing: when any row is
    bad nothing is written and every bad cell is listed (`linha N, coluna X: motivo`).
    Items are named by their code in the contract; an item already entered gets a
    correction row. Bulk writes go through Arrow, one transaction."""
    require(user, "enter_assessments")
    if not isinstance(data, (bytes, bytearray)):
        raise InputError(Problem("", "arquivo ausente"))
    sheet = parse_sheet(bytes(data), file_name, today=store.today())
    entries = sheet.entries
    sha = hashlib.sha256(data).hexdigest()

    def run(tx: Tx) -> AssessmentImport:
        rnd = member_round(tx, round_id)
        item_ids = _item_ids(tx, rnd, entries.frame["item_code"], entries.problems)
        import_id = int(tx.scalar(
            "INSERT INTO imports (contract_id, kind, file_name, sha256, row_count, imported_by, imported_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [rnd["contract_id"], IMPORT_KIND, file_name[:255], sha, len(entries), user.username, store.now()]))
        written, corrections = write_entries(tx, rnd, user, entries, item_ids, import_id=import_id)
        result = AssessmentImport(round_id=round_id, import_id=import_id, file_name=file_name, sha256=sha,
                                  rows=written.num_rows, new=written.num_rows - corrections, corrections=corrections,
                                  ignored_columns=sheet.ignored_columns)
        tx.audit("assessments_imported", "assessment_round", round_id, None, {
            "file": file_name, "sha256": sha, "import_id": import_id, "rows": result.rows, "new": result.new,
            "corrections": corrections, "member_id": user.id})
        return result

    return store.write(user.username, run)


def _item_ids(tx: Tx, rnd: Mapping[str, Any], codes_column: pd.Series, problems: Problems) -> pa.Array:
    """The item id of each row's code (null when unknown); a code outside the contract or the
    round is a problem of its row."""
    codes = pa.array(codes_column.array, from_pandas=True)
    stage = pa.table({"row": pa.array(np.arange(len(codes)), type=pa.int64()), "item_code": codes})
    view = register(tx, "codes", stage)
    try:
        found = tx.cur.sql(
            f"SELECT s.row, i.id AS item_id, ri.item_id IS NOT NULL AS in_round FROM {view} s "
            f"LEFT JOIN items i ON i.contract_id = {int(rnd['contract_id'])} AND i.item_code = s.item_code "
            f"LEFT JOIN round_items ri ON ri.round_id = {int(rnd['id'])} AND ri.item_id = i.id "
            f"ORDER BY s.row").to_arrow_table()
    finally:
        tx.cur.unregister(view)
    item_ids = found["item_id"].combine_chunks()
    has_code = as_mask(pc.not_equal(codes, ""))
    known = as_mask(item_ids.is_valid())
    problems.add(has_code & ~known, "item_code", f"item não encontrado no contrato {rnd['contract_code']}")
    problems.add(has_code & known & ~as_mask(found["in_round"]), "item_code",
                 f"o item não faz parte da rodada {rnd['number']}")
    return item_ids
