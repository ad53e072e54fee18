"""Recovered-items import files (issue 4): parsing and validation, all or nothing.

Line numbers are counted by the tests independently of the code: the physical line of
the file where a record starts (header = line 1; XLSX: the sheet row).
"""
from __future__ import annotations

import csv
import hashlib
import io
from datetime import date, datetime
from decimal import Decimal

import numpy as np
import openpyxl
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from valuation.core.errors import InputError
from valuation.importing import tabular
from valuation.importing.cells import decimal_convention, parse_dates, parse_decimal
from valuation.importing.tabular import normalise_header, read_table, sniff_separator
from valuation.inventory.importer import COLUMNS, MAX_PROBLEMS, parse_items

TODAY = date(2025, 6, 30)
HEADER_PT = ["Código do item", "Descrição", "Categoria", "Material", "Quantidade", "Peso (g)",
             "Data de recuperação", "Profundidade (m)", "Lote", "Condição", "Observações"]
# (code, description, category, material, quantity, weight, date, depth, lot, condition, notes)
ROWS_BR = [
    ["SJ-001", "Moeda de prata 8 reales", "moeda", "prata", "1", "27,07", "10/03/2025", "23,40", "L-01", "boa", ""],
    ["SJ-002", "Canhão de bronze", "armamento", "bronze", "1", "1.234.567,89", "11/03/2025", "24,5", "", "regular",
     "bala alojada; boca obstruída"],
    ["SJ-003", "Prato de louça", "louça", "porcelana", "12", "", "2025-03-12", "", "", "fragmentado", ""],
    ["SJ-004", "Moedas de cobre", "moeda", "cobre", "250", "2.500,00", "1/4/2025", "22", "L-02", "corroída", ""],
    ["SJ-005", "Âncora", "equipamento", "ferro", "1", "0", "02/04/2025", "19,75", "", "boa", "peça única"],
    ["SJ-006", "Sino", "equipamento", "bronze", "1", "15.000", "03/04/2025", "0", "", "boa", ""],
]


def csv_bytes(rows, *, header=HEADER_PT, sep=";", encoding="cp1252", newline="\r\n") -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator=newline, quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode(encoding)


def py(frame: pd.DataFrame, column: str) -> list:
    """A column as Python values (None for null), the way a bulk insert through Arrow sees it."""
    return pa.Table.from_pandas(frame[[column]], preserve_index=False).column(column).to_pylist()


def problems_of(data: bytes, name: str = "itens.csv", **kw) -> list[str]:
    with pytest.raises(InputError) as info:
        parse_items(data, name, today=kw.pop("today", TODAY), **kw)
    return [str(p) for p in info.value.problems]


def paths_of(data: bytes, name: str = "itens.csv", **kw) -> list[str]:
    with pytest.raises(InputError) as info:
        parse_items(data, name, today=kw.pop("today", TODAY), **kw)
    return [p.where for p in info.value.problems]   # the place as printed: 'linha N, coluna X'


@pytest.fixture(params=["openpyxl", "calamine"])
def xlsx_engine(request, monkeypatch):
    """Every XLSX test runs on both readers (python-calamine only where it is installed)."""
    if request.param == "calamine":
        pytest.importorskip("python_calamine")
    monkeypatch.setattr(tabular, "XLSX_ENGINE", request.param)
    return request.param


# -- whole good files ---------------------------------------------------------------------
def test_windows1252_semicolon_decimal_comma_imports_whole():
    data = csv_bytes(ROWS_BR)
    assert "ã".encode("cp1252") in data and "ã".encode() not in data   # really Windows-1252
    result = parse_items(data, "itens.csv", today=TODAY)
    f = result.frame
    assert list(f.columns) == list(COLUMNS)
    assert (result.row_count, result.encoding, result.separator, result.format) == (6, "cp1252", ";", "csv")
    assert result.sha256 == hashlib.sha256(data).hexdigest()
    assert result.file_name == "itens.csv"
    assert result.lines.tolist() == [2, 3, 4, 5, 6, 7]
    assert py(f, "item_code") == [r[0] for r in ROWS_BR]
    assert py(f, "description")[1] == "Canhão de bronze"
    assert f["quantity"].dtype == np.int64 and py(f, "quantity") == [1, 1, 12, 250, 1, 1]
    assert f["weight_g"].dtype == pd.ArrowDtype(pa.decimal128(12, 2))
    assert py(f, "weight_g") == [Decimal("27.07"), Decimal("1234567.89"), None, Decimal("2500"),
                                      Decimal("0"), Decimal("15000")]
    assert f["depth_m"].dtype == pd.ArrowDtype(pa.decimal128(7, 2))
    assert py(f, "depth_m") == [Decimal("23.4"), Decimal("24.5"), None, Decimal("22"), Decimal("19.75"),
                                     Decimal("0")]
    assert py(f, "recovered_on") == [date(2025, 3, 10), date(2025, 3, 11), date(2025, 3, 12),
                                          date(2025, 4, 1), date(2025, 4, 2), date(2025, 4, 3)]
    assert py(f, "lot") == ["L-01", None, None, "L-02", None, None]
    assert py(f, "notes")[1] == "bala alojada; boca obstruída"
    assert result.decimal_convention == "comma"


