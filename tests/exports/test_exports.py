"""Exports: files are read back with independent readers (pandas, openpyxl, pypdf,
a small RFC 5545 unfolder written here) and checked for what a user would see."""
from __future__ import annotations

import csv
import io
import re
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

import duckdb
import openpyxl
import pandas as pd
import pypdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valuation.exports import (
    DATE_FORMAT,
    MONEY_FORMAT,
    CalendarEvent,
    PdfReport,
    neutralise_cell,
    to_csv_bytes,
    to_ics,
    to_xlsx_bytes,
)

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

# --------------------------------------------------------------------- neutralise


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("+55 21 9999", "'+55 21 9999"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("@SUM(A1:A9)", "'@SUM(A1:A9)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("\x00=HYPERLINK(1)", "'=HYPERLINK(1)"),
        ("\x00abc", "'abc"),
        ("  =1+1", "'  =1+1"),
        ("a\x00b", "ab"),
        ("Âncora de bronze", "Âncora de bronze"),
        ("1+1=2", "1+1=2"),
        ("e-mail: a@b", "e-mail: a@b"),
        ("", ""),
    ],
)
def test_neutralise_text(value: str, expected: str) -> None:
    assert neutralise_cell(value) == expected


@pytest.mark.parametrize(
    "value",
    [Decimal("-5.00"), -3, -2.5, 0, date(2024, 1, 31), datetime(2024, 1, 31, 10, 0), True, None],
)
def test_neutralise_leaves_non_text_alone(value: object) -> None:
    result = neutralise_cell(value)
    assert result is value


@given(st.text())
def test_neutralised_text_never_starts_a_formula(text: str) -> None:
    result = neutralise_cell(text)
    assert isinstance(result, str)
    assert "\x00" not in result
    assert not result.lstrip(" ").startswith(TRIGGERS)
    # nothing but the quote and the NULs is changed
    assert result.removeprefix("'") == text.replace("\x00", "") or result == text.replace("\x00", "")


# ------------------------------------------------------------------------------ CSV


def _read_csv(data: bytes, **kwargs: object) -> pd.DataFrame:
    assert data.startswith(b"\xef\xbb\xbf"), "UTF-8 BOM for Excel"
    return pd.read_csv(io.BytesIO(data), sep=";", decimal=",", encoding="utf-8-sig", **kwargs)


def test_csv_reads_back_with_semicolon_and_decimal_comma() -> None:
    rows = [
        ("=1+1", Decimal("1234.56"), Decimal("-5.25"), date(2024, 1, 31), "Ação; com “aspas”\nem duas linhas"),
        ("@cmd", Decimal("0.10"), -7, date(2023, 12, 1), 'diz "olá"'),
    ]
    data = to_csv_bytes(rows, ["Descrição", "Valor", "Ajuste", "Data", "Obs"])
    frame = _read_csv(data)
    assert list(frame.columns) == ["Descrição", "Valor", "Ajuste", "Data", "Obs"]
    assert frame["Descrição"].tolist() == ["'=1+1", "'@cmd"]
    assert frame["Valor"].tolist() == [1234.56, 0.10]
    assert pd.api.types.is_numeric_dtype(frame["Ajuste"]), "a negative number stays a number"
    assert frame["Ajuste"].tolist() == [-5.25, -7]
    assert frame["Data"].tolist() == ["31/01/2024", "01/12/2023"]
    assert frame["Obs"].tolist() == ["Ação; com “aspas”\nem duas linhas", 'diz "olá"']
    assert b"\r\n" in data and data.count(b"\r\n") == 3  # header + 2 records (inner \n is quoted)


def test_csv_decimals_are_exact_text() -> None:
    amounts = [Decimal("12345678901234.56"), Decimal("0.01"), Decimal("-0.30"), Decimal("1.234567")]
    data = to_csv_bytes([(a,) for a in amounts], ["v"])
    frame = _read_csv(data, dtype=str)
    assert frame["v"].tolist() == ["12345678901234,56", "0,01", "-0,30", "1,234567"]


