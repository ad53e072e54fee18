"""Issue 8.4 — hostile input, property-based (hypothesis): every `compute` kind, every importer,
every form of the store, and `valuation.core.forms` itself. Random structures, wrong types, huge
numbers, negative amounts, impossible dates, unicode, deep nesting, broken CSV bytes: the
answer is a result or an `InputError`/`ValuationError` with a clear message — never another
exception — and a refused write leaves every table and the audit log as they were.

Targets are discovered, so new pieces are covered as they arrive: `valuation.cli.main.COMPUTE_KINDS`
(seeded with the public examples of each kind), every `valuation.importing.*` function taking
`(data, file_name)`, every store function taking `(store, user, …, data: bytes,
file_name)` or `(store, user, data: Mapping)`. A few documents go through the real CLI.
The number of generated inputs is printed at the end of the run (tests/support/fuzz_report.py).
"""
from __future__ import annotations

import copy
import functools
import importlib
import inspect
import io
import json
import re
import struct
import subprocess
import sys
import warnings
import zipfile
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.package_modules import functions, store_functions
from valuation.cli.main import COMPUTE_KINDS
from valuation.core import forms
from valuation.core.errors import AccessDenied, InputError, ValuationError

pytest.register_assert_rewrite("tests.support.fuzz_report")   # imported here before pytest loads it as the plugin below
from tests.support.fuzz_report import FUZZ  # noqa: E402  (the tally the plugin prints at the end of the run)

pytest_plugins = ["tests.support.fuzz_report"]

PY = sys.executable
EXAMPLES = Path("/work/shared/spec/examples")
TODAY = date(2025, 6, 30)
_HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large,
           HealthCheck.filter_too_much, HealthCheck.large_base_example]


# Generated inputs per property (issue 14: at least 10 000 per run in all; the summary prints the total, and
# test_the_planned_inputs_reach_the_issue_bound checks the plan). The compute kinds had 800 each (12 331 in all,
# 11 ms an input): 550 keep the run above the bound at two thirds of their time.
N_COMPUTE = 550          # × 6 compute kinds, in-process
N_ACCESSOR = 3000        # valuation.core.forms.Form accessors
N_IMPORTER = 200         # × 5 parsers, CSV and raw bytes
N_SPREADSHEET = 30       # × 5 parsers, generated workbooks
N_ARCHIVE = 120          # × 5 parsers, hostile XLSX archives
N_FORM = 60              # × each store form, with the no-partial-write check
N_STORE_IMPORT = 40      # × each store import, with the no-partial-write check


def fuzz_settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, suppress_health_check=_HEALTH, print_blob=True)


# -- hostile values -------------------------------------------------------------------------------
HOSTILE_STRINGS = [
    "", " ", "\t\n", "NaN", "nan", "Infinity", "-Infinity", "1e309", "-1", "-0.01", "0", "00", "1,5", "1.234,56",
    "1_000", "0x10", "2025-02-30", "2025-13-01", "2025-00-10", "0000-01-01", "9999-12-31", "10000-01-01", "2025-1-1",
    "31/12/2025", "30/02/2025", "2024-02-29", "2025-02-29", "2025-06-15T10:00:00", "١٢٣", "１２３", "\x00",
    "\u202eabc", "😀" * 40, "a" * 5000, "=cmd|' /C calc'!A0", "+1+1", "@SUM(A1)", "'; DROP TABLE items; --",
    "../../../etc/passwd", "<script>alert(1)</script>", "null", "true", "sim", "não", "BRL", "XXX", "A-1", "CPRJ",
]
HUGE = [10**400, -(10**400), 2**63, -(2**63) - 1, 2**31, -1, 0, Decimal("1E+999999"), Decimal("-1E-999999"),
        Decimal("-0.01"), Decimal("0.001"), Decimal("1E+30"), Decimal("-0"),
        Decimal("123456789012345678901234567890.12")]


def _pinned_form_defect(value: Any) -> bool:
    """Values that hit the defects of forms.Form pinned at the end of this file (integers and
    decimals beyond the decimal context / BIGINT, 4 300+-digit strings): left out of the form
    properties so that these keep finding new problems instead of the known ones."""
    try:
        if isinstance(value, bool):
            return False
        if isinstance(value, (int, Decimal)):
            return Decimal(value).is_finite() and Decimal(value).adjusted() >= 25
        if isinstance(value, str) and value.strip():
            return Decimal(value.strip().replace(",", ".")).adjusted() >= 25
    except (ArithmeticError, ValueError):
        return False
    return False


def scalars(*, forms_safe: bool = False) -> st.SearchStrategy[Any]:
    """What a JSON document parsed like the CLI parses it (floats as Decimal) can hold, and worse."""
    values = st.one_of(
        st.none(), st.booleans(),
        st.integers(min_value=-(10**20), max_value=10**20),
        st.decimals(allow_nan=False, allow_infinity=False),
        st.sampled_from(HUGE),
        st.text(max_size=40),
        st.sampled_from(HOSTILE_STRINGS),
    )
    return values.filter(lambda v: not _pinned_form_defect(v)) if forms_safe else values


def json_like(keys: list[str], *, forms_safe: bool = False) -> st.SearchStrategy[Any]:
    key = st.sampled_from(keys) if keys else st.text(max_size=10)
    return st.recursive(
        scalars(forms_safe=forms_safe),
        lambda kids: st.lists(kids, max_size=4) | st.dictionaries(key | st.text(max_size=10), kids, max_size=6),
        max_leaves=30)