def test_utf8_with_bom():
    data = csv_bytes(ROWS_BR, encoding="utf-8-sig", newline="\n")
    assert data.startswith(b"\xef\xbb\xbf")
    result = parse_items(data, "itens.csv", today=TODAY)
    assert result.encoding == "utf-8-sig"
    assert py(result.frame, "item_code")[0] == "SJ-001"       # BOM not glued to the first header
    assert py(result.frame, "category")[2] == "louça"


def test_comma_separator_with_decimal_points_and_english_headers():
    header = ["item_code", "description", "category", "material", "quantity", "weight_g", "recovered_on",
              "depth_m", "lot", "condition", "notes"]
    rows = [
        ["A-1", "Silver coin, 8 reales", "coin", "silver", "3", "27.07", "2025-03-10", "23.4", "", "good", ""],
        ["A-2", "Bronze cannon", "weapon", "bronze", "1", "1,234,567.89", "2025-03-11", "", "", "fair", ""],
        ["A-3", "Bell", "equipment", "bronze", "1", "1.25", "11/03/2025", "0.5", "", "good", ""],
    ]
    data = csv_bytes(rows, header=header, sep=",", encoding="utf-8", newline="\n")
    assert b'"1,234,567.89"' in data
    result = parse_items(data, "items.csv", today=TODAY)
    assert (result.separator, result.encoding, result.decimal_convention) == (",", "utf-8", "point")
    assert py(result.frame, "weight_g") == [Decimal("27.07"), Decimal("1234567.89"), Decimal("1.25")]
    assert py(result.frame, "recovered_on") == [date(2025, 3, 10), date(2025, 3, 11), date(2025, 3, 11)]
    assert py(result.frame, "description")[0] == "Silver coin, 8 reales"


def test_ambiguous_1_234_follows_the_file_convention():
    base = ["X", "d", "c", "m", "1", "", "10/03/2025", "", "", "boa", ""]
    one = [[f"C-{i}", *base[1:5], w, *base[6:]] for i, w in enumerate(["1.234"])]
    # Alone in a ';' file: the pt-BR custom, thousands separator.
    assert py(parse_items(csv_bytes(one), "a.csv", today=TODAY).frame, "weight_g") == [Decimal("1234")]
    # Alone in a ',' file: decimal point... which a 2-place column cannot hold.
    assert paths_of(csv_bytes(one, sep=","), "a.csv") == ["linha 2, coluna weight_g"]
    # With an unambiguous decimal comma elsewhere in a ',' file: the file's convention wins.
    two = one + [["C-9", *base[1:5], "12,5", *base[6:]]]
    assert py(parse_items(csv_bytes(two, sep=","), "a.csv", today=TODAY).frame, "weight_g") == \
        [Decimal("1234"), Decimal("12.5")]
    # A file showing both conventions: the ambiguous value is reported, not guessed.
    three = two + [["C-8", *base[1:5], "3.5", *base[6:]]]
    msgs = problems_of(csv_bytes(three), "a.csv")
    assert len(msgs) == 1 and msgs[0].startswith("linha 2, coluna weight_g: número ambíguo")


def test_every_ambiguous_form_is_reported_in_a_file_of_both_conventions():
    base = ["X", "d", "c", "m", "1", "", "10/03/2025", "", "", "boa", ""]
    values = ["1.234", "12,345", "123.456", "-1.234", "1234,567", "1,2345", "12,5", "3.5"]
    rows = [[f"C-{i}", *base[1:5], w, *base[6:]] for i, w in enumerate(values)]
    ambiguous = [m.split(":")[0] for m in problems_of(csv_bytes(rows), "a.csv") if "número ambíguo" in m]
    assert ambiguous == [f"linha {n}, coluna weight_g" for n in (2, 3, 4, 5)]


def test_codes_are_compared_in_nfc_and_kept_as_written_when_ascii():
    rows = [r[:] for r in ROWS_BR]
    rows[0][0] = "\u00c2NC-1"          # Â composed
    rows[3][0] = "A\u0302NC-1"         # the same letter decomposed: the same code
    assert problems_of(csv_bytes(rows, encoding="utf-8")) == [
        'linha 5, coluna item_code: código repetido no arquivo (primeira ocorrência na linha 2) (valor: "\u00c2NC-1")']
    rows[3][0] = "SJ-004"
    assert py(parse_items(csv_bytes(rows, encoding="utf-8"), "i.csv", today=TODAY).frame, "item_code")[:4] == \
        ["\u00c2NC-1", "SJ-002", "SJ-003", "SJ-004"]


