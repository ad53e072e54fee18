"""Issue 24, item 10 — an XLSX is bounded by what the workbook declares, and its header is read first.

Reproductions (each failed before the fix):
- a 34.5 MB XLSX of 25 million cells used 2.0 GB and 24 s before being refused for a missing column:
  the whole sheet was read, then the header checked. Now the header row is streamed first (the first
  visible sheet only as far as its first non-blank row) and a file without a required column is refused
  before any part is scanned or read;
- the limit scanner looked only at `xl/worksheets/*.xml` and `xl/sharedStrings.xml`, while the reader
  follows the workbook's relationships: a sheet at `xl/data/big.xml` was read without any cell bound.
  Now every part that the content types or the relationships declare a worksheet or the shared strings
  is scanned, and the cells of all the worksheets count together (`limits.MAX_CELLS`).

Inputs are generated small; the bounds are lowered where a test proves one (monkeypatch), never the
product's. Peak memory is measured in a subprocess (ru_maxrss), as in tests/importing/test_upload_limits.py.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import FIGURES, FUZZ  # noqa: E402
from valuation.core.errors import InputError  # noqa: E402
from valuation.importing import csv_fast, limits, tabular  # noqa: E402
from valuation.importing.tabular import read_table  # noqa: E402
from valuation.inventory.importer import parse_items  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
ROOT = Path(__file__).resolve().parents[2]
TODAY = __import__("datetime").date(2026, 6, 1)
GOOD = ["codigo", "descricao", "categoria", "material", "quantidade", "data_recuperacao", "estado"]
BAD = ["codigo", "descricao", "categoria", "material", "quantidade", "estado"]      # no recovery date

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG = "http://schemas.openxmlformats.org/package/2006/relationships"
_SHEET_CT = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"


def _col(n: int) -> str:
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def _sheet_xml(header: list[str], rows: int, cols: int) -> str:
    out = io.StringIO()
    out.write(f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{_MAIN}"><sheetData>')

    def row(r: int, values: list[str]) -> None:
        out.write(f'<row r="{r}">' + "".join(f'<c r="{_col(i + 1)}{r}" t="inlineStr"><is><t>{v}</t></is></c>'
                                             for i, v in enumerate(values)) + "</row>")
    row(1, header + [f"extra{i}" for i in range(cols - len(header))])
    for r in range(2, rows + 2):
        row(r, [f"A-{r}", "Moeda", "moeda", "prata", "1", "2025-01-02", "boa", *[f"x{r}" for _ in range(cols - 7)]]
            if len(header) == len(GOOD) else [f"A-{r}", "Moeda", "moeda", "prata", "1", "boa",
                                              *[f"x{r}" for _ in range(cols - 6)]])
    out.write("</sheetData></worksheet>")
    return out.getvalue()


def workbook(sheets: list[tuple[str, str, str]], *, override: bool = True) -> bytes:
    """An XLSX from (sheet name, part name, sheet XML); each part declared through the workbook's
    relationships and (when `override`) a content-type Override — wherever it lies."""
    types = "".join(f'<Override PartName="/{part}" ContentType="{_SHEET_CT}"/>' for _n, part, _x in sheets) \
        if override else ""
    ct = ('<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
          'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
          'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override '
          'PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.'
          f'sheet.main+xml"/>{types}</Types>')
    rels = (f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_PKG}"><Relationship Id="rId1" '
            f'Type="{_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
    book = (f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets>'
            + "".join(f'<sheet name="{n}" sheetId="{k + 1}" r:id="rId{k + 1}"/>'
                      for k, (n, _p, _x) in enumerate(sheets))
            + "</sheets></workbook>")
    book_rels = (f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_PKG}">'
                 + "".join(f'<Relationship Id="rId{k + 1}" Type="{_REL}/worksheet" Target="/{p}"/>'
                           for k, (_n, p, _x) in enumerate(sheets)) + "</Relationships>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", ct)
        z.writestr("_rels/.rels", rels)
        z.writestr("xl/workbook.xml", book)
        z.writestr("xl/_rels/workbook.xml.rels", book_rels)
        for _n, part, xml in sheets:
            z.writestr(part, xml)
    return buf.getvalue()


def _items(header: list[str], rows: int, cols: int = 10, part: str = "xl/worksheets/sheet1.xml") -> bytes:
    return workbook([("Itens", part, _sheet_xml(header, rows, cols))])


class _Calls:
    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> None:
        self.n = 0
        real = getattr(module, name)

        def spy(*a: Any, **k: Any) -> Any:
            self.n += 1
            return real(*a, **k)
        monkeypatch.setattr(module, name, spy)


def test_a_header_without_a_required_column_is_refused_before_anything_reads_the_sheet(
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = _items(BAD, 20_000)
    readers = [_Calls(monkeypatch, tabular, "_xlsx_rows_calamine"), _Calls(monkeypatch, tabular, "_xlsx_rows_openpyxl"),
               _Calls(monkeypatch, limits, "_inflate_and_scan")]
    with pytest.raises(InputError, match="coluna obrigatória ausente") as refused:
        parse_items(data, "itens.xlsx", today=TODAY)
    assert "recovered_on" in str(refused.value)
    assert [r.n for r in readers] == [0, 0, 0]             # no sheet read, no part scanned
    FUZZ.count("xlsx_limits:header_first", outcome="refused")


def test_the_header_read_first_agrees_with_the_full_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A right header passes the early check and the file is read as before (both engines)."""
    data = _items(GOOD, 30)
    for engine in ("calamine", "openpyxl"):
        monkeypatch.setattr(tabular, "XLSX_ENGINE", engine)
        parsed = parse_items(data, "itens.xlsx", today=TODAY)
        assert parsed.row_count == 30 and parsed.format == "xlsx"
        FUZZ.count("xlsx_limits:header_first", outcome="accepted")


