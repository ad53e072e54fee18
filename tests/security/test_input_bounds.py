"""Input bounds — the smaller defects of issue 14.8, each reproduced as the campaign found it (the others
of the list are pinned in tests/cli/test_compute_strict_input.py — `hull`, non-ASCII digits, `-0.00` —,
tests/legal/test_orders_balances_appeals_in_the_store.py — `deadlines --as-of 9999-01-01`, an event
attributed to another company, the existence oracle of `supersedes` / `organisation_id` —,
tests/importing/test_upload_limits.py — a CSV header over 131 072 characters — and
tests/core/test_money_parse.py — `1001.76,41` in a form field):

- a 32-digit amount in any compute kind was exit 1 "internal error"; it is exit 2 naming the field;
- item codes with a newline, a zero-width space, a Cyrillic look-alike letter or a decomposed accent
  were stored as distinct codes: codes are NFC, control/invisible characters and look-alikes refused;
- recovery dates in year 1 or 1500 (for a wreck lost in 1668) and a depth of 12 000 m were accepted:
  bounded by the casualty date and the deepest ocean, the message says why;
- `page=2**63` raised a raw DuckDB error from every paginated query;
- `1001.76,41` typed as a value on the Commission's override form was read as 100 176,41.
"""
from __future__ import annotations

import csv
import inspect
import io
import json
import unicodedata
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.support.db_copies import copy_database
from tests.support.package_modules import store_functions
from valuation.cli.main import main
from valuation.commission import views as cv
from valuation.core.errors import InputError, ValuationError
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.inventory import item_import as inv

EXAMPLES = Path("/work/shared/spec/examples")
TODAY = date(2026, 11, 30)
HEADER = ["Código do item", "Descrição", "Categoria", "Material", "Quantidade", "Peso (g)", "Data de recuperação",
          "Profundidade (m)", "Lote", "Condição", "Observações"]
THIRTY_TWO = "9" * 32


def items_csv(*rows: list[str]) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, delimiter=";", lineterminator="\r\n").writerows([HEADER, *rows])
    return buf.getvalue().encode("utf-8")


def item(code: str, *, day: str = "10/03/2026", depth: str = "12,5") -> list[str]:
    return [code, "Moeda de prata", "moedas", "prata", "1", "27,05", day, depth, "", "bom", ""]


def refused(world: Any, data: bytes) -> list[tuple[str, str]]:
    """Import `data` into A-1 (wreck w1, lost in 1668) as DPC, expecting a refusal that writes nothing."""
    before = world.store.scalar("SELECT count(*) FROM audit_log")
    with pytest.raises(InputError) as err:
        inv.import_items(world.store, world.principal("dpc"), "A-1", data, "itens.csv", today=TODAY)
    assert world.store.scalar("SELECT count(*) FROM audit_log") == before
    return [(p.where, p.message) for p in err.value.problems]


# -- 32-digit amounts: exit 2 naming the field ------------------------------------------------------------
AMOUNTS = [("selection", "selection-basic", ("items", 0, "value")), ("selection", "selection-basic", ("target",)),
           ("reclaim", "reclaim-basic", ("expenses",)), ("reclaim", "reclaim-basic", ("market_value",)),
           ("partition", "partition-basic", ("contract", "fixed_amount")),
           ("consensus", "consensus-basic", ("rates", 0, "brl"))]


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="public examples not available")
@pytest.mark.parametrize("kind, stem, path", AMOUNTS, ids=[f"{k}:{'.'.join(map(str, p))}" for k, _, p in AMOUNTS])
@pytest.mark.parametrize("as_number", [False, True], ids=["text", "number"])
def test_a_32_digit_amount_is_exit_2_naming_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str,
                                                      stem: str, path: tuple[Any, ...], as_number: bool) -> None:
    doc = json.loads((EXAMPLES / f"{stem}.json").read_text(encoding="utf-8"))["input"]
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = "\x00" if as_number else THIRTY_TWO + ".00"
    text = json.dumps(doc).replace('"\\u0000"', THIRTY_TWO)
    case = tmp_path / "case.json"
    case.write_text(text, encoding="utf-8")
    code = main(["compute", kind, "--input", str(case)])
    out, err = capsys.readouterr()
    field = path[0] + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:])
    assert (code, out) == (2, ""), err
    assert "internal error" not in err and "Traceback" not in err
    assert any(line.startswith(f"{field}:") for line in err.splitlines()), err