def test_xlsx_with_date_and_numeric_cells(xlsx_engine):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Itens"
    ws.append(["codigo", "descricao", "categoria", "material", "quantidade", "peso_g", "data_recuperacao",
               "profundidade_m", "lote", "condicao", "observacoes"])
    ws.append(["X-1", "Moeda", "moeda", "ouro", 2, 6.77, date(2024, 11, 5), 31.5, "L1", "boa", None])
    ws.append([])                                                   # a blank sheet row (3)
    ws.append(["X-2", "Garrafa", "vidro", "vidro", 1, None, datetime(2024, 11, 6, 0, 0), 30, None, "inteira",
               "gargalo\nquebrado"])
    ws.append([1003, "Cachimbo", "objeto pessoal", "argila", 1, "1.234,56", "07/11/2024", None, None, "boa", None])
    ws.append(["X-4", "Prego", "ferragem", "ferro", 40, 0.1 + 0.2, date(2024, 11, 8), 12.25, None, "corroído", None])
    buf = io.BytesIO()
    wb.save(buf)
    data = buf.getvalue()
    result = parse_items(data, "itens.xlsx", today=TODAY)
    f = result.frame
    assert (result.format, result.encoding, result.separator) == ("xlsx", None, None)
    assert result.lines.tolist() == [2, 4, 5, 6]                   # sheet rows, the blank one skipped
    assert py(f, "item_code") == ["X-1", "X-2", "1003", "X-4"]
    assert py(f, "quantity") == [2, 1, 1, 40]
    assert py(f, "recovered_on") == [date(2024, 11, 5), date(2024, 11, 6), date(2024, 11, 7), date(2024, 11, 8)]
    assert py(f, "notes")[1] == "gargalo\nquebrado"
    # a text cell in pt-BR form beside numeric cells; 0.1 + 0.2 without float noise
    assert py(f, "weight_g") == [Decimal("6.77"), None, Decimal("1234.56"), Decimal("0.3")]
    assert py(f, "depth_m") == [Decimal("31.5"), Decimal("30"), None, Decimal("12.25")]


def xlsx_bytes(rows, header=HEADER_PT) -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(header)
    for r in rows:
        ws.append(r)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_xlsx_bad_cells_named_by_sheet_row(xlsx_engine):
    rows = [
        ["X-1", "Moeda", "moeda", "ouro", 2, 6.77, date(2024, 11, 5), 31.5, None, "boa", None],
        ["X-2", "Garrafa", "vidro", "vidro", 0, 1.234, date(2024, 11, 6), 30, None, "inteira", None],
        [],
        ["X-3", "Cachimbo", "objeto", "argila", 1, None, date(2030, 1, 1), None, None, "boa", None],
    ]
    # 1.234 in a numeric cell is 1.234 g (too many places), never 1 234 g.
    assert problems_of(xlsx_bytes(rows), "itens.xlsx") == [
        'linha 3, coluna quantity: deve ser um inteiro maior que zero (valor: "0")',
        'linha 3, coluna weight_g: deve ter no máximo 2 casas decimais (valor: "1.2340")',
        'linha 5, coluna recovered_on: data no futuro (hoje é 30/06/2025) (valor: "2030-01-01")',
    ]


# -- all or nothing ------------------------------------------------------------------------
def test_three_bad_rows_refuse_the_whole_file_naming_each_line():
    rows = [r[:] for r in ROWS_BR]
    rows[1][4] = "0"              # line 3: zero quantity
    rows[3][6] = "31/02/2025"     # line 5: no such day
    rows[5][5] = "-15,00"         # line 7: negative weight
    assert problems_of(csv_bytes(rows)) == [
        'linha 3, coluna quantity: deve ser um inteiro maior que zero (valor: "0")',
        'linha 5, coluna recovered_on: data inexistente (valor: "31/02/2025")',
        'linha 7, coluna weight_g: não pode ser negativo (valor: "-15,00")',
    ]


def test_every_bad_cell_of_a_row_is_reported_once():
    rows = [r[:] for r in ROWS_BR]
    rows[0][1] = ""
    rows[0][4] = "-1"
    rows[0][6] = "amanhã"
    assert paths_of(csv_bytes(rows)) == ["linha 2, coluna description", "linha 2, coluna quantity",
                                         "linha 2, coluna recovered_on"]


BAD_CELLS = [
    # (name, column index, value, path column, message start)
    ("zero quantity", 4, "0", "quantity", "deve ser um inteiro maior que zero"),
    ("negative quantity", 4, "-3", "quantity", "deve ser um inteiro maior que zero"),
    ("fractional quantity", 4, "1,5", "quantity", "deve ser um inteiro maior que zero"),
    ("text quantity", 4, "dois", "quantity", "deve ser um inteiro maior que zero"),
    ("empty quantity", 4, "", "quantity", "campo obrigatório vazio"),
    ("huge quantity", 4, "3000000000", "quantity", "valor grande demais"),
    ("negative weight", 5, "-0,01", "weight_g", "não pode ser negativo"),
    ("text weight", 5, "12 g", "weight_g", "deve ser um número"),
    ("three places weight", 5, "12,345", "weight_g", "deve ter no máximo 2 casas decimais"),
    ("too large weight", 5, "12345678901", "weight_g", "valor grande demais"),
    ("bad thousands grouping", 5, "1.23,4", "weight_g", "deve ser um número"),
    ("negative depth", 7, "-5", "depth_m", "não pode ser negativo"),
    ("too deep", 7, "100000", "depth_m", "valor grande demais"),
    ("impossible date", 6, "31/02/2025", "recovered_on", "data inexistente"),
    ("not a leap year", 6, "29/02/2025", "recovered_on", "data inexistente"),
    ("month 13", 6, "2025-13-01", "recovered_on", "data inexistente"),
    ("future date", 6, "01/07/2025", "recovered_on", "data no futuro"),
    ("two-digit year", 6, "10/03/25", "recovered_on", "deve ser uma data"),
    ("year first with slashes", 6, "2025/03/10", "recovered_on", "deve ser uma data"),
    ("empty date", 6, "", "recovered_on", "campo obrigatório vazio"),
    ("empty code", 0, "", "item_code", "campo obrigatório vazio"),
    ("empty category", 2, "  ", "category", "campo obrigatório vazio"),
    ("empty material", 3, "", "material", "campo obrigatório vazio"),
    ("empty condition", 9, "", "condition", "campo obrigatório vazio"),
]