def _paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, prefix + (i,))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _deep(value: Any, depth: int) -> Any:
    for i in range(depth):
        value = [value] if i % 2 else {"x": value}
    return value


@st.composite
def mutated(draw: Any, seeds: list[Any], keys: list[str], forms_safe: bool = False) -> Any:
    """A valid document with one to three hostile changes: replaced, removed, unknown, wrapped,
    duplicated or deeply nested values anywhere in it."""
    def scalars() -> st.SearchStrategy[Any]:
        return globals()["scalars"](forms_safe=forms_safe)

    def json_like(keys: list[str]) -> st.SearchStrategy[Any]:
        return globals()["json_like"](keys, forms_safe=forms_safe)

    doc = copy.deepcopy(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(doc)))
        op = draw(st.sampled_from(("scalar", "scalar", "scalar", "struct", "delete", "unknown", "wrap", "duplicate",
                                   "deep")))
        old = _get(doc, path)
        if op == "scalar":
            new = draw(scalars())
        elif op == "struct":
            new = draw(json_like(keys))
        elif op == "wrap":
            new = [old]
        elif op == "deep":
            new = _deep(old, draw(st.integers(20, 300)))
        elif op == "duplicate" and isinstance(old, list) and old:
            old.extend(copy.deepcopy(old) * draw(st.integers(1, 3)))
            continue
        elif op == "unknown" and isinstance(old, dict):
            old[draw(st.text(min_size=1, max_size=12))] = draw(scalars())
            continue
        elif op == "delete" and path:
            parent = _get(doc, path[:-1])
            del parent[path[-1]]
            continue
        else:
            new = draw(scalars())
        if not path:
            doc = new
        else:
            _get(doc, path[:-1])[path[-1]] = new
    return doc


def _keys(docs: list[Any]) -> list[str]:
    found: set[str] = set()

    def walk(d: Any) -> None:
        if isinstance(d, dict):
            found.update(str(k) for k in d)
            for v in d.values():
                walk(v)
        elif isinstance(d, list):
            for v in d:
                walk(v)
    for d in docs:
        walk(d)
    return sorted(found)


def assert_clear(exc: ValuationError) -> None:
    """A refusal people can act on: every problem has a message; no Python internals leak."""
    if isinstance(exc, InputError):
        assert exc.problems, "an InputError names at least one problem"
        for p in exc.problems:
            assert isinstance(p.path, str) and isinstance(p.message, str) and p.message.strip(), p
    text = str(exc)
    assert text.strip()
    for leak in ("Traceback", "object at 0x", "Error(", "duckdb."):
        assert leak not in text, text


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return "accepted", call()
    except AccessDenied as exc:
        assert_clear(exc)
        return "denied", None
    except ValuationError as exc:
        assert_clear(exc)
        return "refused", None


# -- compute KIND: run(doc) in-process for every kind ------------------------------------------------
def _compute_seeds() -> dict[str, list[Any]]:
    seeds: dict[str, list[Any]] = {}
    for f in sorted(EXAMPLES.glob("*.json")) if EXAMPLES.is_dir() else []:
        case = json.loads(f.read_text(encoding="utf-8"), parse_float=Decimal)
        if isinstance(case, dict) and case.get("kind") in COMPUTE_KINDS and "input" in case:
            seeds.setdefault(case["kind"], []).append(case["input"])
    return seeds


COMPUTE_SEEDS = _compute_seeds()


@pytest.mark.parametrize("kind", sorted(COMPUTE_KINDS))
def test_compute_answers_or_refuses_clearly(kind: str) -> None:
    run = importlib.import_module(COMPUTE_KINDS[kind]).run
    seeds = COMPUTE_SEEDS.get(kind) or [{}]
    keys = _keys(seeds)

    @fuzz_settings(N_COMPUTE)
    @given(doc=st.one_of(mutated(seeds, keys), mutated(seeds, keys), json_like(keys)))
    def prop(doc: Any) -> None:
        outcome, result = _outcome(lambda: run(copy.deepcopy(doc)))
        if outcome == "accepted":
            assert isinstance(result, dict)
            json.dumps(result, ensure_ascii=False)            # what the CLI prints must serialise
        FUZZ.count(f"compute:{kind}", outcome=outcome)

    prop()


CLI_INPUTS: list[tuple[str, bytes]] = [
    ("not UTF-8", b"\xff\xfe\x00{"),
    ("NaN", b'{"x": NaN}'),
    ("nesting 100 000 deep", b"[" * 100_000 + b"]" * 100_000),
    ("a 200 000-digit number", b'{"n": ' + b"9" * 200_000 + b"}"),
    ("an exponent of 999999", b'{"n": 1e999999}'),
    ("empty", b""),
    ("a list", b"[]"),
    ("truncated", b'{"items": [{"id": "X", "value": "1'),
]


@pytest.mark.parametrize("i", range(len(CLI_INPUTS)), ids=[c[0] for c in CLI_INPUTS])
def test_the_real_cli_refuses_hostile_bytes_with_exit_2(i: int) -> None:
    kinds = sorted(COMPUTE_KINDS)
    kind = kinds[i % len(kinds)]
    name, raw = CLI_INPUTS[i]
    proc = subprocess.run([PY, "-m", "valuation", "compute", kind, "--input", "-"], input=raw,
                          capture_output=True, timeout=60)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2, (name, proc.returncode, err)
    assert proc.stdout == b"" and err.strip() and "Traceback" not in err
    FUZZ.count(f"cli:{kind}", outcome="refused")