# -- item codes --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("code, why", [
    ("A1-9\n01", "controle ou invisível"),
    ("A1-9\u200b01", "controle ou invisível"),
    ("A1-9\u00a001", "controle ou invisível"),
    ("A1-9\u202e01", "controle ou invisível"),
    ("\u0410\u0031-901", "outro alfabeto"),        # Cyrillic А
    ("A1-9\u03bf1", "outro alfabeto"),             # Greek ο
    ("Ａ1-901", "outro alfabeto"),                   # full-width A
], ids=["newline", "zero-width", "nbsp", "rtl-override", "cyrillic", "greek", "full-width"])
def test_an_item_code_with_invisible_or_look_alike_characters_is_refused(small_world: Any, code: str, why: str) -> None:
    problems = refused(small_world, items_csv(item(code)))
    assert any(path.endswith("coluna item_code") and why in message for path, message in problems), problems


def test_a_decomposed_accent_is_the_same_code_as_a_composed_one(small_world: Any) -> None:
    composed, decomposed = "SÃO-1", unicodedata.normalize("NFD", "SÃO-1")
    assert composed != decomposed
    problems = refused(small_world, items_csv(item(composed), item(decomposed)))
    assert any(path.endswith("coluna item_code") and "repetido" in message for path, message in problems), problems
    inv.import_items(small_world.store, small_world.principal("dpc"), "A-1", items_csv(item(decomposed)), "a.csv",
                     today=TODAY)
    stored = small_world.store.scalar("SELECT item_code FROM items WHERE item_code LIKE 'S%O-1'")
    assert stored == composed
    problems = refused(small_world, items_csv(item(composed)))
    assert any(path.endswith("coluna item_code") and "já cadastrado" in message for path, message in problems), problems


# -- recovery dates and depth ------------------------------------------------------------------------------
@pytest.mark.parametrize("day", ["01/01/0001", "01/01/1500", "31/12/1667"])
def test_a_recovery_before_the_casualty_is_refused_saying_why(small_world: Any, day: str) -> None:
    problems = refused(small_world, items_csv(item("A1-901", day=day)))
    assert any(path.endswith("coluna recovered_on") and "sinistro" in message and "01/01/1668" in message
               for path, message in problems), problems


def test_a_recovery_on_the_casualty_year_is_accepted(small_world: Any) -> None:
    result = inv.import_items(small_world.store, small_world.principal("dpc"), "A-1",
                              items_csv(item("A1-901", day="02/01/1668")), "a.csv", today=TODAY)
    assert result.rows == 1


def test_a_casualty_known_to_its_century_bounds_recoveries_by_the_centurys_first_day(small_world: Any) -> None:
    """A wreck whose casualty the registry knows only as "século XVII" (1668, precision century) may
    have sunk on 01/01/1601: a recovery of 1650 is possible, one of 1600 is not."""
    w = small_world
    w.store.write("fixture", lambda tx: tx.execute(
        "UPDATE wrecks SET casualty_precision = 'century', casualty_month = NULL, casualty_day = NULL "
        "WHERE id = ?", [w.ids["w1"]]))
    ok = inv.import_items(w.store, w.principal("dpc"), "A-1", items_csv(item("A1-902", day="01/06/1650")), "a.csv",
                          today=TODAY)
    assert ok.rows == 1
    problems = refused(w, items_csv(item("A1-903", day="31/12/1600")))
    assert any(path.endswith("coluna recovered_on") and "01/01/1601" in message for path, message in problems), \
        problems