@pytest.mark.parametrize("name,index,value,column,message", BAD_CELLS, ids=[c[0] for c in BAD_CELLS])
def test_bad_cell(name, index, value, column, message):
    rows = [r[:] for r in ROWS_BR]
    rows[2][index] = value                   # the third data row: line 4
    found = problems_of(csv_bytes(rows))
    assert len(found) == 1, found
    assert found[0].startswith(f"linha 4, coluna {column}: {message}")
    if value.strip():
        assert found[0].endswith(f'(valor: "{value}")')


GOOD_CELLS = [
    ("leap day", 6, "29/02/2024", "recovered_on", date(2024, 2, 29)),
    ("today", 6, "30/06/2025", "recovered_on", TODAY),
    ("dashes", 6, "30-06-2025", "recovered_on", TODAY),
    ("with time", 6, "2025-06-30 00:00:00", "recovered_on", TODAY),
    ("zero weight", 5, "0,00", "weight_g", Decimal("0")),
    ("trailing zeros", 5, "1,500", "weight_g", Decimal("1.5")),
    ("no integer part", 5, ",5", "weight_g", Decimal("0.5")),
    ("thousands only", 4, "1.000", "quantity", 1000),
]


@pytest.mark.parametrize("name,index,value,column,expected", GOOD_CELLS, ids=[c[0] for c in GOOD_CELLS])
def test_good_cell(name, index, value, column, expected):
    rows = [r[:] for r in ROWS_BR]
    rows[2][index] = value
    result = parse_items(csv_bytes(rows), "itens.csv", today=TODAY)
    assert py(result.frame, column)[2] == expected


def test_duplicates_within_the_file_and_against_the_contract():
    rows = [r[:] for r in ROWS_BR]
    rows[2][0] = "SJ-001"        # line 4 repeats line 2
    rows[5][0] = " SJ-001 "      # line 7 too (codes are trimmed)
    rows[4][0] = "ANT-9"         # line 6: already in the contract
    assert problems_of(csv_bytes(rows), existing_codes={"ANT-9", "ANT-10"}) == [
        'linha 4, coluna item_code: código repetido no arquivo (primeira ocorrência na linha 2) (valor: "SJ-001")',
        'linha 6, coluna item_code: código já cadastrado neste contrato (valor: "ANT-9")',
        'linha 7, coluna item_code: código repetido no arquivo (primeira ocorrência na linha 2) (valor: "SJ-001")',
    ]
    # Codes are compared exactly, as the store's UNIQUE constraint does.
    rows = [r[:] for r in ROWS_BR]
    rows[2][0] = "sj-001"
    assert parse_items(csv_bytes(rows), "i.csv", today=TODAY, existing_codes=["SJ-999"]).row_count == 6


def test_a_repeat_in_a_file_sorted_by_code_is_found():
    # The codes in order but for one repeat (not strictly increasing): the check that spares a sorted
    # file the hashing of its codes must not spare it this.
    rows = [r[:] for r in ROWS_BR]
    rows[3][0] = "SJ-003"        # line 5 repeats line 4; the column stays in ascending order
    assert problems_of(csv_bytes(rows)) == [
        'linha 5, coluna item_code: código repetido no arquivo (primeira ocorrência na linha 4) (valor: "SJ-003")']
    rows = [r[:] for r in ROWS_BR]
    assert parse_items(csv_bytes(rows), "i.csv", today=TODAY).row_count == 6      # strictly increasing: all new
    # A numbered list past a power of ten (SJ-9, SJ-10: longer, hence later) with one repeat.
    for row, code in zip(rows, ["SJ-8", "SJ-9", "SJ-10", "SJ-10", "SJ-11", "SJ-100"]):
        row[0] = code
    assert problems_of(csv_bytes(rows)) == [
        'linha 5, coluna item_code: código repetido no arquivo (primeira ocorrência na linha 4) (valor: "SJ-10")']
    rows[3][0] = "SJ-10a"
    assert parse_items(csv_bytes(rows), "i.csv", today=TODAY).row_count == 6