@pytest.mark.parametrize("kind", sorted(COMPUTE_KINDS))
def test_the_real_cli_on_mutated_documents(kind: str) -> None:
    seeds = COMPUTE_SEEDS.get(kind) or [{}]

    @fuzz_settings(1)
    @given(doc=mutated(seeds, _keys(seeds)))
    def prop(doc: Any) -> None:
        _cli_case(kind, doc)

    prop()
    _cli_case(kind, _deep(seeds[0], 500))


def _to_json(doc: Any) -> str:
    """JSON text with Decimals written as JSON numbers (the CLI reads them back as Decimal)."""
    text = json.dumps(doc, default=lambda d: f"\x00{d}\x00" if isinstance(d, Decimal) else str(d))
    return re.sub(r'"\\u0000([^"\\]*)\\u0000"', r"\1", text)


def _cli_case(kind: str, doc: Any) -> None:
    proc = subprocess.run([PY, "-m", "valuation", "compute", kind, "--input", "-"], input=_to_json(doc),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode in (0, 2), (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    if proc.returncode == 0:
        json.loads(proc.stdout)
    else:
        assert proc.stdout == "" and proc.stderr.strip()
    FUZZ.count(f"cli:{kind}", outcome="accepted" if proc.returncode == 0 else "refused")


# -- importers: every valuation.importing function taking (data, file_name) --------------------------
PARSERS = {key.rsplit(".", 2)[-2] + "." + key.rsplit(".", 1)[-1]: fn for key, fn in functions(
    lambda name, ps: len(ps) >= 2 and [p.name for p in ps[:2]] == ["data", "file_name"]).items()}


def _plausible(column: str) -> str:
    c = column.lower()
    if "date" in c or c.endswith("_on") or c.startswith("data"):
        return "02/01/2025"
    if c in ("quantity", "quantidade", "significancia", "significance"):
        return "2"
    if any(w in c for w in ("weight", "depth", "valor", "value", "amount", "peso")):
        return "1.234,50"
    if "code" in c or "codigo" in c:
        return "A1-001"
    if "moeda" in c or "currency" in c:
        return "BRL"
    return "texto"


def _csv_seeds(fn: Callable[..., Any]) -> list[list[list[str]]]:
    """Tables (rows of cells) that the parser's module itself describes: its template
    functions, and its column-name tuples with a plausible row under them."""
    mod = sys.modules[fn.__module__]
    tables: list[list[list[str]]] = []
    for name, obj in vars(mod).items():
        if name.startswith("template") and callable(obj) and not inspect.signature(obj).parameters:
            text = obj().decode("utf-8-sig")
            tables.append([line.split(";") for line in text.splitlines() if line])
    for name, obj in vars(mod).items():
        if name.isupper() and isinstance(obj, tuple) and obj and all(isinstance(c, str) for c in obj) and \
                ("COLUMNS" in name or name == "FIELDS"):
            tables.append([list(obj), [_plausible(c) for c in obj], [_plausible(c) for c in obj]])
    return tables or [[["a", "b"], ["1", "2"]]]


FILE_NAMES = ["itens.csv", "ITENS.CSV", "itens.xlsx", "itens.txt", "itens", "../../x.csv", "a" * 300 + ".csv",
              "itens.csv.exe", "ñandú.csv", ""]


@st.composite
def csv_bytes(draw: Any, tables: list[list[list[str]]]) -> tuple[bytes, str]:
    table = copy.deepcopy(draw(st.sampled_from(tables)))
    for _ in range(draw(st.integers(1, 4))):
        r = draw(st.integers(0, len(table) - 1))
        op = draw(st.sampled_from(("cell", "cell", "cell", "drop_cell", "add_cell", "drop_row", "dup_rows")))
        row = table[r]
        if op == "cell" and row:
            row[draw(st.integers(0, len(row) - 1))] = draw(st.sampled_from(HOSTILE_STRINGS) | st.text(max_size=30))
        elif op == "drop_cell" and row:
            row.pop(draw(st.integers(0, len(row) - 1)))
        elif op == "add_cell":
            row.append(draw(st.text(max_size=10)))
        elif op == "drop_row" and len(table) > 1:
            table.pop(r)
        elif op == "dup_rows":
            table.extend(copy.deepcopy(table[1:]) * draw(st.integers(1, 20)))
    sep = draw(st.sampled_from([";", ";", ",", "\t", "|"]))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = end.join(sep.join(row) for row in table)
    if draw(st.booleans()):
        text = text.replace('"', "", 1) + '"' if draw(st.booleans()) else '"' + text
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16", "cp1252"]))
    data = text.encode(encoding, errors="replace")
    if draw(st.integers(0, 5)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return data, draw(st.sampled_from(FILE_NAMES[:2] + FILE_NAMES[3:]))


def _xlsx(rows: list[list[Any]]) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    for row in rows:
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _parser_kwargs(fn: Callable[..., Any]) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for p in list(inspect.signature(fn).parameters.values())[2:]:
        if p.default is inspect.Parameter.empty:
            if p.name == "today":
                kwargs["today"] = TODAY
            else:
                pytest.skip(f"cannot fill the required parameter {p.name}")
    return kwargs


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_importers_answer_or_refuse_clearly(name: str) -> None:
    fn = PARSERS[name]
    kwargs = _parser_kwargs(fn)
    tables = _csv_seeds(fn)

    @fuzz_settings(N_IMPORTER)
    @given(case=st.one_of(csv_bytes(tables), csv_bytes(tables),
                          st.tuples(st.binary(max_size=3000), st.sampled_from(FILE_NAMES))))
    def prop(case: tuple[bytes, str]) -> None:
        data, file_name = case
        outcome, _ = _outcome(lambda: fn(data, file_name, **kwargs))
        FUZZ.count(f"importer:{name}", outcome=outcome)

    prop()


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_importers_on_hostile_spreadsheets(name: str) -> None:
    fn = PARSERS[name]
    kwargs = _parser_kwargs(fn)
    tables = _csv_seeds(fn)
    cell = st.one_of(scalars().filter(lambda v: not isinstance(v, (int, Decimal)) or abs(v) < 10**15),
                     st.dates(), st.datetimes())

    @fuzz_settings(N_SPREADSHEET)
    @given(table=st.sampled_from(tables), cells=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 12), cell),
                                                         max_size=8))
    def prop(table: list[list[str]], cells: list[tuple[int, int, Any]]) -> None:
        rows: list[list[Any]] = [list(r) for r in table]
        for r, c, v in cells:
            while len(rows) <= r:
                rows.append([])
            while len(rows[r]) <= c:
                rows[r].append(None)
            rows[r][c] = v.replace("\x00", "") if isinstance(v, str) else v
        try:
            data = _xlsx(rows)
        except Exception:          # openpyxl refuses some characters: not our parser's input
            return
        outcome, _ = _outcome(lambda: fn(data, "planilha.xlsx", **kwargs))
        FUZZ.count(f"importer:{name}:xlsx", outcome=outcome)

    prop()


