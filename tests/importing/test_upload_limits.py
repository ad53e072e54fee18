"""Issue 14, item 1 — decompression bombs and huge cells are refused before any parser runs.

Reproduction (failed before the fix): a 1.5 MB XLSX whose shared-strings part inflates to 1.5 GiB
imported with exit 0, took the CLI to 6.5 GB and stored a 1.6-billion-character description; a 1 MB
CSV cell was accepted. Now `valuation.importing.limits` bounds every upload before it is parsed
(README "Limits"): a refusal names the limit in Portuguese, nothing is written, and the peak memory
of a refused bomb stays under 300 MB above the idle process (measured in a subprocess).
"""
from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import textwrap
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

from valuation.core.errors import InputError
from valuation.importing import limits
from valuation.importing.tabular import read_table

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.fuzz_report import FIGURES  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
MIB = 1 << 20
HEADER = ["item_code", "description", "category", "material", "quantity", "recovered_on", "condition"]


# -- building hostile archives --------------------------------------------------------------------------
def _base_parts() -> dict[str, bytes]:
    """The parts of a small, valid XLSX (openpyxl), by name."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.append(HEADER)
    ws.append(["A-1", "Moeda", "moeda", "prata", 1, "2025-01-02", "boa"])
    buf = io.BytesIO()
    wb.save(buf)
    with zipfile.ZipFile(buf) as z:
        return {n: z.read(n) for n in z.namelist()}


def _zip(members: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A ZIP from (name, deflated bytes, crc, declared uncompressed size, method) — sizes as given,
    honest or not, exactly as an attacker would write them."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, payload, crc, size, method in members:
        raw_name = name.encode("utf-8")
        offset = out.tell()
        out.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0, crc, len(payload), size,
                              len(raw_name), 0) + raw_name + payload)
        central.write(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc, len(payload),
                                  size, len(raw_name), 0, 0, 0, 0, 0, offset) + raw_name)
    cd = central.getvalue()
    start = out.tell()
    out.write(cd + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members), len(cd), start, 0))
    return out.getvalue()


def _deflated(data: bytes) -> tuple[bytes, int, int, int]:
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(), zlib.crc32(data), len(data), zipfile.ZIP_DEFLATED


def _repeated(block: bytes, times: int, *, head: bytes = b"", tail: bytes = b"") -> tuple[bytes, int, int, int]:
    """head + block × times + tail, deflated fast: after a full flush a block's code does not depend on
    what came before, so one compressed block is repeated."""
    def seg(data: bytes, mode: int) -> bytes:
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush(mode)
    body = seg(head, zlib.Z_FULL_FLUSH) + seg(block, zlib.Z_FULL_FLUSH) * times + seg(tail, zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(times):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    return body, crc, len(head) + len(block) * times + len(tail), zipfile.ZIP_DEFLATED


def _xlsx_with(part: str, member: tuple[bytes, int, int, int]) -> bytes:
    members = [(n, *_deflated(d)) for n, d in _base_parts().items() if n != part]
    return _zip([*members, (part, *member)])


SST_HEAD = (b'<?xml version="1.0" encoding="UTF-8"?><sst '
            b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>')
SST_TAIL = b"</t></si></sst>"


@pytest.fixture(scope="module")
def bomb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The issue's bomb (shared strings inflating to 1.5 GiB: one 1.6-billion-character text) and a
    lying one (its sizes say 4 KiB, it inflates to 1 GiB)."""
    folder = tmp_path_factory.mktemp("bombs")
    honest = _repeated(b"A" * MIB, 1536, head=SST_HEAD, tail=SST_TAIL)
    (folder / "bomba.xlsx").write_bytes(_xlsx_with("xl/sharedStrings.xml", honest))
    body, crc, _size, method = _repeated(b"A" * MIB, 1024, head=SST_HEAD, tail=SST_TAIL)
    (folder / "mentirosa.xlsx").write_bytes(_xlsx_with("xl/sharedStrings.xml", (body, crc, 4096, method)))
    return folder