def test_missing_required_columns_are_named():
    header = [h for h in HEADER_PT if h not in ("Quantidade", "Condição")]
    rows = [[v for i, v in enumerate(r) if i not in (4, 9)] for r in ROWS_BR]
    found = problems_of(csv_bytes(rows, header=header))
    assert len(found) == 2
    assert found[0].startswith('linha 1: coluna obrigatória ausente: "quantity"') and "quantidade" in found[0]
    assert found[1].startswith('linha 1: coluna obrigatória ausente: "condition"')


def test_optional_columns_may_be_absent_and_unknown_ones_are_ignored():
    keep = [0, 1, 2, 3, 4, 6, 9]
    header = [HEADER_PT[i] for i in keep] + ["Valor estimado (R$)"]
    rows = [[r[i] for i in keep] + ["1.000,00"] for r in ROWS_BR]
    result = parse_items(csv_bytes(rows, header=header), "i.csv", today=TODAY)
    assert result.ignored_columns == ("Valor estimado (R$)",)
    assert result.frame["weight_g"].isna().all() and result.frame["notes"].isna().all()
    assert list(result.frame.columns) == list(COLUMNS)


def test_two_columns_for_one_field_are_refused():
    header = HEADER_PT + ["item_code"]
    rows = [r + ["Z"] for r in ROWS_BR]
    found = problems_of(csv_bytes(rows, header=header))
    assert found == ['linha 1: as colunas "Código do item" e "item_code" indicam o mesmo campo (item_code)']


def test_data_beyond_the_header_is_an_error_but_trailing_empty_fields_are_not():
    lines = csv_bytes(ROWS_BR).split(b"\r\n")
    lines[1] += b";;;"                                  # Excel's trailing separators: fine
    lines[4] += b";extra"                               # line 5 carries a 12th value
    found = problems_of(b"\r\n".join(lines))
    assert found == ['linha 5, coluna 12 (sem nome no cabeçalho): valor numa coluna sem nome no cabeçalho '
                     '(separador dentro de um campo sem aspas?) (valor: "extra")']


# -- quoting and line numbers ---------------------------------------------------------------
def test_quoted_separators_and_newlines_keep_line_numbers_right():
    rows = [r[:] for r in ROWS_BR]
    rows[0][10] = 'linha um\r\nlinha dois; com ponto e vírgula\r\n"citação"'   # record at line 2 spans 3 lines
    rows[1][1] = "Canhão;\nde bronze"                                         # record at line 5 spans 2 lines
    rows[3][4] = "0"                                                          # → line 8
    rows[4][10] = "nota\n\nem branco"                                         # record at line 9 spans 3 lines
    rows[4][6] = "32/01/2025"                                                 # bad, reported at its start: 9
    rows[5][5] = "-1"                                                         # → line 12
    data = csv_bytes(rows)
    assert problems_of(data) == [
        'linha 8, coluna quantity: deve ser um inteiro maior que zero (valor: "0")',
        'linha 9, coluna recovered_on: data inexistente (valor: "32/01/2025")',
        'linha 12, coluna weight_g: não pode ser negativo (valor: "-1")',
    ]
    rows[3][4], rows[4][6], rows[5][5] = "1", "01/01/2025", "1"
    result = parse_items(csv_bytes(rows), "i.csv", today=TODAY)
    assert result.lines.tolist() == [2, 5, 7, 8, 9, 12]
    assert py(result.frame, "notes")[0] == 'linha um\nlinha dois; com ponto e vírgula\n"citação"'
    assert py(result.frame, "description")[1] == "Canhão;\nde bronze"


def test_blank_lines_and_excel_sep_hint_count_as_lines():
    body = csv_bytes(ROWS_BR, newline="\n").decode("cp1252").split("\n")
    body.insert(3, "")               # a blank line after the 2nd data row
    body.insert(5, ";;;;;;;;;;")     # an all-empty row (Excel leaves these)
    text = "sep=;\n" + "\n".join(body)
    lines = text.split("\n")
    bad_at = next(i for i, text_line in enumerate(lines, start=1) if text_line.startswith("SJ-004"))
    text = text.replace("SJ-004;Moedas de cobre;moeda;cobre;250", "SJ-004;Moedas de cobre;moeda;cobre;0")
    assert paths_of(text.encode("cp1252")) == [f"linha {bad_at}, coluna quantity"]
    assert bad_at == 8