def test_a_csv_without_a_required_column_is_refused_before_the_whole_file_is_parsed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [";".join(BAD)] + [f"A-{n};Moeda;moeda;prata;1;boa" for n in range(5_000)]
    data = ("\n".join(lines) + "\n").encode()
    sizes: list[int] = []
    real = csv_fast.read_csv_arrow
    monkeypatch.setattr(csv_fast, "read_csv_arrow", lambda d, lim: sizes.append(len(d)) or real(d, lim))
    with pytest.raises(InputError, match="coluna obrigatória ausente"):
        parse_items(data, "itens.csv", today=TODAY)
    assert sizes and max(sizes) < len(data) // 10               # only the first lines were parsed
    FUZZ.count("xlsx_limits:header_first", outcome="refused")


@pytest.mark.parametrize("part, override", [
    ("xl/data/big.xml", True),               # declared by the relationships and the content types
    ("xl/data/big.xml", False),              # by the relationships alone (content type: plain xml)
    ("dados/planilha.xml", True),            # outside xl/ altogether
])
def test_a_sheet_outside_xl_worksheets_is_bounded_too(monkeypatch: pytest.MonkeyPatch, part: str,
                                                     override: bool) -> None:
    data = workbook([("Itens", part, _sheet_xml(GOOD, 150, 10))], override=override)
    df, _meta = read_table(data, "itens.xlsx")                 # the reader does follow the relationships
    assert len(df) == 150
    monkeypatch.setattr(limits, "MAX_CELLS", 1_000)              # 1 510 cells: beyond the lowered bound
    with pytest.raises(InputError, match="mais de 1.000 células"):
        read_table(data, "itens.xlsx")
    FUZZ.count(f"xlsx_limits:declared:{part}", outcome="refused")


def test_the_cells_of_every_sheet_count_together(monkeypatch: pytest.MonkeyPatch) -> None:
    sheets = [(f"Aba{k}", f"xl/worksheets/sheet{k}.xml", _sheet_xml(GOOD, 60, 10)) for k in (1, 2)]
    data = workbook(sheets)
    monkeypatch.setattr(limits, "MAX_CELLS", 1_000)              # 610 cells each, 1 220 together
    with pytest.raises(InputError, match="em todas as abas"):
        read_table(data, "itens.xlsx")
    FUZZ.count("xlsx_limits:every_sheet", outcome="refused")


def test_a_workbook_declaring_a_dtd_is_refused() -> None:
    data = _items(GOOD, 3)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts["xl/workbook.xml"] = parts["xl/workbook.xml"].replace(
        b"<workbook", b'<!DOCTYPE w [<!ENTITY a "aaaaaaaaaa">]><workbook', 1)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in parts.items():
            z.writestr(n, b)
    with pytest.raises(InputError, match="DTD"):
        parse_items(buf.getvalue(), "itens.xlsx", today=TODAY)
    FUZZ.count("xlsx_limits:dtd", outcome="refused")


MEASURE = textwrap.dedent("""
    import json, sys, time
    from datetime import date
    from valuation.core.errors import InputError
    from valuation.inventory.importer import parse_items
    import python_calamine  # noqa: F401  (imported before the measure, as in the service)

    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    for path in sys.argv[1:]:
        data = open(path, "rb").read()
        with open("/proc/self/clear_refs", "w") as fh:   # the peak (VmHWM) starts again from the current size
            fh.write("5")
        base = status("VmRSS:")
        t = time.process_time()
        try:
            parse_items(data, "itens.xlsx", today=date(2026, 6, 1))
            outcome = "accepted"
        except InputError as exc:
            outcome = str(exc)[:200]
        print(json.dumps({"outcome": outcome, "cpu_s": time.process_time() - t, "peak_mb": status("VmHWM:") - base}))
        del data
""")


def _measure(*paths: Path) -> list[dict[str, Any]]:
    """Peak memory above the process's size and CPU of `parse_items` on each file, in one subprocess
    (the peak is reset before each)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", MEASURE, *map(str, paths)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.strip().splitlines()[-len(paths):]]


def test_a_refused_header_costs_almost_no_memory(tmp_path: Path) -> None:
    """300 000 cells without a required column: refused within a few MB (the whole read takes ~45 MB here,
    25 million cells took 2.0 GB); the same file with the right header, read whole, for comparison."""
    bad, good = tmp_path / "sem_coluna.xlsx", tmp_path / "certa.xlsx"
    bad.write_bytes(_items(BAD, 30_000))
    good.write_bytes(_items(GOOD, 30_000))
    refused, read = _measure(bad, good)
    FIGURES.record("XLSX 300 000 cells without a required column: peak MB above idle, CPU s",
                   f"{refused['peak_mb']:.0f}, {refused['cpu_s']:.2f} (the same read whole: "
                   f"{read['peak_mb']:.0f} MB, {read['cpu_s']:.1f} s)")
    assert "coluna obrigatória ausente" in refused["outcome"] and read["outcome"] == "accepted"
    assert refused["peak_mb"] < 25 < read["peak_mb"]