def _refusal(data: bytes, name: str = "itens.xlsx") -> str:
    with pytest.raises(InputError) as refused:
        read_table(data, name)
    return str(refused.value)


def test_the_bomb_is_refused_naming_the_limit(bomb_dir: Path) -> None:
    data = (bomb_dir / "bomba.xlsx").read_bytes()
    assert len(data) < 3 * MIB
    assert "512 MiB" in _refusal(data) and "bomba de descompressão" in _refusal(data)


def test_a_bomb_that_lies_about_its_size_is_refused_too(bomb_dir: Path) -> None:
    assert "além do tamanho declarado" in _refusal((bomb_dir / "mentirosa.xlsx").read_bytes())


def test_a_part_that_expands_too_much_is_refused() -> None:
    member = _repeated(b"<!-- " + b" " * (MIB - 10) + b" -->", 8)
    assert "100 vezes" in _refusal(_xlsx_with("xl/styles2.xml", member))


PEAK_CHILD = textwrap.dedent("""
    import json, resource, sys
    from valuation.core.errors import InputError
    from valuation.importing.tabular import read_table
    from valuation.inventory.importer import parse_items
    import datetime
    data = open(sys.argv[1], "rb").read()

    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1])
    with open("/proc/self/clear_refs", "w") as fh:   # the peak (VmHWM) starts again from the current size
        fh.write("5")
    idle = status("VmRSS:")
    try:
        parse_items(data, "itens.xlsx", today=datetime.date(2025, 6, 30))
        outcome = "accepted"
    except InputError as exc:
        outcome = str(exc)
    peak = max(status("VmHWM:"), idle)
    print(json.dumps({"idle_kb": idle, "peak_kb": peak, "outcome": outcome}))
""")