# -- unusable files ----------------------------------------------------------------------------
UNUSABLE = [
    ("empty", b"", "itens.csv", "o arquivo está vazio"),
    ("blank", b"\r\n \r\n", "itens.csv", "o arquivo está vazio"),
    ("header only", ";".join(HEADER_PT).encode("cp1252") + b"\r\n", "itens.csv", "o arquivo não tem linhas de dados"),
    ("not text", b"\x81\x8d\x8f\x90\x9d;a\n", "itens.csv", "não foi possível ler o texto"),
    ("binary", b"item_code\x00;x\n", "itens.csv", "o arquivo não é texto"),
    ("png", b"\x89PNG\r\n\x1a\n....", "foto.png", "formato .png não é aceito"),
    ("json", b'{"items": []}', "itens.json", "formato .json não é aceito"),
    ("xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "itens.xls", "formato .xls"),
    ("fake xlsx", b"codigo;descricao\n", "itens.xlsx", "o arquivo .xlsx está corrompido"),
    ("pdf", b"%PDF-1.7 ...", "itens.pdf", "arquivos PDF não são aceitos"),
    ("broken zip", b"PK\x03\x04garbage", "itens.xlsx", "não foi possível ler o arquivo"),
]


@pytest.mark.parametrize("name,data,file_name,message", UNUSABLE, ids=[c[0] for c in UNUSABLE])
def test_unusable_file_gets_one_clear_message(name, data, file_name, message):
    found = problems_of(data, file_name)
    assert len(found) == 1 and message in found[0], found


def test_zip_that_is_not_a_workbook():
    buf = io.BytesIO()
    import zipfile
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/document.xml", "<x/>")
    assert "não contém uma planilha XLSX" in problems_of(buf.getvalue(), "itens.xlsx")[0]


def test_xlsx_content_wins_over_a_csv_name(xlsx_engine):
    rows = [["X-1", "Moeda", "moeda", "ouro", 2, 6.77, date(2024, 11, 5), 31.5, None, "boa", None]]
    assert parse_items(xlsx_bytes(rows), "itens.csv", today=TODAY).format == "xlsx"


# -- the cap and the scale ---------------------------------------------------------------------
def test_problem_list_is_capped_but_counts_everything():
    rows = [[f"Q-{i}", "d", "c", "m", "0", "", "10/03/2025", "", "", "boa", ""] for i in range(1_500)]
    with pytest.raises(InputError) as info:
        parse_items(csv_bytes(rows), "i.csv", today=TODAY)
    problems = info.value.problems
    assert len(problems) == MAX_PROBLEMS + 1
    assert (problems[0].line, problems[0].column, problems[0].path) == (2, "quantity", "quantity")
    assert str(problems[0]).startswith("linha 2, coluna quantity: ")
    assert problems[MAX_PROBLEMS - 1].where == f"linha {MAX_PROBLEMS + 1}, coluna quantity"
    assert problems[-1].where == "" and problems[-1].message == "… e mais 500 problemas"


@pytest.mark.slow
def test_100k_rows_parse_fast_with_progress():
    n = 100_000
    rows = [[f"M-{i:06d}", f"Moeda nº {i}", "moeda", "prata", str(1 + i % 7), f"{i % 5000},{i % 100:02d}",
             f"{1 + i % 28:02d}/{1 + i % 12:02d}/2024", f"{i % 90},5", f"L{i // 100}", "boa",
             f'obs "{i}"\nsegunda linha' if i % 1000 == 0 else ""] for i in range(n)]
    data = csv_bytes(rows)
    seen: list[tuple[float, str]] = []
    result = parse_items(data, "grande.csv", today=TODAY, existing_codes=[f"OLD-{i}" for i in range(50_000)],
                         progress=lambda f, m: seen.append((f, m)))
    assert result.row_count == n
    assert result.lines[-1] == 1 + n + n // 1000          # 100 records span two lines each
    assert py(result.frame, "weight_g")[4_999] == Decimal("4999.99")
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) >= 3


