"""Parsing and validating a file of recovered items (issue 4, inventory) — pure, no database.

Every recovered item is registered and delivered to the Naval Authority (Lei 7.542/1986
art. 23); this module turns the explorer's spreadsheet into the rows of that register.
All or nothing: `parse_items` either returns every row, typed and ready for one bulk
insert, or raises `InputError` naming every bad cell as `linha N, coluna X` (N = the
line of the file where the record starts, header = line 1; XLSX: the sheet row) with
the reason in Portuguese. Reading rules (encodings, separators, numbers, dates, line
numbers) are those of `valuation.importing.tabular`.

Columns: the fields of `valuation.inventory.fields.ITEM_FIELDS`, by key (the X of `coluna X`);
the header may use any of a field's `headers` (its label among them, e.g. `Código do item`,
`quantidade`, `Peso (g)`), compared without case, accents, spaces or punctuation. Each kind
has its checks: text (required or not), integer (> 0, fits INTEGER), decimal (≥ 0, its
DECIMAL's places and size), date (a real date, not after `today`); item codes are unique
within the file and the contract.

A bare `peso`/`weight` header is not accepted (grams or kilograms?); a bare
`profundidade`/`depth` is read as metres. Other named columns are ignored and listed in
`ParsedItems.ignored_columns`; data under a column without a header name is an error
(it usually means a separator inside an unquoted field shifted the row).
Item codes are compared exactly after trimming (the store's UNIQUE is case-sensitive).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from valuation.core.errors import InputError, Problem
from valuation.importing.cells import (
    MAX_PROBLEMS,
    DecimalColumn,
    DecimalConvention,
    NumberForms,
    claim_cells,
    decimal_convention,
    default_convention,
    more_problems,
    number_forms,
    parse_dates,
    parse_decimal,
    regex_mask,
    with_value,
)
from valuation.importing.tabular import Progress, TableMeta, map_header, read_table
from valuation.inventory.fields import INT32_MAX, ITEM_FIELDS, KEYS, ItemField

COLUMNS: tuple[str, ...] = KEYS
OPTIONAL_COLUMNS = frozenset(f.key for f in ITEM_FIELDS if not f.required)
REQUIRED_COLUMNS: tuple[str, ...] = tuple(f.key for f in ITEM_FIELDS if f.required)
HEADER_ALIASES: dict[str, tuple[str, ...]] = {f.key: f.headers for f in ITEM_FIELDS}
_ALIAS_TO_COLUMN = {alias: column for column, aliases in HEADER_ALIASES.items() for alias in aliases}

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
    decimal_convention: DecimalConvention | None = None   # 'comma' | 'point' | None (no ambiguous value needed it)


def parse_items(data: bytes, file_name: str, *, today: date,
                existing_codes: Collection[str] | Callable[[pa.Array], np.ndarray] = (),
                progress: Progress | None = None, not_before: date | None = None,
                sha256: str | None = None) -> ParsedItems:
    """Parse and validate an items file (CSV or XLSX); all or nothing.

    Raises InputError whose problems name every bad cell (`linha N, coluna X`), sorted by
    line and column, at most `MAX_PROBLEMS` of them plus a final '… e mais K problemas';
    or one problem per missing/duplicated column; or one for an empty, unreadable or
    unsupported file. `existing_codes`: the item codes already in the contract, or a
    function telling, for the file's code column (Arrow strings), which are (a boolean
    array) — the store looks them up in the database. `not_before`: the wreck's casualty date
    (no recovery before it; never before `EARLIEST_RECOVERY`). `sha256`: the file's, when the caller
    has it already (else computed here).
    """
    if progress:
        progress(0.0, "lendo o arquivo")
    df, meta = read_table(data, file_name, progress=progress, header=_map_columns)   # header first: issue 24
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
    _unnamed_problems(problems, df, meta, set(positions.values()))
    # The columns are read on two threads (Arrow's kernels, numpy and DuckDB run without the GIL);
    # the problems are then added here in one fixed order, so the result is the sequential one.
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="parse_items") as pool:
        code_job = pool.submit(_code_checks, text["item_code"], lines, existing_codes)
        number_keys = [f.key for f in ITEM_FIELDS if f.kind in ("integer", "decimal")]
        form_jobs = {key: pool.submit(number_forms, text[key]) for key in number_keys}
        typed_jobs = {f.key: pool.submit(_typed, f, text[f.key], None, None) for f in ITEM_FIELDS if f.kind == "date"}
        forms = {key: job.result() for key, job in form_jobs.items()}
        convention = decimal_convention(forms.values(), default=default_convention(meta.separator))
        typed_jobs |= {f.key: pool.submit(_typed, f, text[f.key], convention, forms[f.key])
                       for f in ITEM_FIELDS if f.key in forms}
        text["item_code"], code_checks = code_job.result()
        _code_problems(problems, text["item_code"], code_checks)
        typed = {key: job.result() for key, job in typed_jobs.items()}
    values = {f.key: _checked(problems, f, text[f.key], convention, today, forms.get(f.key), typed.get(f.key))
              for f in ITEM_FIELDS}
    _physical_problems(problems, text, values, today, not_before)
    problems.raise_if_any()
    if progress:
        progress(0.95, "montando as linhas para gravação")
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="parse_items") as pool:   # casts without the GIL
        typed_columns = list(pool.map(lambda f: _column(f, values[f.key]), ITEM_FIELDS))
    frame = pd.DataFrame({f.key: col for f, col in zip(ITEM_FIELDS, typed_columns, strict=True)})
    if progress:
        progress(1.0, f"{len(frame)} itens válidos")
    return ParsedItems(
        frame=frame, row_count=len(frame), sha256=sha256 or hashlib.sha256(data).hexdigest(),
        encoding=meta.encoding, separator=meta.separator, file_name=file_name, format=meta.format,
        lines=lines, ignored_columns=ignored, decimal_convention=convention,
    )


def _unnamed_problems(problems: _Problems, df: pd.DataFrame, meta: TableMeta, named: set[int]) -> None:
    """Data under a column without a name in the header."""
    for pos, title in enumerate(meta.header):
        if title == "" and pos not in named:
            filled = (df.iloc[:, pos] != "").to_numpy(dtype=bool)
            problems.add(filled, f"{pos + 1} (sem nome no cabeçalho)",
                         "valor numa coluna sem nome no cabeçalho (separador dentro de um campo sem aspas?)",
                         df.iloc[:, pos], order=len(COLUMNS) + pos)


@dataclass(frozen=True)
class _CodeChecks:
    """What `_code_problems` reports about the code column, worked out apart (`_code_checks`)."""

    has_code: np.ndarray
    invisible: np.ndarray
    look_alike: np.ndarray
    first_line: np.ndarray
    taken: np.ndarray | None


def _code_checks(raw: pd.Series, lines: np.ndarray,
                 existing_codes: Collection[str] | Callable[[pa.Array], np.ndarray]) -> tuple[pd.Series, _CodeChecks]:
    """The code column in NFC (one spelling per code) and its checks: nothing invisible, no
    look-alike letters, unique within the file and the contract (its empty cells: `_checked`)."""
    codes = _nfc(raw)
    code_arr = _arrow_text(codes)
    has_code = (codes != "").to_numpy(dtype=bool)
    # Printable ASCII holds no invisible character and no look-alike letter: the expressions for the rest.
    unusual = has_code & ~_np(pc.ascii_is_printable(code_arr))
    return codes, _CodeChecks(has_code, regex_mask(code_arr, _INVISIBLE, unusual),
                              regex_mask(code_arr, _LOOK_ALIKE, unusual), _first_lines(code_arr, lines),
                              _taken(code_arr, existing_codes))


def _code_problems(problems: _Problems, codes: pd.Series, checks: _CodeChecks) -> None:
    """The problems of the code column (`_code_checks`), in their order."""
    problems.add(checks.invisible, "item_code",
                 "código com caractere de controle ou invisível (quebra de linha, tabulação, espaço de largura zero…)",
                 codes)
    problems.add(checks.look_alike, "item_code",
                 "código com letra de outro alfabeto ou de largura dupla, parecida com uma latina (use só letras "
                 "latinas e algarismos comuns)", codes)
    first_line = checks.first_line
    repeated = checks.has_code & (first_line != problems.lines)
    problems.add(repeated, "item_code", _concat("código repetido no arquivo (primeira ocorrência na linha ",
                                                first_line[repeated], ")"), codes)
    if checks.taken is not None:
        problems.add(checks.has_code & ~repeated & checks.taken, "item_code", "código já cadastrado neste contrato",
                     codes)


def _typed(f: ItemField, raw: pd.Series, convention: DecimalConvention | None, forms: NumberForms | None) -> Any:
    """A number or date field's cells parsed (no problem added: `_checked` adds them); None for text."""
    if f.kind == "integer":
        return parse_decimal(raw if forms is None else forms, convention=convention, precision=30, scale=0)
    if f.kind == "decimal":
        return parse_decimal(raw if forms is None else forms, convention=convention, precision=f.precision,
                             scale=f.scale)
    if f.kind == "date":
        return parse_dates(raw)
    return None