# -- hostile XLSX archives: bombs, lying headers, climbing names, encryption, foreign compression … -------
_MB = 1024 * 1024
ARCHIVE_OPS = ("truncate", "flip", "bomb", "lying_size", "traversal", "nested_zip", "long_cell", "huge_ref",
               "encrypted", "lzma", "duplicate", "drop_part", "entities", "many_parts", "empty_zip", "not_xml")
_LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
           + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                      for i in range(1, 10))
           + b']><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1">'
           b"<si><t>&lol9;</t></si></sst>")


@functools.lru_cache(maxsize=64)
def _base_xlsx(table: tuple[tuple[str, ...], ...]) -> bytes:
    return _xlsx([list(r) for r in table])


def _parts(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()]


def _zip(parts: list[tuple[str, bytes]], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # duplicate names are the point of one case
        with zipfile.ZipFile(buf, "w", method) as z:
            for name, body in parts:
                z.writestr(name, body)
    return buf.getvalue()


def _patch_headers(data: bytes, patch: Callable[[bytearray, int, bool], None]) -> bytes:
    """Apply `patch(buffer, offset, central)` to every local (PK\\3\\4) and central (PK\\1\\2) header."""
    b = bytearray(data)
    for sig, central in ((b"PK\x03\x04", False), (b"PK\x01\x02", True)):
        at = b.find(sig)
        while at >= 0:
            patch(b, at, central)
            at = b.find(sig, at + 4)
    return bytes(b)


@st.composite
def hostile_archives(draw: Any, tables: list[list[list[str]]]) -> tuple[bytes, str]:
    table = draw(st.sampled_from(tables))
    base = _base_xlsx(tuple(tuple(str(c) for c in r) for r in table))
    parts = _parts(base)
    sheet = next((i for i, (n, _) in enumerate(parts) if n.startswith("xl/worksheets/")), 0)
    op = draw(st.sampled_from(ARCHIVE_OPS))
    if op == "truncate":
        data = base[: draw(st.integers(0, len(base) - 1))]
    elif op == "flip":
        b = bytearray(base)
        for _ in range(draw(st.integers(1, 8))):
            b[draw(st.integers(0, len(b) - 1))] ^= draw(st.integers(1, 255))
        data = bytes(b)
    elif op == "bomb":
        name = draw(st.sampled_from(["xl/sharedStrings.xml", parts[sheet][0], "xl/styles.xml", "docProps/x.bin"]))
        body = b"<si><t>" + b"A" * draw(st.sampled_from([int(1.5 * _MB), 3 * _MB])) + b"</t></si>"
        data = _zip([(n, d) for n, d in parts if n != name] + [(name, body)])
    elif op == "lying_size":
        size = draw(st.sampled_from([0, 1, 2**31 - 1, 2**32 - 1, 7]))
        data = _patch_headers(base, lambda b, at, central: struct.pack_into("<I", b, at + (24 if central else 22),
                                                                              size))
    elif op == "traversal":
        name = draw(st.sampled_from(["../../../tmp/evil.xml", "/etc/passwd", "xl/../../x.xml", "C:\\x.xml"]))
        data = _zip(parts + [(name, b"<x/>")])
    elif op == "nested_zip":
        data = _zip([(n, base if i == sheet else d) for i, (n, d) in enumerate(parts)])
    elif op == "long_cell":
        data = _base_xlsx(tuple(tuple(str(c) for c in r) for r in table) + (("Z" * 4_100,),))
    elif op == "huge_ref":
        ref = draw(st.sampled_from([b"XFD1", b"A9999999", b"ZZZZ1", b"A0"]))
        data = _zip([(n, re.sub(rb'r="A1"', b'r="' + ref + b'"', d, count=1) if i == sheet else d)
                     for i, (n, d) in enumerate(parts)])
    elif op == "encrypted":
        data = _patch_headers(base, lambda b, at, central: struct.pack_into(
            "<H", b, at + (8 if central else 6), struct.unpack_from("<H", b, at + (8 if central else 6))[0] | 1))
    elif op == "lzma":
        data = _zip(parts, draw(st.sampled_from([zipfile.ZIP_LZMA, zipfile.ZIP_BZIP2, zipfile.ZIP_STORED])))
    elif op == "duplicate":
        data = _zip(parts + [parts[sheet]])
    elif op == "drop_part":
        drop = draw(st.integers(0, len(parts) - 1))
        data = _zip([p for i, p in enumerate(parts) if i != drop])
    elif op == "entities":
        data = _zip([(n, d) for n, d in parts if n != "xl/sharedStrings.xml"] + [("xl/sharedStrings.xml", _LAUGHS)])
    elif op == "many_parts":
        data = _zip(parts + [(f"xl/media/p{i}.bin", b"x") for i in range(draw(st.integers(50, 400)))])
    elif op == "empty_zip":
        data = _zip([])
    else:
        data = _zip([(n, draw(st.binary(max_size=200)) if i == sheet else d) for i, (n, d) in enumerate(parts)])
    return data, draw(st.sampled_from(["planilha.xlsx", "PLANILHA.XLSX", "planilha.xlsm", "planilha.csv"]))


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_importers_on_hostile_archives(name: str) -> None:
    fn = PARSERS[name]
    kwargs = _parser_kwargs(fn)
    tables = _csv_seeds(fn)

    @fuzz_settings(N_ARCHIVE)
    @given(case=hostile_archives(tables))
    def prop(case: tuple[bytes, str]) -> None:
        data, file_name = case
        outcome, _ = _outcome(lambda: fn(data, file_name, **kwargs))
        FUZZ.count(f"importer:{name}:archive", outcome=outcome)

    prop()


# -- the store: nothing written when a form or an import is refused ------------------------------------
def snapshot(store: Any) -> dict[str, Any]:
    """Row count of every table, plus the audit chain's head."""
    tables = [r["table_name"] for r in store.fetch(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name")]
    counted = store.fetch(" UNION ALL ".join(f"SELECT '{t}' AS t, count(*) AS n FROM \"{t}\"" for t in tables))
    counts = {r["t"]: r["n"] for r in counted}   # one UNION ALL: 2.5 times cheaper than 60 scalar subqueries
    head = store.fetch_one("SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1")
    return {"counts": counts, "head": head}


def _store_functions(match: Callable[[list[inspect.Parameter]], bool]) -> dict[str, Callable[..., Any]]:
    return store_functions(lambda rest: len(rest) >= 1 and match(rest))


FORM_FUNCTIONS = _store_functions(lambda rest: [p.name for p in rest[:1]] == ["data"] and
                                  "Mapping" in str(rest[0].annotation) and
                                  all(p.default is not inspect.Parameter.empty for p in rest[1:]))
BYTES_IMPORTS = _store_functions(lambda rest: "data" in [p.name for p in rest] and "file_name" in [p.name for p in rest]
                                 and "bytes" in str(next(p for p in rest if p.name == "data").annotation))

GOOD_FORMS: dict[str, list[dict[str, Any]]] = {
    "create_wreck": [{
        "code": "NAU-2001-09", "name": "Rebocador Netuno", "hull_material": "aço", "casualty_year": 2001,
        "casualty_month": 3, "casualty_day": 14, "casualty_type": "naufrágio", "lat_deg": 23, "lat_min": 1.05,
        "lat_hem": "S", "lon_deg": 43, "lon_min": "12,30", "lon_hem": "W", "datum": "wgs84", "depth_m": 18.5,
        "office_code": "CPRJ", "situation": "soçobrada"}],
    "create_organisation": [{
        "name": "Épsilon Ltda", "cnpj": "33.000.167/0001-01", "nationality": "brasileira", "address": "Rua C",
        "city": "Santos", "state": "SP", "representative_name": "Zé", "registered_on": "2024-01-01",
        "representative_cpf": "529.982.247-25", "email": "contato@epsilon.com.br"}],
    "create_owner": [{"name": "Dono", "doc_kind": "CPF", "doc_number": "529.982.247-25",
                             "nationality": "brasileira", "whereabouts_known": True, "address": "Rua A, 1"}],
    "create_user": [{"username": "novo.user", "full_name": "Novo", "role": "explorer", "organisation_id": 1,
                           "password": "senha-longa-123", "email": "novo@example.com"}],
    "add_local_holiday": [{"office_code": "CPRJ", "day": "2025-11-21", "name": "Feriado municipal"}],
    "add_calendar_record": [{"scope": "BR", "kind": "closed", "day": "2025-06-20", "name": "Ponto facultativo",
                             "source": "Portaria MGI nº 9.783/2024"}],
    "record_event": [{"kind": "relatório_mensal_entregue", "contract_code": "A-1",
                                      "event_date": "2025-04-05", "reference": "2025-03"}],
}


def _fields_of(fn: Callable[..., Any]) -> list[str]:
    mod = sys.modules[fn.__module__]
    return sorted({f for name, obj in vars(mod).items() if name.endswith("FIELDS") and isinstance(obj, tuple)
                   for f in obj if isinstance(f, str)})


def _acting_user(world: Any, call: Callable[[Any], Any]) -> Any:
    """The first principal the function does not refuse outright (so that validation is reached)."""
    for key in ("dpc", "admin", "commission_president", "commission", "explorer_a"):
        before = snapshot(world.store)
        try:
            call(world.principal(key))
        except AccessDenied:
            continue
        except ValuationError:
            assert snapshot(world.store) == before
            return world.principal(key)
        return world.principal(key)
    pytest.skip("every role is refused")


@pytest.mark.parametrize("name", sorted(FORM_FUNCTIONS))
def test_store_forms_refuse_clearly_and_write_nothing(small_world: Any, name: str) -> None:
    fn = FORM_FUNCTIONS[name]
    world = small_world
    user = _acting_user(world, lambda u: fn(world.store, u, {}))
    seeds = GOOD_FORMS.get(name.split(".")[-1]) or [{f: "texto" for f in _fields_of(fn)}]
    keys = _fields_of(fn) or _keys(seeds)

    key = st.sampled_from(keys) if keys else st.text()
    state = {"now": snapshot(world.store)}   # nothing writes between examples: one's after is the next's before

    @fuzz_settings(N_FORM)
    @given(data=st.one_of(mutated(seeds, keys, True), mutated(seeds, keys, True),
                          st.dictionaries(key, json_like(keys, forms_safe=True), max_size=8),
                          st.dictionaries(key, scalars(forms_safe=True), max_size=8)
                          ).filter(lambda d: isinstance(d, dict)))
    def prop(data: Any) -> None:
        before = state["now"]
        outcome, _ = _outcome(lambda: fn(world.store, user, copy.deepcopy(data)))
        after = state["now"] = snapshot(world.store)
        if outcome == "accepted":
            assert after["counts"]["audit_log"] > before["counts"]["audit_log"], "an accepted write is audited"
        else:
            assert after == before, "a refused write wrote something"
        FUZZ.count(f"form:{name}", outcome=outcome)

    prop()


def _import_args(world: Any, fn: Callable[..., Any], user: Any) -> dict[str, Any] | None:
    """Values for the other required parameters of a store importer, by name."""
    values: dict[str, Any] = {"contract_code": "A-1", "today": TODAY}
    out: dict[str, Any] = {}
    for p in list(inspect.signature(fn).parameters.values())[2:]:
        if p.name in ("data", "file_name") or p.default is not inspect.Parameter.empty:
            continue
        if p.name == "round_id":
            from valuation.commission.rounds import open_round

            out["round_id"] = open_round(world.store, world.principal("commission_president"), "A-1").id
        elif p.name in values:
            out[p.name] = values[p.name]
        else:
            return None
    return out


@pytest.mark.parametrize("name", sorted(BYTES_IMPORTS))
def test_store_imports_refuse_clearly_and_write_nothing(small_world: Any, name: str) -> None:
    fn = BYTES_IMPORTS[name]
    world = small_world
    args = _import_args(world, fn, None)
    if args is None:
        pytest.skip(f"{name}: a required parameter this test cannot fill")
    user = _acting_user(world, lambda u: fn(world.store, u, data=b"", file_name="x.csv", **args))
    parser_mod = sys.modules[fn.__module__]
    tables = [t for f in PARSERS.values() for t in _csv_seeds(f)] or [[["a"], ["1"]]]
    del parser_mod
    state = {"now": snapshot(world.store)}   # nothing writes between examples: one's after is the next's before

    @fuzz_settings(N_STORE_IMPORT)
    @given(case=st.one_of(csv_bytes(tables), st.tuples(st.binary(max_size=2000), st.sampled_from(FILE_NAMES)),
                          hostile_archives(tables)))
    def prop(case: tuple[bytes, str]) -> None:
        data, file_name = case
        before = state["now"]
        outcome, _ = _outcome(lambda: fn(world.store, user, data=data, file_name=file_name, **args))
        after = state["now"] = snapshot(world.store)
        if outcome == "accepted":
            assert after["counts"]["audit_log"] > before["counts"]["audit_log"]
        else:
            assert after == before, "a refused import wrote something"
        FUZZ.count(f"store-import:{name}", outcome=outcome)

    prop()


# -- valuation.core.forms: every accessor, any value -----------------------------------------------------------
ACCESSORS = [name for name, fn in inspect.getmembers(forms.Form, inspect.isfunction)
             if not name.startswith("_") and name not in ("fail", "ok", "done", "has")]


def _accessor_args(name: str) -> dict[str, Any]:
    params = inspect.signature(getattr(forms.Form, name)).parameters
    args: dict[str, Any] = {}
    for p in list(params.values())[1:]:
        if p.default is not inspect.Parameter.empty or p.kind is p.VAR_KEYWORD or p.kind is p.VAR_POSITIONAL:
            continue
        args[p.name] = {"key": "campo", "label": "Campo", "options": ("a", "b", "ç")}.get(p.name, "x")
    if "label" in params:
        args["label"] = "Campo"
    return args


@fuzz_settings(N_ACCESSOR)
@given(name=st.sampled_from(ACCESSORS), value=scalars(forms_safe=True) | json_like([], forms_safe=True),
       required=st.booleans())
def test_form_accessors_record_problems_and_never_raise(name: str, value: Any, required: bool) -> None:
    f = forms.Form({"campo": value}, allowed=("campo",))
    args = _accessor_args(name)
    if "required" in inspect.signature(getattr(forms.Form, name)).parameters:
        args["required"] = required
    result = getattr(f, name)(**args)
    if f.problems:
        default = inspect.signature(getattr(forms.Form, name)).parameters.get("default")
        assert result is None or (default is not None and result == default.default), result
        for p in f.problems:
            assert p.path == "campo" and p.message.startswith("Campo"), p
        with pytest.raises(InputError):
            f.done()
        FUZZ.count("forms:Form", outcome="refused")
    else:
        f.done()
        FUZZ.count("forms:Form", outcome="accepted")


def test_a_form_that_is_not_a_mapping_is_a_problem_not_a_crash() -> None:
    for data in (None, [], "texto", 3, [("a", 1)]):
        f = forms.Form(data, allowed=("a",))   # type: ignore[arg-type]
        with pytest.raises(InputError):
            f.done()
        FUZZ.count("forms:Form", outcome="refused")


ISSUE_BOUND = 10_000      # issue 14: generated inputs per CI run, at least


def test_the_planned_inputs_reach_the_issue_bound() -> None:
    """The properties' example counts over the targets discovered reach the bound on their own (the pinned
    cases, the CLI's and the single-line fields' come on top); hypothesis may stop a property early when its
    inputs run out, which the printed total would show."""
    planned = (N_COMPUTE * len(COMPUTE_KINDS) + N_ACCESSOR + (N_IMPORTER + N_SPREADSHEET + N_ARCHIVE) * len(PARSERS)
               + N_FORM * len(FORM_FUNCTIONS) + N_STORE_IMPORT * len(BYTES_IMPORTS) + N_HOST + N_BUDGET
               + N_SHEET_PARTS)
    assert planned >= ISSUE_BOUND, planned


def test_discovery_found_the_pieces_that_exist_today() -> None:
    """Guard against a discovery rule that silently stops matching."""
    assert {"consensus", "selection", "partition", "deadline", "domain-status"} <= set(COMPUTE_KINDS)
    assert {"importer.parse_items", "sheet_import.parse_sheet"} <= set(PARSERS)
    assert {"registry.wrecks.create_wreck", "registry.organisations.create_organisation",
            "registry.owners.create_owner", "accounts.users.create_user"} <= set(FORM_FUNCTIONS)
    assert len(ACCESSORS) >= 6
    assert all(isinstance(v, Mapping) or v == {} for seeds in GOOD_FORMS.values() for v in seeds)


# -- findings, pinned: each was found by the properties above ---------------------------------------------
# Defects found by this file in other modules, pinned as strict xfails: when one is fixed the test
# XPASSes, fails, and its entry here is to be removed.
KNOWN_DEFECTS: dict[tuple[str, str], str] = {}


def _known(test: str) -> list[Any]:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DEFECTS[(test, n)]))
            if (test, n) in KNOWN_DEFECTS else n for n in sorted(FORM_FUNCTIONS)]