# -- property: bad rows anywhere are each reported, good rows never -------------------------------
_TEXT_CHARS = st.sampled_from(list("abcçãéõ XYZ019;,\"\n-'"))
_text = st.text(_TEXT_CHARS, min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def _good_row(draw, i: int):
    weight = draw(st.one_of(st.none(), st.decimals(min_value=0, max_value=Decimal("99999999.99"), places=2)))
    depth = draw(st.one_of(st.none(), st.decimals(min_value=0, max_value=Decimal("11000"), places=2)))
    return {
        "item_code": f"G-{i}", "description": draw(_text), "category": draw(st.sampled_from(["moeda", "louça"])),
        "material": draw(_text), "quantity": draw(st.integers(1, 999)), "weight_g": weight,
        "recovered_on": draw(st.dates(min_value=date(1990, 1, 1), max_value=TODAY)), "depth_m": depth,
        "lot": draw(st.one_of(st.just(""), _text)), "condition": draw(_text),
        "notes": draw(st.one_of(st.just(""), _text)),
    }


_BAD_KINDS = [("quantity", "0"), ("quantity", "-4"), ("quantity", "2,5"), ("quantity", "x"), ("weight_g", "-1"),
              ("weight_g", "abc"), ("depth_m", "-0,5"), ("recovered_on", "31/04/2024"),
              ("recovered_on", "2030-01-01"), ("recovered_on", "ontem"), ("description", ""), ("condition", ""),
              ("item_code", "EXISTING")]


def _render(row: dict, convention: str, iso_dates: bool) -> list[str]:
    def num(d):
        if d is None:
            return ""
        whole, frac = f"{d:.2f}".split(".")
        grouped = f"{int(whole):,}"
        return grouped.replace(",", ".") + "," + frac if convention == "comma" else grouped + "." + frac
    out = []
    for c in COLUMNS:
        v = row[c]
        if c in ("weight_g", "depth_m") and not isinstance(v, str):
            v = num(v)
        elif c == "recovered_on" and isinstance(v, date):
            v = v.isoformat() if iso_dates else v.strftime("%d/%m/%Y")
        out.append(str(v))
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bad_rows_anywhere_are_each_reported_and_good_rows_never(data):
    n_good = data.draw(st.integers(1, 25))
    good = [data.draw(_good_row(i)) for i in range(n_good)]
    sep = data.draw(st.sampled_from([";", ","]))
    convention = data.draw(st.sampled_from(["comma", "point"]))
    encoding = data.draw(st.sampled_from(["utf-8", "utf-8-sig", "cp1252"]))
    iso = data.draw(st.booleans())
    blanks = data.draw(st.lists(st.booleans(), min_size=n_good, max_size=n_good))

    def build(records):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter=sep, lineterminator="\r\n")
        writer.writerow(COLUMNS)
        starts = []
        for rec, blank_after in records:
            starts.append(buf.getvalue().count("\n") + 1)
            writer.writerow(rec)
            if blank_after:
                buf.write("\r\n")
        return buf.getvalue().encode(encoding), starts

    good_records = [(_render(r, convention, iso), b) for r, b in zip(good, blanks)]
    payload, _ = build(good_records)
    result = parse_items(payload, "p.csv", today=TODAY, existing_codes=["EXISTING"])
    assert py(result.frame, "item_code") == [r["item_code"] for r in good]
    assert py(result.frame, "quantity") == [r["quantity"] for r in good]
    assert py(result.frame, "weight_g") == [r["weight_g"] for r in good]
    assert py(result.frame, "recovered_on") == [r["recovered_on"] for r in good]
    assert py(result.frame, "description") == [r["description"].replace("\r", "\n") for r in good]

    n_bad = data.draw(st.integers(1, 6))
    records = [(rec, blank, False) for rec, blank in good_records]
    for j in range(n_bad):
        base = data.draw(_good_row(1000 + j))
        column, value = data.draw(st.sampled_from(_BAD_KINDS))
        base[column] = value
        pos = data.draw(st.integers(0, len(records)))
        records.insert(pos, (_render(base, convention, iso), False, True))
    payload, starts = build([(rec, blank) for rec, blank, _ in records])
    expected = [starts[k] for k, (_, _, bad) in enumerate(records) if bad]
    with pytest.raises(InputError) as info:
        parse_items(payload, "p.csv", today=TODAY, existing_codes=["EXISTING"])
    reported = [p.line for p in info.value.problems]
    assert reported == expected


# -- the generic helpers -------------------------------------------------------------------------
@pytest.mark.parametrize("raw,convention,expected", [
    ("1.234,56", "comma", Decimal("1234.56")), ("1,234.56", "comma", Decimal("1234.56")),
    ("1234,5", "point", Decimal("1234.5")), ("1234.5", "comma", Decimal("1234.5")),
    ("1.234", "comma", Decimal("1234")), ("1.234", "point", Decimal("1.234")), ("1,234", "point", Decimal("1234")),
    ("-0,75", "comma", Decimal("-0.75")), ("007", "comma", Decimal("7")), ("1.234.567", "comma", Decimal("1234567")),
])
def test_parse_decimal_reads(raw, convention, expected):
    col = parse_decimal([raw], convention=convention, precision=20, scale=3)
    assert col.ok.tolist() == [True] and col.values.to_pylist() == [expected]


@pytest.mark.parametrize("raw,flag", [
    ("", "blank"), ("1.2.3", "invalid"), ("1,234.567,8", "invalid"), ("12a", "invalid"), ("1e3", "invalid"),
    ("1.234", "ambiguous"), ("0,0001", "too_precise"), ("123456789012345678", "too_large"), ("--1", "invalid"),
])
def test_parse_decimal_flags(raw, flag):
    col = parse_decimal([raw], convention=None, precision=20, scale=3)
    assert getattr(col, flag).tolist() == [True]
    assert col.ok.tolist() == [False] and col.values.to_pylist() == [None]


def test_decimal_convention_from_the_evidence():
    assert decimal_convention([pd.Series(["1.234", "12,5"])], default="point") == "comma"
    assert decimal_convention([pd.Series(["1.234"]), pd.Series(["3.25"])], default="comma") == "point"
    assert decimal_convention([pd.Series(["1.234", "7"])], default="comma") == "comma"
    assert decimal_convention([pd.Series(["12,5", "3.25"])], default="comma") is None


def test_parse_dates_table():
    col = parse_dates(["10/03/2025", "1/2/2024", "2025-03-10", "2025-3-1T08:30", "10.03.2025", "31/02/2025",
                       "00/01/2025", "2025-02-30", "10/03/25", "", "março"])
    assert col.values.to_pylist() == [date(2025, 3, 10), date(2024, 2, 1), date(2025, 3, 10), date(2025, 3, 1),
                                      date(2025, 3, 10), None, None, None, None, None, None]
    assert col.impossible.tolist() == [False] * 5 + [True, True, True, False, False, False]
    assert col.invalid.tolist() == [False] * 8 + [True, False, True]
    assert col.blank.tolist() == [False] * 9 + [True, False]


