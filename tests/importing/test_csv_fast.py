"""The fast CSV path (valuation.importing.csv_fast, Arrow's parser) reads every file it takes
exactly as the general reader does — cells, line numbers, header, blank rows, encoding,
separator — and hands back the files it cannot vouch for."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from valuation.core.errors import InputError
from valuation.importing import csv_fast, tabular

cell_st = st.one_of(
    st.sampled_from(["", " ", "Moeda de ouro", "São João", "1.234,56", "12\" polegadas", "a;b", 'diz "oi"', "  x  ",
                     "Âncora · grade", "—", "ção", "0,5", "31/12/2025"]),
    st.text(alphabet="abcçãé 0123456789;,.\"-", max_size=8))


def _field(value: str, sep: str) -> str:
    if sep in value or '"' in value or value != value.strip():
        return '"' + value.replace('"', '""') + '"'
    return value


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    sep = draw(st.sampled_from([";", ",", "\t"]))
    width = draw(st.integers(1, 5))
    header = [draw(st.sampled_from(["Código", "Descrição", "Qtd", "Peso (g)", "Lote", "obs"])) + str(i)
              for i in range(width)]
    if width > 1 and draw(st.booleans()):
        header[-1] = ""                                        # a column without a name
    rows = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["row", "row", "row", "empty", "separators"]))
        if kind == "empty":
            rows.append("")
        elif kind == "separators":
            rows.append(sep * (width - 1))
        else:
            rows.append(sep.join(_field(draw(cell_st), sep) for _ in range(width)))
    lines = ([] if not draw(st.booleans()) else ["sep=" + sep] if sep != "\t" else []) + \
        [sep.join(_field(h, sep) for h in header)] + rows
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "cp1252"]))
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode("utf-8")


def _text_reader(data: bytes):
    try:
        return tabular._read_csv_text(data, None)
    except InputError as exc:
        return exc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=csv_files())
def test_the_fast_path_reads_what_the_general_reader_reads(data: bytes) -> None:
    fast = csv_fast.read_csv_arrow(data)
    expected = _text_reader(data)
    if fast is None:
        return
    got = tabular._read_csv(data, None)
    assert not isinstance(expected, InputError), (data, expected)
    (df_a, meta_a), (df_b, meta_b) = got, expected
    assert meta_a == meta_b, data
    assert list(df_a.columns) == list(df_b.columns)
    assert df_a.index.tolist() == df_b.index.tolist(), data
    assert [list(map(str, r)) for r in df_a.itertuples(index=False)] == \
        [list(map(str, r)) for r in df_b.itertuples(index=False)], data


def test_the_fast_path_takes_an_ordinary_excel_file() -> None:
    text = ("sep=;\r\nCódigo;Descrição;Peso (g)\r\nA-1;Moeda de ouro;1.234,56\r\n\r\n;;\r\n"
            "A-2;\"Prato; fragmento\";7\r\n")
    data = text.encode("cp1252")
    fast = csv_fast.read_csv_arrow(data)
    assert fast is not None and fast.encoding == "cp1252" and fast.separator == ";"
    df, meta = tabular.read_table(data, "bens.csv")
    assert df.index.tolist() == [3, 6] and meta.header_line == 2 and meta.blank_rows == 2
    assert df.iloc[1].tolist() == ["A-2", "Prato; fragmento", "7"]


@pytest.mark.parametrize("data", [
    b"a;b;c\n1;2\n",                          # a short row
    b"a;b\n1;\"two\nlines\"\n",               # a line break inside a quoted field
    b";\na;b;c\n1;2;3\n",                     # a leading line of another width
    "a;b\n1;2\n".encode("utf-16"),            # UTF-16
    b"a;b\n1;\x002\n",                        # a NUL byte
    b"a;b\n1;\"2\n",                          # a quote left open
])
def test_files_the_fast_path_hands_to_the_general_reader(data: bytes) -> None:
    assert csv_fast.read_csv_arrow(data) is None


def test_limits_are_checked_before_parsing() -> None:
    data = b"a;b;c\n" + b"1;2;3\n" * 10
    with pytest.raises(InputError, match="linhas"):
        csv_fast.read_csv_arrow(data, csv_fast.TableLimits(max_rows=5))
    with pytest.raises(InputError, match="colunas"):
        csv_fast.read_csv_arrow(data, csv_fast.TableLimits(max_columns=2))
    with pytest.raises(InputError, match="caracteres"):
        csv_fast.read_csv_arrow(data, csv_fast.TableLimits(max_line_chars=4))
    assert csv_fast.read_csv_arrow(data, csv_fast.TableLimits(max_rows=11, max_columns=3, max_line_chars=5))


@pytest.mark.parametrize("text", [
    "a;b\r\n1;x\ry\r\n2;z\r\n",                  # a lone CR inside a cell of a CRLF file
    "a;b\r\n1;2\n3;4\r\n\r\n5;6",               # CRLF and LF mixed, a blank CRLF line, no line end at the end
    "sep=;\r\na;b\r\n\r\n1;2\r\n",              # the hint line with its CRLF
    "a;b\r\n1;\"two\r\nlines\"\r\n",             # a CRLF inside a quoted field
    "a;b\r\n1;\"2\r\n",                          # a quote left open with CRLF
    "a;b\r\r\n1;2\r\n",                          # CR CR LF
])
def test_crlf_files_read_as_the_general_reader_reads_them(text: str) -> None:
    for data in (text.encode("utf-8"), text.encode("cp1252")):
        fast = csv_fast.read_csv_arrow(data)
        expected = _text_reader(data)
        if fast is None:
            continue
        (df_a, meta_a), (df_b, meta_b) = tabular._read_csv(data, None), expected
        assert meta_a == meta_b
        assert df_a.index.tolist() == df_b.index.tolist()
        assert df_a.values.tolist() == df_b.values.tolist()


def test_a_crlf_file_is_read_without_rewriting_its_line_ends() -> None:
    body = b"a;b\r\n1;2\r\n\r\n3;4\r\n"
    kept, starts, lengths = csv_fast._line_ends(body)
    assert kept is body                                   # no copy of a million-line file to drop its CRs
    assert starts.tolist() == [0, 5, 10, 12] and lengths.tolist() == [3, 3, 0, 3]
    lone = b"a;b\r1;2\r\n"
    assert csv_fast._line_ends(lone)[0] == b"a;b\n1;2\n"


def test_the_longest_line_is_counted_without_its_crlf() -> None:
    data = b"ab;c\r\n1;2\r\n"
    assert csv_fast.read_csv_arrow(data, csv_fast.TableLimits(max_line_chars=4)) is not None
    with pytest.raises(InputError):
        csv_fast.read_csv_arrow(data, csv_fast.TableLimits(max_line_chars=3))