@pytest.mark.parametrize("name", _known("no_mapping"))
def test_a_form_given_no_mapping_is_refused_plainly(small_world: Any, name: str) -> None:
    fn = FORM_FUNCTIONS[name]
    user = _acting_user(small_world, lambda u: fn(small_world.store, u, {}))
    for data in (None, [], "texto", 7):
        before = snapshot(small_world.store)
        outcome, _ = _outcome(lambda data=data: fn(small_world.store, user, data))
        assert outcome != "accepted" and snapshot(small_world.store) == before
        FUZZ.count(f"form:{name}", outcome=outcome)


LONG = "Z" * 5000


@pytest.mark.parametrize("name", _known("excerpt"))
def test_a_refusal_quotes_at_most_an_excerpt_of_a_huge_value(small_world: Any, name: str) -> None:
    """A 5 000-character value in any field: the message says what is wrong without echoing it whole."""
    fn = FORM_FUNCTIONS[name]
    user = _acting_user(small_world, lambda u: fn(small_world.store, u, {}))
    seed = (GOOD_FORMS.get(name.split(".")[-1]) or [{}])[0]
    longest: dict[str, int] = {}
    for field in _fields_of(fn) or list(seed):
        try:
            fn(small_world.store, user, {**seed, field: LONG})
        except InputError as exc:
            for p in exc.problems:
                longest[p.path] = max(longest.get(p.path, 0), len(p.message))
        except ValuationError:
            pass
        FUZZ.count(f"form:{name}", outcome="refused")
    assert {k: n for k, n in longest.items() if n > 600} == {}