@pytest.mark.parametrize("name", ["bomba.xlsx", "mentirosa.xlsx"])
def test_a_refused_bomb_stays_under_300_mb_above_idle(bomb_dir: Path, name: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run([PY, "-c", PEAK_CHILD, str(bomb_dir / name)], capture_output=True, text=True, timeout=300,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    assert doc["outcome"] != "accepted"
    FIGURES.record(f"XLSX bomb {name} ({(bomb_dir / name).stat().st_size // 1024} KB) refused: peak MB above idle",
                   f"{(doc['peak_kb'] - doc['idle_kb']) / 1024:.0f}")
    assert (doc["peak_kb"] - doc["idle_kb"]) < 300 * 1024, doc


def test_the_cli_refuses_the_bomb_with_exit_2_and_writes_nothing(bomb_dir: Path, small_world: Any) -> None:
    small_world.store.close()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}

    def counts() -> str:
        proc = subprocess.run([PY, "-m", "valuation", "db", "stats", "--db", str(small_world.path)],
                              capture_output=True, text=True, timeout=120, env=env)
        return proc.stdout

    before = counts()
    proc = subprocess.run([PY, "-m", "valuation", "import", "items", str(bomb_dir / "bomba.xlsx"), "--db",
                           str(small_world.path), "--contract", "A-1", "--actor", "exp.alfa"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 2 and "512 MiB" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert counts() == before


def _sheet(cells: str) -> tuple[bytes, int, int, int]:
    xml = ('<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/'
           f'spreadsheetml/2006/main"><sheetData>{cells}</sheetData></worksheet>').encode()
    return _deflated(xml)


@pytest.mark.parametrize("cells, word", [
    ('<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="XFD1" t="inlineStr"><is><t>b</t></is></c></row>',
     "coluna XFD"),
    ('<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row><row r="2000000"><c r="A2000000"/></row>',
     "linha 2.000.000"),
    ('<row r="1"><c r="A1" t="inlineStr"><is><t>' + "x" * 5000 + "</t></is></c></row>", "4.000 caracteres"),
])
def test_a_sheet_beyond_the_rows_columns_or_cell_length_is_refused_before_parsing(cells: str, word: str,
                                                                                  monkeypatch) -> None:
    from valuation.importing import tabular

    def never(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("the parser ran")

    monkeypatch.setattr(tabular, "_read_xlsx", never)
    assert word in _refusal(_xlsx_with("xl/worksheets/sheet1.xml", _sheet(cells)))


def test_a_one_megabyte_csv_cell_is_refused() -> None:
    text = ";".join(HEADER) + "\nA-1;" + "x" * MIB + ";moeda;prata;1;02/01/2025;boa\n"
    message = _refusal(text.encode("utf-8"), "itens.csv")
    assert "131.072 bytes" in message and "linha 2" in message


def test_a_long_cell_spread_over_lines_is_refused_by_line_and_column() -> None:
    long = "\n".join(["y" * 100] * 50)                                   # 5 049 characters, 100 per line
    text = ";".join(HEADER) + f'\nA-1;"{long}";moeda;prata;1;02/01/2025;boa\n'
    with pytest.raises(InputError) as refused:
        read_table(text.encode("utf-8"), "itens.csv")
    problem = refused.value.problems[0]
    assert (problem.line, problem.column) == (2, "description") and "4.000" in problem.message
    assert str(problem).startswith("linha 2, coluna description: ")


def test_too_many_lines_or_columns_are_refused_before_parsing(monkeypatch) -> None:
    monkeypatch.setattr(limits, "MAX_LINES", 1000)
    assert "limite é 1.000" in _refusal(("a;b\n" + "1;2\n" * 1500).encode(), "x.csv")
    assert "colunas" in _refusal((";".join(f"c{i}" for i in range(300)) + "\n").encode(), "x.csv")


def test_a_normal_file_is_still_read() -> None:
    df, meta = read_table((";".join(HEADER) + "\nA-1;Moeda de prata;moeda;prata;1;02/01/2025;boa\n").encode(),
                          "itens.csv")
    assert len(df) == 1 and meta.separator == ";"
    df, meta = read_table(_zip([(n, *_deflated(d)) for n, d in _base_parts().items()]), "itens.xlsx")
    assert len(df) == 1 and meta.format == "xlsx"


def test_texts_are_counted_across_the_inflater_chunks(monkeypatch) -> None:
    """Texts of 3 000 characters over several inflated chunks pass; one of 5 000 straddling a chunk
    boundary is refused (the count carries over; two short texts are never merged)."""
    import random

    monkeypatch.setattr(limits, "CHUNK", 4096)
    rng = random.Random(7)

    def text(n: int) -> str:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))

    ok = "".join(f'<row r="{r}"><c r="A{r}" t="inlineStr"><is><t>{text(3000)}</t></is></c></row>' for r in range(1, 40))
    limits.check_xlsx(_xlsx_with("xl/worksheets/sheet1.xml", _sheet(ok)))
    bad = ok + f'<row r="40"><c r="A40" t="inlineStr"><is><t>{text(5000)}</t></is></c></row>'
    with pytest.raises(InputError) as refused:
        limits.check_xlsx(_xlsx_with("xl/worksheets/sheet1.xml", _sheet(bad)))
    assert "4.000 caracteres" in refused.value.problems[0].message


@pytest.mark.parametrize("cell, refused", [
    ("é" * limits.MAX_CELL_CHARS, False),           # twice as many bytes as the limit, characters at it
    ("é" * (limits.MAX_CELL_CHARS + 1), True),
    ("x" * (limits.MAX_CELL_CHARS + 1), True),
    ("x" * limits.MAX_CELL_CHARS, False),
])
def test_a_cells_length_is_counted_in_characters_not_bytes(cell: str, refused: bool) -> None:
    data = f"Código;Descrição\nA-1;curta\nA-2;{cell}\n".encode()
    if not refused:
        df, _ = read_table(data, "bens.csv")
        assert df.iloc[1, 1] == cell
        return
    with pytest.raises(InputError) as err:
        read_table(data, "bens.csv")
    problem = err.value.problems[0]
    assert problem.line == 3 and "o limite por célula" in problem.message