def test_csv_from_dataframe_of_duckdb_results() -> None:
    con = duckdb.connect()
    sql = (
        "select * from (values (1, 1500.00::DECIMAL(18,2), DATE '2024-02-29', '-1', true),"
        " (2, NULL, NULL, '+x', false)) t(id, valor, prazo, nota, ativo)"
    )
    exact = con.sql(sql).to_arrow_table().to_pandas(types_mapper=pd.ArrowDtype)
    loose = con.sql(sql).df()  # DECIMAL as float, DATE as midnight timestamps
    for frame in (exact, loose):
        text = to_csv_bytes(frame, ["nota", "valor", "prazo", "ativo"]).decode("utf-8-sig")
        records = list(csv.reader(io.StringIO(text), delimiter=";"))
        assert records == [
            ["nota", "valor", "prazo", "ativo"],
            ["'-1", records[1][1], "29/02/2024", "Sim"],
            ["'+x", "", "", "Não"],
        ]
        assert Decimal(records[1][1].replace(",", ".")) == Decimal("1500")


def test_csv_rows_of_mappings_and_other_separators() -> None:
    data = to_csv_bytes([{"a": Decimal("1.5"), "b": "x"}, {"a": None, "b": "=y"}], sep=",", decimal=".")
    assert data.decode("utf-8-sig") == "a,b\r\n1.5,x\r\n,'=y\r\n"


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (([(1, 2), (3,)], ["a", "b"]), {}),
        (([(1,)], ["a"]), {"sep": ",", "decimal": ","}),
        (([(1,)], ["a"]), {"sep": ";;"}),
    ],
)
def test_csv_rejects_bad_shapes(args: tuple, kwargs: dict) -> None:
    with pytest.raises(ValueError):
        to_csv_bytes(*args, **kwargs)


# ----------------------------------------------------------------------------- XLSX


def _workbook(data: bytes) -> openpyxl.Workbook:
    assert data[:2] == b"PK", "an xlsx is a zip file"
    return openpyxl.load_workbook(io.BytesIO(data))


def _money_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "Descrição": ["=1+1", "-cmd", "Âncora"],
            "Valor": [Decimal("1234.56"), Decimal("-5.25"), Decimal("0.10")],
            "Quantidade": [-3, 2, 1],
            "Data": [date(2024, 1, 31), date(2024, 2, 29), None],
            "Registro": [datetime(2024, 1, 2, 3, 4), None, datetime(2024, 1, 3, 15, 30)],
        }
    )


def test_xlsx_cells_keep_their_types_and_text_is_neutralised() -> None:
    ws = _workbook(to_xlsx_bytes({"Itens": _money_frame()}))["Itens"]
    header = [c.value for c in ws[1]]
    assert header == ["Descrição", "Valor", "Quantidade", "Data", "Registro"]
    assert all(c.font.b for c in ws[1]), "header row is bold"
    assert ws.freeze_panes == "A2"

    formula_text = ws["A2"]
    assert formula_text.data_type == "s" and formula_text.value == "'=1+1"
    assert ws["A3"].value == "'-cmd" and ws["A4"].value == "Âncora"

    money, negative = ws["B2"], ws["B3"]
    assert money.data_type == "n" and money.value == 1234.56
    assert money.number_format == MONEY_FORMAT and "#,##0.00" in money.number_format
    assert negative.data_type == "n" and negative.value == -5.25
    assert ws["C2"].data_type == "n" and ws["C2"].value == -3, "a negative int stays a number"
    assert ws["C2"].number_format == "General"

    day = ws["D2"]
    assert day.is_date and day.value.date() == date(2024, 1, 31) and day.number_format == DATE_FORMAT
    assert ws["D4"].value is None
    stamp = ws["E4"]
    assert stamp.is_date and stamp.value == datetime(2024, 1, 3, 15, 30)
    assert "hh:mm" in stamp.number_format


def test_xlsx_column_widths_follow_content() -> None:
    frame = pd.DataFrame({"id": [1, 2], "Descrição": ["curta", "uma descrição bem mais comprida " * 2]})
    ws = _workbook(to_xlsx_bytes({"S": frame}))["S"]
    assert ws.column_dimensions["B"].width > ws.column_dimensions["A"].width + 20
    assert ws.column_dimensions["B"].width <= 62


decimal_amounts = st.decimals(
    min_value=Decimal("-9999999999999.99"), max_value=Decimal("9999999999999.99"), places=2,
    allow_nan=False, allow_infinity=False,
)