@pytest.mark.parametrize("name,key", [
    ("Código do item", "codigo_do_item"), ("  DESCRIÇÃO ", "descricao"), ("Peso (g)", "peso_g"),
    ("Data de Recuperação", "data_de_recuperacao"), ("Observações", "observacoes"), ("item code", "item_code"),
])
def test_normalise_header(name, key):
    assert normalise_header(name) == key


@pytest.mark.parametrize("line,sep", [
    ("a;b;c", ";"), ("a,b,c", ","), ("a\tb\tc", "\t"), ('"a,b";c', ";"), ("a;b,c", ";"), ("abc", ";"),
])
def test_sniff_separator(line, sep):
    assert sniff_separator(line) == sep


def test_read_table_gives_trimmed_strings_indexed_by_line():
    data = "x;y\n  a ;\"b\nc\"\n\n d;e\n".encode("utf-16")
    df, meta = read_table(data, "t.txt")
    assert (meta.encoding, meta.separator, meta.header, meta.header_line, meta.blank_rows) == \
        ("utf-16", ";", ("x", "y"), 1, 1)
    assert df.index.tolist() == [2, 5]
    assert df.to_dict("list") == {"x": ["a", "d"], "y": ["b\nc", "e"]}


def test_unclosed_quote_names_the_line_where_it_opens():
    rows = [r[:] for r in ROWS_BR]
    data = csv_bytes(rows).replace(b"SJ-004;Moedas", b'SJ-004;"Moedas', 1)   # line 5, never closed
    assert problems_of(data) == ['linha 5: aspas (") mal colocadas ou não fechadas a partir desta linha']


def test_leading_empty_lines_move_the_header_and_keep_physical_line_numbers():
    data = b";;;;;;;;;;\r\n\r\n" + csv_bytes(ROWS_BR)
    df, meta = read_table(data, "itens.csv")
    assert meta.header_line == 3 and meta.header[0] == "Código do item"
    assert df.index.tolist() == [4, 5, 6, 7, 8, 9]
    rows = [r[:] for r in ROWS_BR]
    rows[0][4] = "0"
    assert paths_of(b";;;;;;;;;;\r\n\r\n" + csv_bytes(rows)) == ["linha 4, coluna quantity"]


@pytest.mark.parametrize("rows,message", [
    ([], 'a primeira aba da planilha ("Sheet") está vazia'),
    ([HEADER_PT], "o arquivo não tem linhas de dados"),
])
def test_empty_xlsx(rows, message, xlsx_engine):
    wb = openpyxl.Workbook()
    for r in rows:
        wb.active.append(r)
    buf = io.BytesIO()
    wb.save(buf)
    found = problems_of(buf.getvalue(), "itens.xlsx")
    assert len(found) == 1 and message in found[0]


def test_xlsx_reads_the_first_visible_sheet(xlsx_engine):
    wb = openpyxl.Workbook()
    hidden = wb.active
    hidden.title = "rascunho"
    hidden.append(["lixo"])
    hidden.sheet_state = "hidden"
    ws = wb.create_sheet("Itens")
    ws.append(HEADER_PT)
    ws.append(["X-1", "Moeda", "moeda", "ouro", 2, 6.77, date(2024, 11, 5), None, None, "boa", None])
    buf = io.BytesIO()
    wb.save(buf)
    df, meta = read_table(buf.getvalue(), "itens.xlsx")
    assert (meta.sheet, meta.format, df.index.tolist()) == ("Itens", "xlsx", [2])
    assert df.iloc[0].tolist() == ["X-1", "Moeda", "moeda", "ouro", "2", "6.77", "2024-11-05", "", "", "boa", ""]


@pytest.mark.parametrize("value,text", [
    (3.0, "3"), (12.5, "12.5"), (0.1 + 0.2, "0.3"), (1.234, "1.2340"), (1e16, "10000000000000000"),
    (-2.0, "-2"), (7, "7"), (None, ""), ("  a ", "a"), (date(2024, 1, 2), "2024-01-02"),
    (datetime(2024, 1, 2), "2024-01-02"), (datetime(2024, 1, 2, 10, 30), "2024-01-02 10:30:00"),
])
def test_cell_text(value, text):
    assert tabular.cell_text(value) == text


def test_corrupt_workbook_gets_one_clear_message(xlsx_engine):
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook><sheets><sheet")
    found = problems_of(buf.getvalue(), "itens.xlsx")
    assert len(found) == 1 and found[0].startswith("não foi possível ler a planilha XLSX"), found


def test_the_pt_br_aliases_of_the_issue_are_accepted():
    header = ["CODIGO", "descricao", "Categoria", "material", "quantidade", "peso_g", "data_recuperacao",
              "profundidade_m", "lote", "condicao", "observacoes"]
    result = parse_items(csv_bytes(ROWS_BR, header=header), "itens.csv", today=TODAY)
    assert result.row_count == len(ROWS_BR) and result.ignored_columns == ()
    assert py(result.frame, "lot")[0] == "L-01" and py(result.frame, "depth_m")[0] == Decimal("23.4")
