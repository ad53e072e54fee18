"""Inventory store (issue 4): import all or nothing, refused contracts, 100 000 rows, role-scoped
browsing and summaries, exports, custody and deliveries (Lei 7.542/1986 arts. 18 and 23).

Expectations come from the fixture data (conftest: CONTRACTS, ITEMS, EXPECTED_CONTRACTS) and from
the files the tests write, never from the code under test.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXPECTED_CONTRACTS, ITEMS
from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.db.audit import verify_chain
from valuation.inventory import custody, item_import
from valuation.inventory import queries as inv

TODAY = date(2026, 11, 30)
ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "data" / "samples"
HEADER = ["Código do item", "Descrição", "Categoria", "Material", "Quantidade", "Peso (g)", "Data de recuperação",
          "Profundidade (m)", "Lote", "Condição", "Observações"]
KEYS = ("dpc", "commission", "commission_culture", "commission_president", "explorer_a", "explorer_b", "admin")


def row(code: str, *, desc: str = "Moeda de prata de 8 reales", cat: str = "moedas", mat: str = "prata",
        qty: str = "1", weight: str = "27,05", day: str = "10/03/2026", depth: str = "12,5", lot: str = "",
        cond: str = "bom", notes: str = "") -> list[str]:
    return [code, desc, cat, mat, qty, weight, day, depth, lot, cond, notes]


def csv_file(rows: list[list[str]], *, encoding: str = "cp1252") -> bytes:
    buf = io.StringIO()
    csv.writer(buf, delimiter=";", lineterminator="\r\n").writerows([HEADER, *rows])
    return buf.getvalue().encode(encoding)


def snapshot(store) -> dict:
    """What an import or delivery could change: row counts and the audit chain's head."""
    counts = store.fetch_one("SELECT (SELECT count(*) FROM items) AS items, (SELECT count(*) FROM imports) AS imports, "
                             "(SELECT count(*) FROM item_deliveries) AS deliveries, "
                             "(SELECT count(*) FROM audit_log) AS audit")
    head = store.fetch_one("SELECT coalesce(max(id), 0) AS id FROM audit_log")
    return {**counts, "head": head["id"]}


def last_audit(store) -> dict:
    return store.fetch_one("SELECT actor, action, entity, entity_id, after_json FROM audit_log "
                           "ORDER BY id DESC LIMIT 1")


def expected_items(key: str) -> set[str]:
    return {code for contract, code, *_ in ITEMS if contract in EXPECTED_CONTRACTS[key]}