def test_the_parser_alone_refuses_year_1() -> None:
    from valuation.inventory.importer import parse_items

    with pytest.raises(InputError) as err:
        parse_items(items_csv(item("A1-901", day="01/01/0001")), "a.csv", today=TODAY)
    assert [p.where for p in err.value.problems] == ["linha 2, coluna recovered_on"] and "impossível" in str(err.value)


def test_a_depth_below_the_deepest_ocean_is_refused_saying_why(small_world: Any) -> None:
    problems = refused(small_world, items_csv(item("A1-901", depth="12000")))
    assert any(path.endswith("coluna depth_m") and "mais profundo dos oceanos" in message
               for path, message in problems), problems
    ok = inv.import_items(small_world.store, small_world.principal("dpc"), "A-1",
                          items_csv(item("A1-901", depth="10900")), "a.csv", today=TODAY)
    assert ok.rows == 1


# -- page=2**63 ---------------------------------------------------------------------------------------------
PAGED = store_functions(lambda rest: "page" in [p.name for p in rest])


@pytest.fixture(scope="module")
def demo(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, dict[str, Any]]]:
    """A copy of the full demo, with a real statement, round and contract to page through."""
    path = copy_database(full_demo_db, tmp_path_factory.mktemp("paging") / "demo.duckdb")
    with Store(path, migrate=False) as store:
        st = store.fetch_one("SELECT s.id, c.code FROM statements s JOIN contracts c ON c.id = s.contract_id "
                             "ORDER BY s.id LIMIT 1")
        assert st is not None
        values = {"code": st["code"], "contract_code": st["code"], "statement_id": int(st["id"]),
                  "round_id": int(store.scalar("SELECT min(id) FROM assessment_rounds"))}
        yield store, values


def _principal(store: Store, role: str) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                          "WHERE role = ? AND active ORDER BY id LIMIT 1", [role])
    assert row is not None
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"], role=row["role"],
                     organisation_id=row["organisation_id"], commission_body=row["commission_body"])


@pytest.mark.parametrize("name", sorted(PAGED))
@pytest.mark.parametrize("page", [2**63, 2**64, -1, 0])
def test_a_huge_page_number_is_a_problem_not_a_database_error(demo: tuple[Store, dict[str, Any]], name: str,
                                                              page: int) -> None:
    store, values = demo
    fn = PAGED[name]
    params = list(inspect.signature(fn).parameters.values())[2:]
    missing = [p.name for p in params if p.default is inspect.Parameter.empty and p.name not in values
               and p.name != "as_of"]
    assert not missing, f"{name}: a required parameter this test cannot fill: {missing}"
    args = {p.name: values[p.name] for p in params if p.default is inspect.Parameter.empty and p.name in values}
    if "as_of" in [p.name for p in params]:
        args["as_of"] = TODAY
    for role in ("dpc", "commission_president", "admin", "explorer"):
        try:
            fn(store, _principal(store, role), **args, page=page)
        except InputError as exc:
            assert "page" in [p.path for p in exc.problems], exc
            return
        except ValuationError:
            continue
    pytest.fail(f"{name}(page={page}) was not refused as a bad page")


def test_paged_functions_were_discovered() -> None:
    assert {"inventory.queries.page_items"} <= set(PAGED)


# -- the Commission's override value ----------------------------------------------------------------------
@pytest.mark.parametrize("typed", ["1001.76,41", "1,234.56", "12.34.567"])
def test_mixed_separators_on_the_override_form_are_refused(typed: str) -> None:
    with pytest.raises(InputError) as err:
        cv.parse_brl(typed)
    assert err.value.problems[0].path == "value_brl" and err.value.problems[0].message.startswith("Valor (R$)")


@pytest.mark.parametrize("typed, value", [("1.234,56", "1234.56"), ("1234.56", "1234.56"), ("R$ 10", "10"),
                                          ("1001,76", "1001.76")])
def test_the_override_form_reads_pt_br_amounts(typed: str, value: str) -> None:
    assert cv.parse_brl(typed) == Decimal(value)
