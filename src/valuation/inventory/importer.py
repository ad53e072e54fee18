"""Parsing and validating a file of recovered items (issue 4, inventory) — pure, no database.

Every recovered item is registered and delivered to the Naval Authority (Lei 7.542/1986
art. 23); this module turns the explorer's spreadsheet into the rows of that register.
All or nothing: `parse_items` either returns every row, typed and ready for one bulk
insert, or raises `InputError` naming every bad cell as `linha N, coluna X` (N = the
line of the file where the record starts, header = line 1; XLSX: the sheet row) with
the reason in Portuguese. Reading rules (encodings, separators, numbers, dates, line
numbers) are those of `valuation.importing.tabular`.

Columns, by canonical name (the X of `coluna X`; the header may also use any alias in
`HEADER_ALIASES`, e.g. `Código do item`, `quantidade`, `Peso (g)`, compared without case,
accents, spaces or punctuation):

    item_code     required, unique within the file and the contract
    description   required
    category      required
    material      required
    quantity      required, integer > 0
    weight_g      optional column and cell, grams, ≥ 0, at most 2 decimal places
    recovered_on  required, a real date, not after `today`
    depth_m       optional column and cell, metres, ≥ 0, at most 2 decimal places
    lot           optional (coins are often handled in lots)
    condition     required
    notes         optional

A bare `peso`/`weight` header is not accepted (grams or kilograms?); a bare
`profundidade`/`depth` is read as metres. Other named columns are ignored and listed in
`ParsedItems.ignored_columns`; data under a column without a header name is an error
(it usually means a separator inside an unquoted field shifted the row).
Item codes are compared exactly after trimming (the store's UNIQUE is case-sensitive).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.core.errors import InputError, Problem
from valuation.importing.tabular import (
    MAX_PROBLEMS,
    DecimalColumn,
    Progress,
    TableMeta,
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

COLUMNS: tuple[str, ...] = ("item_code", "description", "category", "material", "quantity", "weight_g",
                            "recovered_on", "depth_m", "lot", "condition", "notes")
OPTIONAL_COLUMNS = frozenset({"weight_g", "depth_m", "lot", "notes"})
REQUIRED_COLUMNS: tuple[str, ...] = tuple(c for c in COLUMNS if c not in OPTIONAL_COLUMNS)

# Header aliases, already in `normalise_header` form (lower case, no accents, '_' for any run
# of spaces/punctuation): 'Código do item' → codigo_do_item, 'Peso (g)' → peso_g.
HEADER_ALIASES: dict[str, tuple[str, ...]] = {
    "item_code": ("item_code", "code", "codigo", "cod", "codigo_item", "codigo_do_item", "cod_item",
                  "numero_do_item", "numero_item", "n_item"),
    "description": ("description", "descricao", "descricao_do_item", "item_description"),
    "category": ("category", "categoria"),
    "material": ("material", "materiais"),
    "quantity": ("quantity", "qty", "quantidade", "qtd", "qtde", "quant"),
    "weight_g": ("weight_g", "weight_grams", "weight_in_grams", "peso_g", "peso_gramas", "peso_em_gramas",
                 "peso_em_g", "peso_gr"),
    "recovered_on": ("recovered_on", "recovery_date", "date_recovered", "data_recuperacao",
                     "data_de_recuperacao", "data_da_recuperacao", "recuperado_em", "data_resgate",
                     "data_de_resgate", "data_do_resgate"),
    "depth_m": ("depth_m", "depth", "depth_metres", "depth_meters", "profundidade_m", "profundidade",
                "profundidade_em_metros", "profundidade_metros", "prof_m"),
    "lot": ("lot", "lote", "numero_do_lote", "numero_lote", "n_lote"),
    "condition": ("condition", "condicao", "estado", "estado_de_conservacao", "estado_conservacao",
                  "conservacao"),
    "notes": ("notes", "note", "observacoes", "observacao", "obs", "comentarios"),
}
_ALIAS_TO_COLUMN = {alias: column for column, aliases in HEADER_ALIASES.items() for alias in aliases}

INT32_MAX = 2_147_483_647    # items.quantity is INTEGER

_TEXT = pd.ArrowDtype(pa.string())
WEIGHT_TYPE = pa.decimal128(12, 2)    # items.weight_g DECIMAL(12,2)
DEPTH_TYPE = pa.decimal128(7, 2)      # items.depth_m DECIMAL(7,2)
MAX_DEPTH_M = 11_000                  # metres: deeper than the deepest ocean trench (~10 935 m)
EARLIEST_RECOVERY = date(1000, 1, 1)  # as registry.wrecks.MIN_CASUALTY_YEAR: earlier is a typing error
# RE2 classes: control, format (zero-width…), line/paragraph separators, spaces other than U+0020, fillers.
_INVISIBLE = r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\x{00A0}\x{1680}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}\x{115F}\x{1160}" \
             r"\x{3164}\x{FFA0}]"
# Letters that pass for Latin ones (Cyrillic а, Greek ο …) and full-width forms (Ａ, １).
_LOOK_ALIKE = r"[\p{Greek}\p{Cyrillic}\p{Armenian}\p{Cherokee}\x{FF00}-\x{FFEF}]"


@dataclass(frozen=True, eq=False)
class ParsedItems:
    """A validated items file, ready for one bulk insert.

    `frame` has exactly the columns of `COLUMNS`: text columns as Arrow strings (null
    when an optional cell is empty), `quantity` int64, `weight_g` decimal128(12,2),
    `recovered_on` date32, `depth_m` decimal128(7,2). `lines[i]` is the line of the file
    where `frame` row i starts.
    """

    frame: pd.DataFrame
    row_count: int
    sha256: str
    encoding: str | None          # CSV: codec name; XLSX: None
    separator: str | None         # CSV: ';', ',' or TAB; XLSX: None
    file_name: str
    format: str = "csv"           # 'csv' | 'xlsx'
    lines: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ignored_columns: tuple[str, ...] = ()
    decimal_convention: str | None = None   # 'comma' | 'point' | None (no ambiguous value needed it)


def parse_items(data: bytes, file_name: str, *, today: date,
                existing_codes: Collection[str] | Callable[[pa.Array], np.ndarray] = (),
                progress: Progress | None = None, not_before: date | None = None) -> ParsedItems:
    """Parse and validate an items file (CSV or XLSX); all or nothing.

    Raises InputError whose problems name every bad cell (`linha N, coluna X`), sorted by
    line and column, at most `MAX_PROBLEMS` of them plus a final '… e mais K problemas';
    or one problem per missing/duplicated column; or one for an empty, unreadable or
    unsupported file. `existing_codes`: the item codes already in the contract, or a
    function telling, for the file's code column (Arrow strings), which are (a boolean
    array) — the store looks them up in the database. `not_before`: the wreck's casualty date
    (no recovery before it; never before `EARLIEST_RECOVERY`).
    """
    if progress:
        progress(0.0, "lendo o arquivo")
    df, meta = read_table(data, file_name, progress=progress)
    positions, ignored = _map_columns(meta)
    if df.empty:
        raise InputError([Problem("", "o arquivo não tem linhas de dados (só o cabeçalho)")])
    if progress:
        progress(0.7, f"validando {len(df)} linhas")

    lines = df.index.to_numpy(dtype=np.int64)
    problems = _Problems(lines)
    cols = {name: df.iloc[:, pos] for name, pos in positions.items()}
    empty = pd.Series(pd.arrays.ArrowStringArray(pa.array([""] * len(df), type=pa.large_string())),
                      index=df.index)
    text = {name: cols.get(name, empty) for name in COLUMNS}
    blank = {name: (text[name] == "").to_numpy(dtype=bool) for name in COLUMNS}

    for name in REQUIRED_COLUMNS:
        problems.add(blank[name], name, "campo obrigatório vazio")

    # Data under a column without a name in the header.
    named = set(positions.values())
    for pos, title in enumerate(meta.header):
        if title == "" and pos not in named:
            filled = (df.iloc[:, pos] != "").to_numpy(dtype=bool)
            problems.add(filled, f"{pos + 1} (sem nome no cabeçalho)",
                         "valor numa coluna sem nome no cabeçalho (separador dentro de um campo sem aspas?)",
                         df.iloc[:, pos], order=len(COLUMNS) + pos)

    # item_code: one spelling per code (NFC), nothing invisible, no look-alike letters; unique.
    codes = text["item_code"] = _nfc(text["item_code"])
    code_arr = _arrow_text(codes)
    has_code = ~blank["item_code"]
    problems.add(has_code & _np(pc.match_substring_regex(code_arr, _INVISIBLE)), "item_code",
                 "código com caractere de controle ou invisível (quebra de linha, tabulação, espaço de largura zero…)",
                 codes)
    problems.add(has_code & _np(pc.match_substring_regex(code_arr, _LOOK_ALIKE)), "item_code",
                 "código com letra de outro alfabeto ou de largura dupla, parecida com uma latina (use só letras "
                 "latinas e algarismos comuns)", codes)
    first_line = _first_lines(code_arr, lines)
    repeated = has_code & (first_line != lines)
    problems.add(repeated, "item_code", _concat("código repetido no arquivo (primeira ocorrência na linha ",
                                                first_line[repeated], ")"), codes)
    taken = _taken(code_arr, existing_codes)
    if taken is not None:
        problems.add(has_code & ~repeated & taken, "item_code", "código já cadastrado neste contrato", codes)

    # Numbers: one decimal convention for the whole file.
    numeric = [text[n] for n in ("quantity", "weight_g", "depth_m")]
    convention = decimal_convention(numeric, default=default_convention(meta.separator))
    quantity = parse_decimal(text["quantity"], convention=convention, precision=30, scale=0)
    q_bad = ~blank["quantity"] & ~quantity.ok
    problems.add(q_bad & quantity.ambiguous, "quantity", _AMBIGUOUS, text["quantity"])
    problems.add(q_bad & ~quantity.ambiguous, "quantity", "deve ser um inteiro maior que zero", text["quantity"])
    q_ok = quantity.ok
    q_nonpositive = q_ok & _np(pc.less_equal(quantity.values, pa.scalar(0, quantity.values.type)))
    problems.add(q_nonpositive, "quantity", "deve ser um inteiro maior que zero", text["quantity"])
    q_huge = q_ok & ~q_nonpositive & _np(pc.greater(quantity.values, pa.scalar(INT32_MAX, quantity.values.type)))
    problems.add(q_huge, "quantity", f"valor grande demais (máximo {INT32_MAX})", text["quantity"])

    weight = parse_decimal(text["weight_g"], convention=convention, precision=12, scale=2)
    _number_problems(problems, "weight_g", text["weight_g"], weight, "peso em gramas", "9999999999,99")
    depth = parse_decimal(text["depth_m"], convention=convention, precision=7, scale=2)
    _number_problems(problems, "depth_m", text["depth_m"], depth, "profundidade em metros", "99999,99")

    depth_ok = depth.ok & ~depth.negative
    problems.add(depth_ok & _np(pc.greater(depth.values, pa.scalar(MAX_DEPTH_M, depth.values.type))), "depth_m",
                 f"mais fundo que o ponto mais profundo dos oceanos (máximo {MAX_DEPTH_M:,} m)".replace(",", "."),
                 text["depth_m"])

    dates = parse_dates(text["recovered_on"])
    problems.add(dates.invalid, "recovered_on", "deve ser uma data dd/mm/aaaa ou aaaa-mm-dd", text["recovered_on"])
    problems.add(dates.impossible, "recovered_on", "data inexistente", text["recovered_on"])
    future = dates.ok & dates.after(today)
    problems.add(future, "recovered_on", f"data no futuro (hoje é {today:%d/%m/%Y})", text["recovered_on"])
    floor = max(not_before or EARLIEST_RECOVERY, EARLIEST_RECOVERY)
    early = dates.ok & ~future & _np(pc.less(dates.values, pa.scalar(floor, pa.date32())))
    reason = (f"anterior ao sinistro do naufrágio ({floor:%d/%m/%Y}): nada se resgata antes de afundar"
              if not_before is not None and not_before >= EARLIEST_RECOVERY else
              f"anterior a {floor:%d/%m/%Y}: data impossível para um bem resgatado")
    problems.add(early, "recovered_on", reason, text["recovered_on"])

    problems.raise_if_any()
    if progress:
        progress(0.95, "montando as linhas para gravação")

    def text_col(name: str, optional: bool) -> pd.Series:
        arr = pa.array(text[name].array, from_pandas=True)
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        arr = pc.cast(arr, pa.string())
        if optional:
            arr = pc.if_else(pc.equal(arr, ""), pa.scalar(None, pa.string()), arr)
        return pd.Series(pd.arrays.ArrowExtensionArray(arr))

    frame = pd.DataFrame({
        "item_code": text_col("item_code", False),
        "description": text_col("description", False),
        "category": text_col("category", False),
        "material": text_col("material", False),
        "quantity": pd.Series(pc.cast(quantity.values, pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64),
        "weight_g": pd.Series(pd.arrays.ArrowExtensionArray(pc.cast(weight.values, WEIGHT_TYPE))),
        "recovered_on": pd.Series(pd.arrays.ArrowExtensionArray(dates.values)),
        "depth_m": pd.Series(pd.arrays.ArrowExtensionArray(pc.cast(depth.values, DEPTH_TYPE))),
        "lot": text_col("lot", True),
        "condition": text_col("condition", False),
        "notes": text_col("notes", True),
    })
    if progress:
        progress(1.0, f"{len(frame)} itens válidos")
    return ParsedItems(
        frame=frame, row_count=len(frame), sha256=hashlib.sha256(data).hexdigest(),
        encoding=meta.encoding, separator=meta.separator, file_name=file_name, format=meta.format,
        lines=lines, ignored_columns=ignored, decimal_convention=convention,
    )


_AMBIGUOUS = ("número ambíguo: pode ser lido com ponto ou com vírgula decimal e o arquivo usa os dois; "
              "escreva-o sem separador de milhar (ex.: 1234,5)")


def _number_problems(problems: _Problems, name: str, raw: pd.Series, col: DecimalColumn,
                     what: str, maximum: str) -> None:
    """Problems of an optional, non-negative decimal cell (weight_g, depth_m)."""
    problems.add(col.invalid, name, f"deve ser um número ({what}, ex.: 1234,56)", raw)
    problems.add(col.ambiguous, name, _AMBIGUOUS, raw)
    problems.add(col.too_precise, name, "deve ter no máximo 2 casas decimais", raw)
    problems.add(col.too_large, name, f"valor grande demais (máximo {maximum})", raw)
    problems.add(col.ok & col.negative, name, "não pode ser negativo", raw)


def _map_columns(meta: TableMeta) -> tuple[dict[str, int], tuple[str, ...]]:
    """Canonical column → position; the named columns that are not ours. InputError for a
    missing required column or two columns naming the same field."""
    positions: dict[str, int] = {}
    ignored: list[str] = []
    errors: list[Problem] = []
    where = f"linha {meta.header_line}"
    for pos, title in enumerate(meta.header):
        if not title:
            continue
        column = _ALIAS_TO_COLUMN.get(normalise_header(title))
        if column is None:
            ignored.append(title)
        elif column in positions:
            errors.append(Problem(where, f'as colunas "{meta.header[positions[column]]}" e "{title}" '
                                         f"indicam o mesmo campo ({column})"))
        else:
            positions[column] = pos
    for column in REQUIRED_COLUMNS:
        if column not in positions:
            names = ", ".join(HEADER_ALIASES[column][:4])
            errors.append(Problem(where, f'coluna obrigatória ausente: "{column}" (nomes aceitos: {names}, …)'))
    if errors:
        raise InputError(errors)
    return positions, tuple(ignored)


def _np(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(bool)


def _nfc(col: pd.Series) -> pd.Series:
    """The column in Unicode NFC: a decomposed accent and a composed one are the same text."""
    arr = pc.utf8_normalize(_arrow_text(col), "NFC")
    return pd.Series(pd.arrays.ArrowStringArray(pc.cast(arr, pa.large_string())), index=col.index)


def _arrow_text(col: pd.Series) -> pa.Array:
    arr = pa.array(col.array, from_pandas=True)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return pc.fill_null(pc.cast(arr, pa.string()), "")


def _first_lines(codes: pa.Array, lines: np.ndarray) -> np.ndarray:
    """For each row, the line where its code first appears in the file (its own when unique)."""
    if len(codes) == 0:
        return lines.copy()
    index = pc.dictionary_encode(codes).indices.to_numpy(zero_copy_only=False)
    _, first = np.unique(index, return_index=True)     # first row of each distinct code
    return lines[first[index]]


def _taken(codes: pa.Array, existing: Collection[str] | Callable[[pa.Array], np.ndarray]) -> np.ndarray | None:
    """Which codes the contract already has (None: it has none)."""
    if callable(existing):
        return np.asarray(existing(codes), dtype=bool)
    if not len(existing):
        return None
    return _np(pc.is_in(codes, value_set=pa.array(list(existing), type=pa.string())))


def _concat(prefix: str, numbers: np.ndarray, suffix: str) -> np.ndarray:
    return (prefix + pd.Series(numbers, dtype=np.int64).astype(str) + suffix).to_numpy(dtype=object)


class _Problems:
    """Bad cells gathered column by column as arrays; formatted only for the ones listed.
    A cell is reported once: the first check that flags it wins."""

    def __init__(self, lines: np.ndarray):
        self._lines = lines
        self._flagged: dict[str, np.ndarray] = {}
        self._parts: list[pd.DataFrame] = []

    def add(self, mask: np.ndarray, column: str, message: str | np.ndarray,
            values: pd.Series | None = None, *, order: int | None = None) -> None:
        mask, message = claim_cells(self._flagged, column, mask, message)
        if not mask.any():
            return
        count = int(mask.sum())
        shown = values.to_numpy(dtype=object)[mask] if values is not None else np.full(count, "", dtype=object)
        self._parts.append(pd.DataFrame({
            "line": self._lines[mask],
            "order": np.full(count, COLUMNS.index(column) if order is None else order),
            "column": np.full(count, column, dtype=object),
            "message": message if isinstance(message, np.ndarray) else np.full(count, message, dtype=object),
            "value": shown,
        }))

    def raise_if_any(self) -> None:
        if not self._parts:
            return
        table = pd.concat(self._parts, ignore_index=True).sort_values(["line", "order"], kind="stable")
        total = len(table)
        listed = [
            Problem(f"linha {line}, coluna {column}", with_value(message, value))
            for line, column, message, value in table.head(MAX_PROBLEMS)[["line", "column", "message", "value"]]
            .itertuples(index=False, name=None)
        ]
        raise InputError(listed + more_problems(total))