def _checked(problems: _Problems, f: ItemField, raw: pd.Series, convention: DecimalConvention | None,
             today: date, forms: NumberForms | None = None, typed: Any = None) -> Any:
    """One field's cells checked by its kind (problems added) and typed: the text itself, a
    DecimalColumn or the parsed dates. `forms`: a number column's `number_forms`, already made;
    `typed`: its `_typed`, already made."""
    blank = (raw == "").to_numpy(dtype=bool)
    if f.required:
        problems.add(blank, f.key, "campo obrigatório vazio")
    if typed is None:
        typed = _typed(f, raw, convention, forms)
    if f.kind == "integer":
        return _integer_problems(problems, f.key, raw, blank, typed)
    if f.kind == "decimal":
        _number_problems(problems, f.key, raw, typed, f.what, f.largest)
        return typed
    if f.kind == "date":
        dates = typed
        problems.add(dates.invalid, f.key, "deve ser uma data dd/mm/aaaa ou aaaa-mm-dd", raw)
        problems.add(dates.impossible, f.key, "data inexistente", raw)
        problems.add(dates.ok & dates.after(today), f.key, f"data no futuro (hoje é {today:%d/%m/%Y})", raw)
        return dates
    return raw



def _physical_problems(problems: _Problems, text: dict[str, pd.Series], values: dict[str, Any],
                       today: date, not_before: date | None) -> None:
    """Bounds of the physical world: no depth beyond the deepest ocean, no recovery before the
    wreck's casualty (or before EARLIEST_RECOVERY), each saying why."""
    depth = values["depth_m"]
    depth_ok = depth.ok & ~depth.negative
    problems.add(depth_ok & _np(pc.greater(depth.values, pa.scalar(MAX_DEPTH_M, depth.values.type))), "depth_m",
                 f"mais fundo que o ponto mais profundo dos oceanos (máximo {MAX_DEPTH_M:,} m)".replace(",", "."),
                 text["depth_m"])
    dates = values["recovered_on"]
    floor = max(not_before or EARLIEST_RECOVERY, EARLIEST_RECOVERY)
    early = dates.ok & ~dates.after(today) & _np(pc.less(dates.values, pa.scalar(floor, pa.date32())))
    reason = (f"anterior ao sinistro do naufrágio ({floor:%d/%m/%Y}): nada se resgata antes de afundar"
              if not_before is not None and not_before >= EARLIEST_RECOVERY else
              f"anterior a {floor:%d/%m/%Y}: data impossível para um bem resgatado")
    problems.add(early, "recovered_on", reason, text["recovered_on"])