@settings(max_examples=15, deadline=None)
@given(st.lists(decimal_amounts, min_size=1, max_size=40))
def test_xlsx_money_reads_back_to_the_same_cents(amounts: list[Decimal]) -> None:
    ws = _workbook(to_xlsx_bytes({"M": pd.DataFrame({"v": amounts})}))["M"]
    for row, amount in enumerate(amounts, start=2):
        cell = ws.cell(row, 1)
        assert cell.data_type == "n"
        assert Decimal(repr(cell.value)).quantize(Decimal("0.01")) == amount


def test_xlsx_money_beyond_double_precision_is_exact_text() -> None:
    huge = Decimal("1234567890123456.78")  # 18 significant digits: DECIMAL(18,2) allows it
    ws = _workbook(to_xlsx_bytes({"M": pd.DataFrame({"v": [huge, Decimal("1.005")]})}))["M"]
    assert ws["A2"].data_type == "s" and ws["A2"].value == "R$ 1.234.567.890.123.456,78"
    assert ws["A3"].value == 1.01, "money is rounded once to the cent, half-up"


def test_xlsx_from_duckdb_frames_and_explicit_columns() -> None:
    con = duckdb.connect()
    sql = "select 1234.56::DECIMAL(18,2) valor, 0.400000::DECIMAL(18,6) taxa, DATE '2024-01-31' prazo"
    exact = con.sql(sql).to_arrow_table().to_pandas(types_mapper=pd.ArrowDtype)
    loose = con.sql(sql).df()
    wb = _workbook(
        to_xlsx_bytes(
            {"exata": exact, "float": loose},
            money_columns={"float": ["valor"], "exata": ["valor"]},
        )
    )
    for name in ("exata", "float"):
        ws = wb[name]
        assert ws["A2"].value == 1234.56 and ws["A2"].number_format == MONEY_FORMAT
        assert ws["B2"].value == 0.4 and ws["B2"].number_format == "General"
        assert ws["C2"].is_date and ws["C2"].number_format == DATE_FORMAT


def test_xlsx_sheet_names_are_valid_and_unique() -> None:
    frame = pd.DataFrame({"a": [1]})
    wb = _workbook(to_xlsx_bytes({"Itens": frame, "itens": frame, "a/b:c?" * 10: frame, "": frame}))
    names = wb.sheetnames
    assert names[0] == "Itens" and names[1] != "Itens" and names[1].casefold() != "itens"
    assert all(len(n) <= 31 and not set(n) & set("[]:*?/\\") for n in names)
    assert len({n.casefold() for n in names}) == 4


def test_xlsx_empty_frame_and_no_sheets() -> None:
    ws = _workbook(to_xlsx_bytes({"Vazia": pd.DataFrame({"a": [], "b": []})}))["Vazia"]
    assert [c.value for c in ws[1]] == ["a", "b"] and ws.max_row == 1
    with pytest.raises(ValueError):
        to_xlsx_bytes({})


# ------------------------------------------------------------------------------ PDF

ACCENTED = "Ação, coração, pão, ênfase, Lei nº 7.542, 2ª via, § 3º, € 10 — “aspas” – fim"
GENERATED = datetime(2024, 5, 6, 14, 5)


def _pages(data: bytes) -> list[str]:
    assert data.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(data))
    return [page.extract_text() for page in reader.pages]