@pytest.mark.parametrize("value", ["1e400", "1" * 30, 10**27])
def test_form_decimal_with_more_digits_than_the_context_is_a_problem(value: Any) -> None:
    f = forms.Form({"campo": value}, allowed=("campo",))
    assert f.decimal("campo", "Campo", minimum=Decimal(0)) is None
    assert f.problems and f.problems[0].message.startswith("Campo")


def test_form_integer_beyond_bigint_is_a_problem() -> None:
    f = forms.Form({"campo": Decimal("1E+30")}, allowed=("campo",))
    assert f.integer("campo", "Campo") is None and f.problems


def test_form_integer_with_thousands_of_digits_is_a_problem() -> None:
    f = forms.Form({"campo": "9" * 5000}, allowed=("campo",))
    assert f.integer("campo", "Campo") is None and f.problems


def test_the_cli_message_for_an_overlong_number_names_no_python_internals() -> None:
    proc = subprocess.run([PY, "-m", "valuation", "compute", sorted(COMPUTE_KINDS)[0], "--input", "-"],
                          input='{"n": ' + "9" * 5000 + "}", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "sys." not in proc.stderr, proc.stderr


# -- issue 24: Host headers, upload budgets, declared sheets (the campaign's new angles) ------------------
N_HOST = 600             # generated Host header values
N_BUDGET = 200           # generated uploads (declared image sizes) against the pixel budget
N_SHEET_PARTS = 40       # generated workbook layouts (where the sheet lies, how it is declared)
_NAMES = ("127.0.0.1", "localhost", "::1", "valuation.dpc.example")


@fuzz_settings(N_HOST)
@given(host=st.one_of(
    st.text(max_size=60),
    st.builds(lambda a, b: a + b, st.sampled_from(list(_NAMES) + ["[::1]", "127.0.0.1:8501"]), st.text(max_size=20)),
    st.builds(lambda a, b: a + b, st.text(max_size=20), st.sampled_from(list(_NAMES)))))
def test_a_generated_host_is_allowed_only_when_it_names_the_service(host: str) -> None:
    from service.hosts import host_allowed, hostname

    allowed = host_allowed(host, _NAMES)
    name = hostname(host)
    assert allowed == (name in _NAMES)
    if allowed:        # a bare name or bracketed address, with a port at most: nothing else rides along
        assert re.fullmatch(r"(\[::1\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?", host), host
    FUZZ.count("host_header", outcome="accepted" if allowed else "refused")


@fuzz_settings(N_BUDGET)
@given(sizes=st.lists(st.tuples(st.integers(1, 20_000), st.integers(1, 20_000)), min_size=1, max_size=40),
       spent=st.integers(0, 3_000_000_000))
def test_a_generated_upload_is_charged_exactly_its_declared_pixels(sizes: list[tuple[int, int]], spent: int) -> None:
    from valuation.attachments import budget

    ledger = budget.Ledger(clock=lambda: 0.0)
    key = ("db", "exp.alfa")
    if spent:
        ledger._spent[key] = __import__("collections").deque([(0.0, spent)])
    pixels = sum(w * h for w, h in sizes)
    fits = pixels <= budget.MAX_UPLOAD_PIXELS and spent + pixels <= budget.MAX_HOURLY_PIXELS
    try:
        ledger.charge(key, pixels, file_name="fotos.zip")
    except InputError as exc:
        assert not fits and "Nenhuma imagem foi processada" in str(exc)
        assert ledger.spent(key) == spent                       # a refusal spends nothing
        FUZZ.count("upload_budget", outcome="refused")
    else:
        assert fits and ledger.spent(key) == spent + pixels
        FUZZ.count("upload_budget", outcome="accepted")


@fuzz_settings(N_SHEET_PARTS)
@given(folder=st.sampled_from(["xl/worksheets", "xl/data", "dados", "xl/worksheets/../outra", "XL/Planilhas"]),
       stem=st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True), override=st.booleans(),
       cells=st.integers(1_001, 1_400))