# -- import: all or nothing -------------------------------------------------------------------------
def test_good_file_goes_in_whole_with_import_record_and_audit(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    data = csv_file([row("N-1", weight="1.234,50", lot="L-7"), row("N-2", qty="12", weight="", depth=""),
                     row("N-3", desc="Canhão de bronze", cat="artilharia", mat="bronze", day="2026-03-11")])
    before = snapshot(s)
    result = item_import.import_items(s, dpc, "A-1", data, "lote 7.csv", today=TODAY)
    assert (result.rows, result.contract_code, result.items_in_contract) == (3, "A-1", 9)
    assert (result.encoding, result.separator, result.format) == ("cp1252", ";", "csv")
    after = snapshot(s)
    assert after["items"] == before["items"] + 3 and after["imports"] == before["imports"] + 1
    assert after["audit"] == before["audit"] + 1
    record = s.fetch_one("SELECT * FROM imports ORDER BY id DESC LIMIT 1")
    assert record["sha256"] == hashlib.sha256(data).hexdigest()
    assert (record["file_name"], record["row_count"], record["imported_by"], record["kind"]) == \
        ("lote 7.csv", 3, "dpc.silva", "itens")
    assert record["contract_id"] == small_world.ids["A-1"]
    rows = {r["item_code"]: r for r in s.fetch("SELECT * FROM items WHERE import_id = ?", [record["id"]])}
    assert rows["N-1"]["weight_g"] == Decimal("1234.50") and rows["N-1"]["lot"] == "L-7"
    assert rows["N-2"]["weight_g"] is None and rows["N-2"]["depth_m"] is None and rows["N-2"]["quantity"] == 12
    assert rows["N-3"]["recovered_on"] == date(2026, 3, 11) and rows["N-3"]["description"] == "Canhão de bronze"
    audit = last_audit(s)
    assert (audit["actor"], audit["action"], audit["entity"]) == ("dpc.silva", "items_imported", "contract")
    doc = json.loads(audit["after_json"])
    assert doc["rows"] == 3 and doc["sha256"] == record["sha256"] and doc["import_id"] == record["id"]
    assert verify_chain(s)[0]


def test_an_xlsx_file_imports_too(small_world, principal):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(HEADER)
    sheet.append(["X-1", "Astrolábio", "instrumentos", "bronze", 1, 3300.5, date(2026, 4, 2), 13, None, "bom", None])
    sheet.append(["X-2", "Moedas", "moedas", "prata", 40, None, date(2026, 4, 3), None, "L-1", "regular", "lote"])
    buf = io.BytesIO()
    book.save(buf)
    result = item_import.import_items(small_world.store, principal("dpc"), "B-1", buf.getvalue(), "planilha.xlsx",
                                      today=TODAY)
    assert (result.rows, result.format) == (2, "xlsx")
    got = small_world.store.fetch_one("SELECT weight_g, recovered_on, depth_m FROM items WHERE item_code = 'X-1'")
    assert got == {"weight_g": Decimal("3300.50"), "recovered_on": date(2026, 4, 2), "depth_m": Decimal("13.00")}


def _lines_that_differ(good: bytes, bad: bytes) -> list[int]:
    a, b = good.decode("cp1252").split("\r\n"), bad.decode("cp1252").split("\r\n")
    return [n for n, (x, y) in enumerate(zip(a, b), start=1) if x != y]


def test_sample_files_import_whole_or_are_refused_whole(small_world, principal):
    """Done when: the Windows-1252 ';' file with decimal commas and dd/mm/aaaa imports whole, and the
    same file with three bad rows is refused whole, each bad line named."""
    s, dpc = small_world.store, principal("dpc")
    good = (SAMPLES / "itens_galeao_santo_antonio.csv").read_bytes()
    bad = (SAMPLES / "itens_galeao_santo_antonio_com_erros.csv").read_bytes()
    good.decode("cp1252")
    with pytest.raises(UnicodeDecodeError):
        good.decode("utf-8")                      # really Windows-1252, not UTF-8
    data_lines = good.count(b"\r\n") - 1
    bad_lines = _lines_that_differ(good, bad)
    assert len(bad_lines) == 3
    before = snapshot(s)
    with pytest.raises(InputError) as info:
        item_import.import_items(s, dpc, "A-1", bad, "com_erros.csv", today=TODAY)
    named = sorted({p.line for p in info.value.problems if p.line is not None})
    assert named == bad_lines
    assert snapshot(s) == before
    result = item_import.import_items(s, dpc, "A-1", good, "itens.csv", today=TODAY)
    assert result.rows == data_lines == 200
    assert snapshot(s)["items"] == before["items"] + 200
    records = list(csv.reader(io.StringIO(good.decode("cp1252")), delimiter=";"))[1:]
    code, weight = next((r[0], r[5]) for r in records if "." in r[5])           # e.g. '8.023,32'
    stored = s.scalar("SELECT weight_g FROM items WHERE item_code = ?", [code])
    assert stored == Decimal(weight.replace(".", "").replace(",", "."))


# A corruption: (column index, bad value, column name reported).
CORRUPTIONS = [
    (4, "dois", "quantity"), (4, "0", "quantity"), (4, "-3", "quantity"), (4, "1,5", "quantity"),
    (6, "31/02/2026", "recovered_on"), (6, "01/01/2099", "recovered_on"), (6, "ontem", "recovered_on"),
    (6, "", "recovered_on"), (1, "", "description"), (9, "", "condition"), (5, "-10", "weight_g"),
    (5, "12,345", "weight_g"), (7, "fundo", "depth_m"), (0, "DUP", "item_code"),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(min_value=2, max_value=40),
       picks=st.lists(st.tuples(st.integers(min_value=1, max_value=39), st.sampled_from(CORRUPTIONS)),
                      min_size=1, max_size=6))
def test_any_bad_row_refuses_the_whole_file_and_writes_nothing(small_world, principal, size, picks):
    s, dpc = small_world.store, principal("explorer_a")
    rows = [row(f"H-{i:03d}", day=f"{1 + i % 28:02d}/0{1 + i % 9}/2026") for i in range(size)]
    rows[0][0] = "DUP"
    expected: dict[int, set[str]] = {}
    for position, (column, value, name) in picks:
        i = 1 + (position - 1) % (size - 1)         # never the first row: a duplicate is reported on the later one
        rows[i][column] = value
        expected.setdefault(i + 2, set()).add(name)  # header = line 1
    before = snapshot(s)
    with pytest.raises(InputError) as info:
        item_import.import_items(s, dpc, "A-1", csv_file(rows), "gerado.csv", today=TODAY)
    found: dict[int, set[str]] = {}
    for p in info.value.problems:
        assert p.line is not None and p.column is not None, p
        found.setdefault(p.line, set()).add(p.column)
    assert found == expected
    assert snapshot(s) == before


def test_codes_already_in_the_contract_refuse_the_file(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    before = snapshot(s)
    with pytest.raises(InputError) as info:
        item_import.import_items(s, dpc, "A-1", csv_file([row("Z-1"), row("A1-004"), row("Z-2", qty="x"),
                                                          row("A1-006")]), "x.csv", today=TODAY)
    assert [p.where for p in info.value.problems] == ["linha 3, coluna item_code", "linha 4, coluna quantity",
                                                     "linha 5, coluna item_code"]
    assert "já cadastrado" in info.value.problems[0].message
    assert snapshot(s) == before
    # the same code is free in another contract
    assert item_import.import_items(s, dpc, "B-1", csv_file([row("A1-004")]), "x.csv", today=TODAY).rows == 1


def test_codes_written_meanwhile_by_another_import_refuse_the_file(small_world, principal, monkeypatch):
    """Another import writes a code after this file was checked (here: the check is made
    blind): the UNIQUE constraint stops the write, the lines are named, nothing is kept."""
    s, dpc = small_world.store, principal("dpc")
    original = item_import._codes_taken
    monkeypatch.setattr(item_import, "_codes_taken",
                        lambda store, cid: (lambda codes: original(store, cid)(codes) & False))
    before = snapshot(s)
    with pytest.raises(InputError) as info:
        item_import.import_items(s, dpc, "A-1", csv_file([row("Z-1"), row("A1-004")]), "x.csv", today=TODAY)
    monkeypatch.setattr(item_import, "_codes_taken", original)
    assert [(p.line, p.column) for p in info.value.problems] == [(3, "item_code")]
    assert "já cadastrado" in info.value.problems[0].message
    assert snapshot(s) == before


def test_the_same_file_twice_is_refused(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    data = csv_file([row("T-1")])
    item_import.import_items(s, dpc, "A-1", data, "a.csv", today=TODAY)
    before = snapshot(s)
    with pytest.raises(InputError) as info:
        item_import.import_items(s, dpc, "A-1", data, "b.csv", today=TODAY)
    assert "já foi importado" in str(info.value) and "a.csv" in str(info.value)
    assert snapshot(s) == before


@pytest.mark.parametrize("key, contract, status, error, words", [
    ("dpc", "A-2", None, InputError, "art. 18"),                         # survey: removes nothing
    ("explorer_a", "A-2", None, InputError, "art. 18"),
    ("dpc", "A-1", "solicitado", InputError, "vigente"),
    ("dpc", "A-1", "suspenso", InputError, "vigente"),
    ("dpc", "B-1", "concluído", InputError, "vigente"),
    ("dpc", "B-1", "cancelado", InputError, "vigente"),
    ("dpc", "B-1", "expirado", InputError, "vigente"),
    ("explorer_b", "A-1", None, NotFound, "não encontrado"),              # another company's contract
    ("explorer_a", "B-1", None, NotFound, "não encontrado"),
    ("commission", "A-1", None, AccessDenied, "Acesso negado"),
    ("commission_president", "A-1", None, AccessDenied, "Acesso negado"),
    ("admin", "A-1", None, AccessDenied, "Acesso negado"),
    ("dpc", "Z-9", None, NotFound, "não encontrado"),
])
def test_imports_are_refused_outside_a_contract_in_force_of_ones_own(small_world, principal, key, contract, status,
                                                                      error, words):
    s = small_world.store
    if status:
        s.write("t", lambda tx: tx.execute("UPDATE contracts SET status = ? WHERE code = ?", [status, contract]))
    before = snapshot(s)
    with pytest.raises(error) as info:
        item_import.import_items(s, principal(key), contract, csv_file([row("R-1")]), "r.csv", today=TODAY)
    assert words in str(info.value)
    assert snapshot(s) == before


def test_an_explorer_imports_into_its_own_contract(small_world, principal):
    s = small_world.store
    result = item_import.import_items(s, principal("explorer_a"), "A-1", csv_file([row("E-1")]), "e.csv", today=TODAY)
    assert result.rows == 1
    assert s.fetch_one("SELECT imported_by FROM imports")["imported_by"] == "exp.alfa"
    assert item_import.importable_contracts(s, principal("explorer_a")) == ["A-1"]
    assert item_import.importable_contracts(s, principal("dpc")) == ["A-1", "B-1"]
    assert item_import.importable_contracts(s, principal("commission")) == []


def test_progress_goes_from_start_to_end(small_world, principal):
    seen: list[float] = []
    item_import.import_items(small_world.store, principal("dpc"), "A-1", csv_file([row(f"P-{i}") for i in range(50)]),
                     "p.csv", today=TODAY, progress=lambda f, text: seen.append(f))
    assert seen[0] <= 0.1 and seen[-1] == 1.0
    assert seen == sorted(seen)


@pytest.mark.slow
def test_a_hundred_thousand_rows_import_in_one_go(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    n = 100_000
    lines = [";".join(HEADER)] + [f"G-{i:06d};Moeda de prata nº {i};moedas;prata;{1 + i % 7};"
                                  f"{20 + i % 50},{i % 100:02d};{1 + i % 28:02d}/{1 + i % 12:02d}/2025;"
                                  f"{10 + i % 5},5;L-{i // 250};bom;" for i in range(n)]
    data = ("\r\n".join(lines) + "\r\n").encode("cp1252")
    result = item_import.import_items(s, dpc, "A-1", data, "tesouro.csv", today=TODAY)
    assert result.rows == n and result.items_in_contract == n + 6
    assert inv.count_items(s, dpc, inv.ItemFilter(contract_code="A-1")) == n + 6
    assert s.scalar("SELECT sum(quantity) FROM items WHERE import_id = ?", [result.import_id]) == \
        sum(1 + i % 7 for i in range(n))
    page = inv.page_items(s, dpc, inv.ItemFilter(contract_code="A-1", lot="L-399"), page_size=500)
    assert len(page) == 250 and set(page["item_code"]) == {f"G-{i:06d}" for i in range(399 * 250, 400 * 250)}


# -- browsing -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_browsing_is_scoped_by_role(small_world, principal, key):
    s, user = small_world.store, principal(key)
    if key == "admin":
        with pytest.raises(AccessDenied):
            inv.count_items(s, user)
        with pytest.raises(AccessDenied):
            inv.summarise(s, user)
        return
    expected = expected_items(key)
    assert inv.count_items(s, user) == len(expected)
    assert set(inv.page_items(s, user, page_size=500)["item_code"]) == expected
    assert inv.summarise(s, user).totals["items"] == len(expected)
    # naming a contract outside the scope gives nothing, never its items
    for contract in {"A-1", "B-1"} - EXPECTED_CONTRACTS[key]:
        assert inv.count_items(s, user, inv.ItemFilter(contract_code=contract)) == 0


def test_pages_cover_the_selection_once_in_order(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    seen = []
    for page in range(1, 5):
        seen += inv.page_items(s, dpc, page=page, page_size=3)["item_code"].tolist()
    assert seen == sorted(code for _, code, *_ in ITEMS)
    with pytest.raises(InputError):
        inv.page_items(s, dpc, page=0)
    with pytest.raises(InputError):
        inv.page_items(s, dpc, page_size=inv.MAX_PAGE_SIZE + 1)
    with pytest.raises(InputError):
        inv.page_items(s, dpc, order="id; DROP TABLE items")


def test_orderings_hold_across_pages(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    rows = [row(f"K-{i:02d}", day=f"{1 + (i * 7) % 28:02d}/{1 + (i * 5) % 11:02d}/2026",
                weight="" if i % 4 == 0 else f"{(i * 37) % 101},5") for i in range(30)]
    item_import.import_items(s, dpc, "B-1", csv_file(rows), "k.csv", today=TODAY)
    flt = inv.ItemFilter(contract_code="B-1")
    for order, key, reverse in (("recuperacao", "recovered_on", False), ("recuperacao_desc", "recovered_on", True),
                                ("peso_desc", "weight_g", True), ("codigo", "item_code", False)):
        got = []
        for page in range(1, 6):
            got += inv.page_items(s, dpc, flt, page=page, page_size=8, order=order).to_dict("records")
        assert len({r["item_code"] for r in got}) == 34, order
        missing = [r[key] is None or str(r[key]) == "<NA>" for r in got]
        values = [r[key] for r, gap in zip(got, missing) if not gap]
        assert values == sorted(values, reverse=reverse), order
        if order == "peso_desc":                                          # unweighed items last
            assert sum(missing) > 0 and missing == sorted(missing)


def test_filters(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    delivered = {code for _, code, *_, when in ITEMS if when is not None}
    cases = [
        (inv.ItemFilter(delivered=True), delivered),
        (inv.ItemFilter(delivered=False), {code for _, code, *_ in ITEMS} - delivered),
        (inv.ItemFilter(search="FAIANCA"), {"A1-003"}),                       # accents and case folded
        (inv.ItemFilter(category="moeda", contract_code="B-1"), {"B1-004"}),
        (inv.ItemFilter(material="bronze"), {"A1-004", "B1-001"}),
        (inv.ItemFilter(recovered_from=date(2025, 2, 11)), set()),
        (inv.ItemFilter(recovered_to=date(2025, 2, 10), contract_code="A-1"),
         {code for c, code, *_ in ITEMS if c == "A-1"}),
    ]
    for flt, expected in cases:
        assert set(inv.page_items(s, dpc, flt, page_size=500)["item_code"]) == expected, flt
        assert inv.count_items(s, dpc, flt) == len(expected), flt


def test_summary_counts_match_the_data(small_world, principal):
    s, user = small_world.store, principal("explorer_b")
    mine = [it for it in ITEMS if it[0] == "B-1"]
    summary = inv.summarise(s, user)
    assert dict(zip(summary.by_category["label"], summary.by_category["items"])) == Counter(it[3] for it in mine)
    assert dict(zip(summary.by_material["label"], summary.by_material["quantity"])) == \
        {m: sum(it[5] for it in mine if it[4] == m) for m in {it[4] for it in mine}}
    assert summary.by_month["label"].tolist() == ["2025-02"]
    assert summary.totals["delivered"] == sum(1 for it in mine if it[7] is not None)
    assert summary.totals["undelivered"] == len(mine) - summary.totals["delivered"]
    assert summary.by_value_band.empty                       # no decided values yet


def test_many_categories_fold_into_others(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    rows = [row(f"C-{i:02d}", cat=f"categoria {i:02d}") for i in range(inv.MAX_GROUPS + 5)]
    item_import.import_items(s, dpc, "A-1", csv_file(rows), "c.csv", today=TODAY)
    by_cat = inv.summarise(s, dpc).by_category
    assert len(by_cat) == inv.MAX_GROUPS + 1 and by_cat["label"].iloc[-1] == inv.OTHERS
    assert by_cat["items"].sum() == len(ITEMS) + len(rows)


def test_value_bands_and_explorers_see_published_values_only(small_world, principal):
    s, ids = small_world.store, small_world.ids
    values = {"A1-001": (Decimal("800.00"), True), "A1-004": (Decimal("2500000.00"), False),
              "A1-006": (Decimal("45000.00"), True)}
    s.write("t", lambda tx: [tx.execute(
        "INSERT INTO item_valuation VALUES (?, ?, 1, 1, true, ?, 3, false, ?)",
        [ids[code], ids["A-1"], value, published]) for code, (value, published) in values.items()])
    dpc = inv.summarise(s, principal("dpc"), inv.ItemFilter(contract_code="A-1"))
    bands = dict(zip(dpc.by_value_band["label"], dpc.by_value_band["items"]))
    assert bands == {"até R$ 1 mil": 1, "R$ 10 mil a 100 mil": 1, "acima de R$ 1 milhão": 1, inv.NO_VALUE: 3}
    assert dpc.totals["value_brl"] == Decimal("2545800.00")
    explorer = inv.summarise(s, principal("explorer_a"), inv.ItemFilter(contract_code="A-1"))
    assert explorer.totals["valued"] == 2 and explorer.totals["value_brl"] == Decimal("45800.00")
    page = inv.page_items(s, principal("explorer_a"), inv.ItemFilter(contract_code="A-1")).set_index("item_code")
    assert page.loc["A1-006", "value_brl"] == Decimal("45000.00") and str(page.loc["A1-004", "value_brl"]) == "<NA>"


def test_the_summary_by_contract_agrees_with_the_summary_over_the_items(small_world, principal):
    """`summarise` reads the decided values by their contract when the filter names no field of the items, and
    through the items otherwise: the same selection (every item recovered since 1900) gives the same summary
    either way, for the DPC (every value) and for an explorer (published values only), on one contract and on
    the whole scope."""
    s, ids = small_world.store, small_world.ids
    values = {"A1-001": (Decimal("800.00"), True), "A1-004": (Decimal("2500000.00"), False),
              "A1-006": (Decimal("45000.00"), True), "B1-001": (Decimal("12000.50"), True)}
    s.write("t", lambda tx: [tx.execute(
        "INSERT INTO item_valuation VALUES (?, ?, 1, 1, true, ?, 3, false, ?)",
        [ids[code], ids[code[0] + "-1"], value, published]) for code, (value, published) in values.items()])
    for key in ("dpc", "explorer_a", "explorer_b"):
        for contract in (None, "A-1", "B-1"):
            by_contract = inv.summarise(s, principal(key), inv.ItemFilter(contract_code=contract))
            through_items = inv.summarise(s, principal(key), inv.ItemFilter(contract_code=contract,
                                                                             recovered_from=date(1900, 1, 1)))
            assert by_contract.totals == through_items.totals, (key, contract)
            for frame in ("by_category", "by_material", "by_month", "by_value_band"):
                assert getattr(by_contract, frame).to_dict("list") == getattr(through_items, frame).to_dict("list")
    dpc = inv.summarise(s, principal("dpc"))
    assert (dpc.totals["valued"], dpc.totals["value_brl"]) == (4, Decimal("2557800.50"))
    explorer_b = inv.summarise(s, principal("explorer_b"))
    assert (explorer_b.totals["valued"], explorer_b.totals["value_brl"]) == (1, Decimal("12000.50"))


# -- exports ----------------------------------------------------------------------------------------
DANGEROUS = ["=HYPERLINK(\"http://x\")", "+55 21 99999", "-2+3", "@SUM(A1)"]


def _with_dangerous_text(s, dpc):
    rows = [row(f"F-{i}", desc=text, notes=text, lot=text) for i, text in enumerate(DANGEROUS)]
    item_import.import_items(s, dpc, "B-1", csv_file(rows), "f.csv", today=TODAY)
    return inv.ItemFilter(contract_code="B-1", search="F-")


def test_csv_export_neutralises_formulas_and_keeps_numbers(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    flt = _with_dangerous_text(s, dpc)
    text = inv.export_items(s, dpc, flt, "csv").decode("utf-8-sig")
    records = list(csv.DictReader(io.StringIO(text), delimiter=";"))
    assert len(records) == len(DANGEROUS)
    for record, original in zip(records, DANGEROUS):
        for column in ("Descrição", "Lote", "Observações"):
            assert record[column] == "'" + original
        assert record["Quantidade"] == "1" and record["Peso (g)"] == "27,05"     # numbers stay numbers
        assert record["Data de recuperação"] == "10/03/2026"


def test_xlsx_export_neutralises_formulas_and_types_cells(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    flt = _with_dangerous_text(s, dpc)
    book = openpyxl.load_workbook(io.BytesIO(inv.export_items(s, dpc, flt, "xlsx")))
    sheet = book.worksheets[0]
    header = [c.value for c in sheet[1]]
    first = dict(zip(header, [c.value for c in sheet[2]]))
    assert first["Descrição"] == "'" + DANGEROUS[0] and sheet.cell(2, header.index("Descrição") + 1).data_type == "s"
    assert first["Quantidade"] == 1 and first["Peso (g)"] == pytest.approx(27.05)
    recovered = first["Data de recuperação"]
    assert isinstance(recovered, datetime) and recovered.date() == date(2026, 3, 10)


def test_an_exported_csv_imports_again_unchanged(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    s.write("t", lambda tx: tx.execute("UPDATE items SET condition = 'bom', notes = 'ok'"))  # required by the import
    data = inv.export_items(s, dpc, inv.ItemFilter(contract_code="A-1"), "csv")
    result = item_import.import_items(s, dpc, "B-1", data, "reimport.csv", today=TODAY)
    assert result.rows == 6 and set(result.ignored_columns) == {"Contrato", "Entregue em", "Valor decidido (R$)",
                                                                "Histórico"}
    cols = "item_code, description, category, material, quantity, weight_g, recovered_on, depth_m, condition, notes"
    original = s.fetch(f"SELECT {cols} FROM items WHERE contract_id = ? ORDER BY item_code", [small_world.ids["A-1"]])
    copied = s.fetch(f"SELECT {cols} FROM items WHERE import_id = ? ORDER BY item_code", [result.import_id])
    assert copied == original


def test_exports_are_capped_per_format(small_world, principal, monkeypatch):
    s, dpc = small_world.store, principal("dpc")
    monkeypatch.setattr(inv, "XLSX_MAX_ROWS", 5)
    with pytest.raises(InputError) as info:
        inv.export_items(s, dpc, inv.ItemFilter(), "xlsx")
    assert "CSV" in str(info.value)
    assert inv.export_items(s, dpc, inv.ItemFilter(), "csv").count(b"\r\n") == len(ITEMS) + 1
    monkeypatch.setattr(inv, "CSV_MAX_ROWS", 9)
    with pytest.raises(InputError):
        inv.export_items(s, dpc, inv.ItemFilter(), "csv")
    with pytest.raises(AccessDenied):
        inv.export_items(s, principal("admin"), inv.ItemFilter(), "csv")


def test_explorer_exports_only_its_own_items(small_world, principal):
    text = inv.export_items(small_world.store, principal("explorer_b"), inv.ItemFilter(), "csv").decode("utf-8-sig")
    codes = {r["Código do item"] for r in csv.DictReader(io.StringIO(text), delimiter=";")}
    assert codes == expected_items("explorer_b")


# -- custody and delivery (art. 23) -------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_custody_is_scoped_to_dpc_and_the_explorer_concerned(small_world, principal, key):
    s, user = small_world.store, principal(key)
    if key not in ("dpc", "explorer_a", "explorer_b"):
        with pytest.raises(AccessDenied):
            custody.custody_summary(s, user, as_of=TODAY)
        with pytest.raises(AccessDenied):
            custody.undelivered_items(s, user, as_of=TODAY)
        return
    mine = [it for it in ITEMS if it[0] in EXPECTED_CONTRACTS[key]]
    undelivered = sorted(it[1] for it in mine if it[7] is None)
    summary = custody.custody_summary(s, user, as_of=TODAY)
    assert set(summary["contract_code"]) == {it[0] for it in mine}
    assert int(summary["undelivered"].sum()) == len(undelivered)
    assert sorted(custody.undelivered_items(s, user, as_of=TODAY, page_size=500)["item_code"]) == undelivered
    assert custody.count_undelivered(s, user) == len(undelivered)


def test_ages_and_bands_oldest_first(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    rows = [row("O-1", day="25/11/2026"), row("O-2", day="01/11/2026"), row("O-3", day="01/08/2026")]
    item_import.import_items(s, dpc, "B-1", csv_file(rows), "o.csv", today=TODAY)
    page = custody.undelivered_items(s, dpc, as_of=TODAY, contract_code="B-1", page_size=500)
    assert page["item_code"].tolist()[-3:] == ["O-3", "O-2", "O-1"]               # oldest first
    ages = dict(zip(page["item_code"], page["age_days"]))
    assert (ages["O-1"], ages["O-2"], ages["O-3"]) == (5, 29, 121)
    assert ages["B1-002"] == (TODAY - date(2025, 2, 10)).days
    summary = custody.custody_summary(s, dpc, as_of=TODAY).set_index("contract_code")
    b1 = summary.loc["B-1"]
    assert (b1["age_0_7"], b1["age_8_30"], b1["age_31_90"], b1["age_91_365"], b1["age_over_365"]) == (1, 1, 0, 1, 3)
    assert b1["oldest_recovered_on"] == date(2025, 2, 10) and b1["max_age_days"] == ages["B1-002"]
    assert summary["max_age_days"].tolist() == sorted(summary["max_age_days"].tolist(), reverse=True)


def _deliver(s, user, **data):
    base = {"contract_code": "A-1", "delivered_on": date(2026, 11, 20), "received_by": "CT Souza", "place": "CPBA"}
    return custody.record_deliveries(s, user, {**base, **data}, today=TODAY)


def test_delivery_of_one_item_of_a_lot_and_of_all(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    item_import.import_items(s, dpc, "A-1", csv_file([row("L-1", lot="L9"), row("L-2", lot="L9"), row("M-1")]), "l.csv",
                     today=TODAY)
    assert _deliver(s, dpc, item_codes=["A1-003"]).recorded == 1
    res = _deliver(s, dpc, lot="L9", note="Termo 12/2026")
    assert (res.recorded, res.skipped) == (2, 0)
    res = _deliver(s, dpc, all_undelivered=True, recovered_to=date(2025, 12, 31))
    assert res.recorded == 2                                       # A1-004, A1-005; M-1 was recovered in 2026
    assert custody.count_undelivered(s, dpc, contract_code="A-1") == 1
    res = _deliver(s, dpc, all_undelivered=True)
    assert (res.recorded, res.skipped) == (1, 8)
    assert custody.count_undelivered(s, dpc, contract_code="A-1") == 0
    row_ = s.fetch_one("SELECT * FROM item_deliveries d JOIN items i ON i.id = d.item_id WHERE i.item_code = 'L-2'")
    assert (row_["received_by"], row_["place"], row_["note"], row_["recorded_by"]) == \
        ("CT Souza", "CPBA", "Termo 12/2026", "dpc.silva")
    audit = last_audit(s)
    assert audit["action"] == "items_delivered" and json.loads(audit["after_json"])["items"] == 1
    recent = custody.recent_deliveries(s, dpc, contract_code="A-1")
    assert recent["items"].iloc[0] == 1 and recent["items"].tolist()[:4] == [1, 2, 2, 1]


@pytest.mark.parametrize("data, path, words", [
    ({"item_codes": ["A1-003"], "delivered_on": date(2026, 12, 1)}, "delivered_on", "futura"),
    ({"item_codes": ["A1-003"], "delivered_on": date(2025, 2, 9)}, "delivered_on", "anterior à recuperação"),
    ({"item_codes": ["A1-001"]}, "item_codes", "já entregues"),
    ({"item_codes": ["A1-999"]}, "item_codes", "não encontrados"),
    ({"lot": "NÃO-HÁ"}, "lot", "não encontrado"),
    ({"item_codes": ["A1-003"], "lot": "L"}, "item_codes", "exatamente uma"),
    ({}, "item_codes", "exatamente uma"),
    ({"item_codes": ["A1-003"], "received_by": ""}, "received_by", "obrigatório"),
    ({"item_codes": ["A1-003"], "correction": True, "note": "engano no local"}, "correction", "ainda não têm"),
    ({"item_codes": ["A1-001"], "correction": True}, "note", "obrigatório"),
])
def test_bad_deliveries_write_nothing(small_world, principal, data, path, words):
    s = small_world.store
    before = snapshot(s)
    with pytest.raises(InputError) as info:
        _deliver(s, principal("dpc"), **data)
    assert any(p.path == path and words in p.message for p in info.value.problems), info.value.problems
    assert snapshot(s) == before


@pytest.mark.parametrize("key", ["explorer_a", "commission", "admin"])
def test_only_dpc_records_deliveries(small_world, principal, key):
    before = snapshot(small_world.store)
    with pytest.raises(AccessDenied):
        _deliver(small_world.store, principal(key), item_codes=["A1-003"])
    assert snapshot(small_world.store) == before


def test_a_correction_appends_a_row_and_the_latest_counts(small_world, principal):
    s, dpc = small_world.store, principal("dpc")
    res = _deliver(s, dpc, item_codes="A1-001", delivered_on=date(2025, 2, 28), correction=True,
                   note="data errada no termo")
    assert res.recorded == 1
    history = custody.item_deliveries(s, dpc, "A-1", "A1-001")
    assert history["delivered_on"].tolist() == [date(2025, 3, 1), date(2025, 2, 28)]
    page = inv.page_items(s, dpc, inv.ItemFilter(search="A1-001")).set_index("item_code")
    assert page.loc["A1-001", "delivered_on"] == date(2025, 2, 28)
    assert last_audit(s)["action"] == "items_delivery_corrected"