def _integer_problems(problems: _Problems, name: str, raw: pd.Series, blank: np.ndarray,
                      col: DecimalColumn) -> DecimalColumn:
    """Problems of a whole number above zero that fits an INTEGER column (quantity): `col`, its
    cells parsed with precision 30 and scale 0 (`_typed`)."""
    bad = ~blank & ~col.ok
    problems.add(bad & col.ambiguous, name, _AMBIGUOUS, raw)
    problems.add(bad & ~col.ambiguous, name, "deve ser um inteiro maior que zero", raw)
    nonpositive = col.ok & _np(pc.less_equal(col.values, pa.scalar(0, col.values.type)))
    problems.add(nonpositive, name, "deve ser um inteiro maior que zero", raw)
    huge = col.ok & ~nonpositive & _np(pc.greater(col.values, pa.scalar(INT32_MAX, col.values.type)))
    problems.add(huge, name, f"valor grande demais (máximo {INT32_MAX})", raw)
    return col


def _column(f: ItemField, value: Any) -> pd.Series:
    """The frame's column of field `f` from its checked value (`_checked`), typed as the store's."""
    if f.kind == "integer":
        return pd.Series(pc.cast(value.values, pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    if f.kind == "decimal":
        return pd.Series(pd.arrays.ArrowExtensionArray(pc.cast(value.values, pa.decimal128(f.precision, f.scale))))
    if f.kind == "date":
        return pd.Series(pd.arrays.ArrowExtensionArray(value.values))
    arr = pa.array(value.array, from_pandas=True)
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    arr = pc.cast(arr, pa.string())
    if not f.required:
        arr = pc.if_else(pc.equal(arr, ""), pa.scalar(None, pa.string()), arr)
    return pd.Series(pd.arrays.ArrowExtensionArray(arr))


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
    positions, ignored, errors = map_header(meta, _ALIAS_TO_COLUMN)
    for column in REQUIRED_COLUMNS:
        if column not in positions:
            names = ", ".join(HEADER_ALIASES[column][:4])
            errors.append(Problem(column, f'coluna obrigatória ausente: "{column}" (nomes aceitos: {names}, …)',
                                  line=meta.header_line))
    if errors:
        raise InputError(errors)
    return positions, tuple(ignored)


def _np(mask: pa.Array) -> np.ndarray:
    return pc.fill_null(mask, False).to_numpy(zero_copy_only=False).astype(bool)


def _nfc(col: pd.Series) -> pd.Series:
    """The column in Unicode NFC: a decomposed accent and a composed one are the same text. A column
    of ASCII alone is its own NFC (as it is)."""
    if isinstance(col.array, pd.arrays.ArrowStringArray):
        raw = pa.array(col.array, from_pandas=True)              # the Arrow column itself, no copy
        if raw.null_count == 0 and pc.all(pc.string_is_ascii(raw)).as_py() is not False:
            return col
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
    if _strictly_increasing(codes):
        return lines.copy()                            # a file in code order: no code repeats
    index = pc.dictionary_encode(codes).indices.to_numpy(zero_copy_only=False)
    _, first = np.unique(index, return_index=True)     # first row of each distinct code
    return lines[first[index]]


def _strictly_increasing(codes: pa.Array) -> bool:
    """Whether each code comes after the one before it, ordered by length and then byte by byte
    (`A-9` < `A-10`: the order of a numbered list): then no two are equal. A cheap test that
    spares a file in code order the hashing of its codes."""
    if len(codes) < 2:
        return False
    after, before = codes.slice(1), codes.slice(0, len(codes) - 1)
    longer = pc.subtract(pc.binary_length(after), pc.binary_length(before))
    if pc.min(longer).as_py() < 0:
        return False
    return bool(pc.all(pc.or_(pc.greater(longer, 0), pc.greater(after, before))).as_py())


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
        self.lines = lines
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
            "line": self.lines[mask],
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
            Problem(column, with_value(message, value), line=int(line), column=column)
            for line, column, message, value in table.head(MAX_PROBLEMS)[["line", "column", "message", "value"]]
            .itertuples(index=False, name=None)
        ]
        raise InputError(listed + more_problems(total))