def test_a_generated_sheet_layout_never_escapes_the_cell_bound(folder: str, stem: str, override: bool,
                                                               cells: int) -> None:
    import posixpath

    from tests.importing.test_xlsx_limits import GOOD, _sheet_xml, workbook
    from valuation.importing import limits
    from valuation.importing.tabular import read_table

    part = posixpath.normpath(f"{folder}/{stem}.xml")
    rows = cells // 10
    data = workbook([("Itens", part, _sheet_xml(GOOD, rows, 10))], override=override)
    saved = limits.MAX_CELLS
    limits.MAX_CELLS = 1_000
    try:
        with pytest.raises(InputError):
            read_table(data, "itens.xlsx")
    finally:
        limits.MAX_CELLS = saved
    FUZZ.count("xlsx_declared_parts", outcome="refused")


# -- issue 45, item 12: control and separator characters in every single-line field of the store's forms ----------
LINE_BREAKERS = ("\r\n", "\n", "\u2028", "\u2029", "\x00", "\x1b", "\u200b", "\u202e", "\x85")


@pytest.mark.parametrize("name", sorted(GOOD_FORMS))
def test_a_line_breaker_in_any_text_field_of_a_form_is_refused_by_that_field(small_world: Any, name: str) -> None:
    """Every text field of the seeded store forms (names, codes, addresses, e-mails, choices, dates typed as
    text; a password is a secret, not a text): the seed with CR/LF, U+2028/U+2029, NUL, ESC, a zero-width
    space, a right-to-left override or NEL inside one field is refused naming that field, nothing written."""
    fn = next(f for key, f in FORM_FUNCTIONS.items() if key.split(".")[-1] == name)
    world = small_world
    seed = GOOD_FORMS[name][0]
    user = _acting_user(world, lambda u: fn(world.store, u, {}))
    before = snapshot(world.store)
    for field, value in seed.items():
        if not isinstance(value, str) or len(value) < 2 or field == "password":   # a secret, never shown: any
            continue                                                                # character it holds is its own
        for ch in LINE_BREAKERS:
            data = {**seed, field: value[:1] + ch + value[1:]}
            with pytest.raises(InputError) as refused:
                fn(world.store, user, data)
            assert field in {p.path for p in refused.value.problems}, (field, repr(ch), refused.value.problems)
            assert_clear(refused.value)
            FUZZ.count(f"single_line:{name}", outcome="refused")
    assert snapshot(world.store) == before