def _compact(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def long_report() -> tuple[bytes, int]:
    rows = [
        (i, f"Ânfora de cerâmica nº {i}", date(2024, 1, 1) + timedelta(days=i), Decimal(i * 1000) + Decimal("0.55"))
        for i in range(1, 121)
    ]
    report = PdfReport("Ata da Comissão de Avaliação", "Contrato 12/2024", generated_at=GENERATED)
    report.heading("1. Identificação")
    report.key_values([("Contrato", "12/2024"), ("Data da sessão", date(2024, 3, 30)), ("Valor", Decimal("98765.4"))])
    report.paragraph(ACCENTED)
    report.paragraph("<b>x</b> **x** __y__ {nb} `z`\tcom tab\x00\x07 fim a\x7fN\x7fb")
    report.table(["Item", "Descrição", "Prazo", "Valor"], rows, col_widths=[1, 5, 2, 2])
    report.totals([("Total avaliado", Decimal("123456.78")), ("Dedução", Decimal("-49382.71"))])
    report.signature_lines([("Fulano de Tal", "Presidente da Comissão"), "Beltrano da Silva", ("Ciclano", "Membro")])
    return report.bytes(), len(rows)


def test_pdf_shows_accents_and_user_text_literally(long_report: tuple[bytes, int]) -> None:
    pages = _pages(long_report[0])
    first = _compact(pages[0])
    assert "MARINHA DO BRASIL" in first and "Ata da Comissão de Avaliação" in first
    assert ACCENTED in first
    assert "<b>x</b> **x** __y__ {nb} `z`" in first, "no markdown, no HTML, no page alias in user text"
    assert "com tab" in first
    assert "aNb" in first, "control characters dropped: user text cannot carry the page-total alias"
    assert "Data da sessão 30/03/2024" in first and "Valor R$ 98.765,40" in first


def test_pdf_long_table_breaks_pages_and_repeats_header(long_report: tuple[bytes, int]) -> None:
    data, n_rows = long_report
    pages = _pages(data)
    assert len(pages) > 1
    total = len(pages)
    for number, text in enumerate(pages, start=1):
        assert f"Página {number} de {total}" in text
        assert "Gerado em 06/05/2024 às 14:05" in text
    table_pages = [t for t in pages if "Ânfora" in t]
    assert len(table_pages) >= 2
    assert all("Item Descrição Prazo Valor" in _compact(t) for t in table_pages), "header repeated"
    everything = _compact(" ".join(pages))
    for i in (1, n_rows // 2, n_rows):
        assert f"Ânfora de cerâmica nº {i} " in everything
    assert f"R$ {n_rows}.000,55" in everything  # last row: 120.000,55
    assert "Total avaliado R$ 123.456,78" in everything and "Dedução -R$ 49.382,71" in everything
    for name in ("Fulano de Tal", "Presidente da Comissão", "Beltrano da Silva", "Ciclano", "Membro"):
        assert name in everything


def test_pdf_embeds_the_dejavu_font(long_report: tuple[bytes, int]) -> None:
    reader = pypdf.PdfReader(io.BytesIO(long_report[0]))
    fonts = reader.pages[0]["/Resources"]["/Font"]
    names = {str(f.get_object()["/BaseFont"]) for f in fonts.values()}
    assert any("DejaVu" in n for n in names)
    assert all("Helvetica" not in n for n in names)


def test_pdf_small_report_blocks_and_landscape() -> None:
    report = PdfReport("Inventário <i>", None, orientation="L", generated_at=GENERATED, organisation=None)
    report.table(["Coluna A", "Coluna B"], [])
    data = report.bytes()
    assert report.bytes() == data
    reader = pypdf.PdfReader(io.BytesIO(data))
    box = reader.pages[0].mediabox
    assert len(reader.pages) == 1 and box.width > box.height
    text = _compact(reader.pages[0].extract_text())
    assert "Inventário <i>" in text and "Nenhum registro." in text and "MARINHA" not in text
    with pytest.raises(RuntimeError):
        report.paragraph("tarde demais")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"columns": ["a", "b"], "rows": [(1,)]},
        {"columns": ["a"], "rows": [(1,)], "col_widths": [1, 2]},
        {"columns": ["a"], "rows": [(1,)], "align": ["L", "R"]},
        {"columns": [], "rows": []},
    ],
)
def test_pdf_table_rejects_mismatched_shapes(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        PdfReport("t", generated_at=GENERATED).table(**kwargs)


# ------------------------------------------------------------------------- iCalendar

STAMP = datetime(2024, 1, 10, 9, 30, tzinfo=timezone(timedelta(hours=-3)))


def _unfold(data: bytes) -> list[str]:
    """Physical lines -> content lines (RFC 5545 §3.1), checking the octet rules on the way."""
    assert data.endswith(b"\r\n")
    physical = data[:-2].split(b"\r\n")
    assert all(b"\n" not in line and b"\r" not in line for line in physical), "CRLF only"
    assert all(len(line) <= 75 for line in physical), "folded at 75 octets"
    lines: list[str] = []
    for raw in physical:
        text = raw.decode("utf-8")  # each piece is whole UTF-8: no character split
        if text.startswith(" "):
            lines[-1] += text[1:]
        else:
            lines.append(text)
    return lines


def _unescape(value: str) -> str:
    out, i = [], 0
    while i < len(value):
        if value[i] == "\\":
            nxt = value[i + 1]
            out.append("\n" if nxt in "nN" else nxt)
            assert nxt in "nN\\;,"
            i += 2
        else:
            assert value[i] not in ";,", f"unescaped {value[i]!r} in {value!r}"
            out.append(value[i])
            i += 1
    return "".join(out)


def _properties(lines: list[str]) -> list[tuple[str, str]]:
    return [tuple(line.split(":", 1)) for line in lines]  # type: ignore[misc]


def test_ics_all_day_events_with_escaping_and_folding() -> None:
    summary = "Relatório mensal; contrato 12/2024, navio “São João” \\ DPC — " * 3
    description = "Entregar à DPC.\nBase: Lei 7.542/1986, art. 20; NORMAM-10"
    data = to_ics(
        [
            CalendarEvent("prazo-1@valuation", date(2024, 12, 31), summary, description, "https://dpc.example/prazos/1"),
            ("prazo-2@valuation", datetime(2025, 2, 28, 17, 0), "Curto", ""),
        ],
        calendar_name="Prazos, DPC",
        dtstamp=STAMP,
    )
    lines = _unfold(data)
    props = _properties(lines)
    assert props[0] == ("BEGIN", "VCALENDAR") and props[-1] == ("END", "VCALENDAR")
    assert ("VERSION", "2.0") in props and ("PRODID", "-//DPC//valuation//PT-BR") in props
    assert ("X-WR-CALNAME", "Prazos\\, DPC") in props
    assert [v for k, v in props if k == "BEGIN"].count("VEVENT") == 2
    assert [v for k, v in props if k == "DTSTAMP"] == ["20240110T123000Z"] * 2
    assert [v for k, v in props if k == "DTSTART;VALUE=DATE"] == ["20241231", "20250228"]
    assert [v for k, v in props if k == "DTEND;VALUE=DATE"] == ["20250101", "20250301"]
    summaries = [_unescape(v) for k, v in props if k == "SUMMARY"]
    assert summaries == [summary, "Curto"]
    assert [_unescape(v) for k, v in props if k == "DESCRIPTION"] == [description]
    assert ("URL", "https://dpc.example/prazos/1") in props
    assert any(len(line.encode()) > 75 for line in lines), "the long summary needed folding"


def test_ics_url_and_text_cannot_inject_lines() -> None:
    data = to_ics(
        [("u@x", date(2024, 1, 1), "a\r\nBEGIN:VEVENT", "b\rEND:VCALENDAR", "https://x/ç a\r\nBEGIN:VALARM")],
        calendar_name="c",
        dtstamp=STAMP,
    )
    lines = _unfold(data)
    assert lines.count("BEGIN:VEVENT") == 1 and lines.count("END:VCALENDAR") == 1
    assert not any(line.startswith("BEGIN:VALARM") for line in lines)
    url = next(line for line in lines if line.startswith("URL:"))
    assert " " not in url and "%C3%A7" in url


@pytest.mark.parametrize(
    ("events", "stamp"),
    [
        ([("u", date(2024, 1, 1), "a"), ("u", date(2024, 1, 2), "b")], STAMP),
        ([("", date(2024, 1, 1), "a")], STAMP),
        ([("u", "2024-01-01", "a")], STAMP),
        ([("u", date(2024, 1, 1))], STAMP),
        ([("u", date(2024, 1, 1), "a")], datetime(2024, 1, 1)),
    ],
)
def test_ics_rejects_bad_events(events: list, stamp: datetime) -> None:
    with pytest.raises(ValueError):
        to_ics(events, calendar_name="c", dtstamp=stamp)


ics_text = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=("Cc", "Cs")),
        st.sampled_from(["\n", ",", ";", "\\", "ç", "€", "😀"]),
    ),
    max_size=300,
)


@settings(max_examples=60, deadline=None)
@given(ics_text, ics_text)
def test_ics_text_round_trips(summary: str, description: str) -> None:
    data = to_ics([("u@x", date(2024, 1, 1), summary, description)], calendar_name="c", dtstamp=STAMP)
    props = dict(_properties(_unfold(data)))
    assert _unescape(props["SUMMARY"]) == summary
    assert _unescape(props.get("DESCRIPTION", "")) == description
