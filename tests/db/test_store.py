"""The DuckDB store: migrations, exact decimals, transactions, retries, bulk insert, the audit chain,
and the write functions' validation (nothing written on bad input)."""
from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import replace
from datetime import date
from decimal import Decimal

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from valuation.accounts import users
from valuation.core.errors import ConflictError, InputError, NotFound, StoreError
from valuation.db import audit
from valuation.db import store as dbmod
from valuation.db.store import Store, available_migrations
from valuation.inventory import queries as items
from valuation.inventory.queries import ItemFilter
from valuation.registry import organisations, owners, wrecks

# -- migrations ------------------------------------------------------------------------


def test_fresh_store_applies_every_shipped_migration(store):
    shipped = [m.version for m in available_migrations()]
    assert shipped and shipped[0] == 1 and shipped == sorted(shipped)
    assert store.applied_now == shipped
    rows = store.fetch("SELECT version, name, sha256 FROM schema_migrations ORDER BY version")
    assert [r["version"] for r in rows] == shipped
    assert all(len(r["sha256"]) == 64 for r in rows)
    assert store.schema_version() == shipped[-1]
    for table in ("wrecks", "contracts", "items", "users", "audit_log", "offices", "owners", "organisations"):
        assert store.has_table(table)


def test_reopening_applies_nothing(tmp_path):
    path = tmp_path / "x.duckdb"
    Store(path).close()
    with Store(path) as again:
        assert again.applied_now == []


def test_a_migration_edited_after_being_applied_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "x.duckdb"
    Store(path).close()
    real = available_migrations()
    edited = [replace(real[0], sha256="f" * 64), *real[1:]]
    monkeypatch.setattr(dbmod, "available_migrations", lambda: edited)
    with pytest.raises(StoreError, match="never edit an applied migration|Never edit an applied migration"):
        Store(path)


def test_a_database_from_a_newer_program_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "x.duckdb"
    Store(path).close()
    real = available_migrations()
    monkeypatch.setattr(dbmod, "available_migrations", lambda: real[:1])
    with pytest.raises(StoreError, match="newer version"):
        Store(path)


def test_a_failing_migration_leaves_nothing_half_applied(tmp_path, monkeypatch):
    real = available_migrations()
    broken = dbmod.Migration(999, "broken", "CREATE TABLE half_done (a INTEGER); SELEKT 1;", "0" * 64)
    monkeypatch.setattr(dbmod, "available_migrations", lambda: [*real, broken])
    path = tmp_path / "x.duckdb"
    with pytest.raises(StoreError, match="999_broken"):
        Store(path)
    monkeypatch.setattr(dbmod, "available_migrations", lambda: real)
    with Store(path) as s:  # the good migrations stayed; the broken one left no table behind
        assert not s.has_table("half_done")
        assert s.schema_version() == real[-1].version


def test_missing_file_is_not_created_when_it_must_exist(tmp_path):
    with pytest.raises(StoreError, match="db init"):
        Store(tmp_path / "absent.duckdb", must_exist=True)
    with pytest.raises(StoreError):
        Store(tmp_path / "absent.duckdb", read_only=True)
    assert not (tmp_path / "absent.duckdb").exists()


# -- reads: exact decimals -------------------------------------------------------------


def test_fetch_and_fetch_df_keep_decimals_exact(small_world):
    s = small_world.store
    rows = s.fetch("SELECT fixed_amount FROM contracts ORDER BY code")
    assert all(isinstance(r["fixed_amount"], Decimal) for r in rows)
    assert rows[0]["fixed_amount"] == Decimal("150000.10")
    df = s.fetch_df("SELECT code, fixed_amount, fixed_amount * 3 AS triple FROM contracts ORDER BY code")
    assert isinstance(df["fixed_amount"].dtype, pd.ArrowDtype)
    assert df["fixed_amount"].iloc[0] == Decimal("150000.10")
    assert isinstance(df["triple"].iloc[0], Decimal)
    assert df["triple"].iloc[0] == Decimal("450000.30")   # a float would give 450000.30000000005 or so
    total = s.scalar("SELECT sum(fixed_amount) FROM contracts")
    assert total == Decimal("450000.30")


def test_fetch_with_named_and_positional_parameters(small_world):
    s = small_world.store
    assert s.scalar("SELECT count(*) FROM wrecks WHERE office_code = ?", ["CPRJ"]) == 2
    assert s.fetch_one("SELECT code FROM wrecks WHERE code = $c", {"c": "NAU-1890-02"}) == {"code": "NAU-1890-02"}
    assert s.fetch_one("SELECT code FROM wrecks WHERE code = 'none'") is None


def test_reads_from_many_threads_at_once(small_world):
    s = small_world.store
    results: list[int] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                results.append(int(s.scalar("SELECT count(*) FROM items")))
                s.fetch_df("SELECT * FROM items")
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results == [10] * 80


# -- writes ----------------------------------------------------------------------------


def test_transaction_rolls_back_everything_on_error(small_world):
    s = small_world.store
    with pytest.raises(RuntimeError):
        with s.transaction("t") as tx:
            tx.execute("UPDATE wrecks SET name = 'changed'")
            tx.audit("update", "wreck", 1, None, {"name": "changed"})
            raise RuntimeError("boom")
    assert s.scalar("SELECT count(*) FROM wrecks WHERE name = 'changed'") == 0
    assert s.scalar("SELECT count(*) FROM audit_log") == 0


def test_write_retries_a_conflicting_transaction(small_world, monkeypatch):
    monkeypatch.setattr(dbmod, "RETRY_PAUSE_S", 0)
    s = small_world.store
    calls = []

    def fn(tx):
        calls.append(1)
        tx.execute("INSERT INTO owners (name, doc_kind, nationality, whereabouts_known) "
                   "VALUES ('X', 'desconhecido', 'x', false)")
        if len(calls) < 3:
            raise duckdb.TransactionException("TransactionContext Error: Conflict on update!")
        return "done"

    assert s.write("t", fn) == "done"
    assert len(calls) == 3
    assert s.scalar("SELECT count(*) FROM owners WHERE name = 'X'") == 1   # the failed attempts left nothing


def test_write_gives_up_with_conflict_error(small_world, monkeypatch):
    monkeypatch.setattr(dbmod, "RETRY_PAUSE_S", 0)

    def fn(tx):
        raise duckdb.TransactionException("Conflict")

    with pytest.raises(ConflictError):
        small_world.store.write("t", fn, retries=2)


def test_constraint_violation_becomes_conflict_error(small_world):
    with pytest.raises(ConflictError):
        small_world.store.write("t", lambda tx: tx.execute(
            "INSERT INTO offices (code, name, kind, state, city, naval_district) "
            "VALUES ('CPRJ', 'dup', 'CP', 'RJ', 'Rio', 1)"))


def test_a_real_write_write_conflict_between_cursors_is_retried(small_world, monkeypatch):
    """Another cursor of the same process updates the row and commits while our transaction runs."""
    monkeypatch.setattr(dbmod, "RETRY_PAUSE_S", 0)
    s = small_world.store
    other = s.cursor()
    attempts = []

    def fn(tx):
        attempts.append(1)
        tx.execute("SELECT name FROM wrecks WHERE id = 1")
        if len(attempts) == 1:
            other.execute("BEGIN TRANSACTION")
            other.execute("UPDATE wrecks SET name = 'other' WHERE id = 1")
            tx.execute("UPDATE wrecks SET name = 'mine' WHERE id = 1")   # conflicts with the open update
        else:
            tx.execute("UPDATE wrecks SET name = 'mine' WHERE id = 1")

    def fn_and_release(tx):
        try:
            return fn(tx)
        finally:
            if len(attempts) == 1:
                other.execute("COMMIT")

    s.write("t", fn_and_release)
    other.close()
    assert len(attempts) == 2
    assert s.scalar("SELECT name FROM wrecks WHERE id = 1") == "mine"


def test_nested_transaction_is_a_bug_not_a_deadlock(small_world):
    s = small_world.store
    with s.transaction("t"):
        with pytest.raises(StoreError, match="nested"):
            with s.transaction("t"):
                pass


def test_read_only_store_refuses_writes(small_world):
    small_world.store.close()
    with Store(small_world.path, read_only=True) as ro:
        assert ro.scalar("SELECT count(*) FROM wrecks") == 4
        with pytest.raises(StoreError, match="read-only"):
            ro.write("t", lambda tx: None)


def test_insert_frame_bulk_inserts_with_defaults_and_exact_decimals(small_world):
    s = small_world.store
    n = 2000
    table = pa.table({
        "contract_id": pa.array([small_world.ids["A-2"]] * n, pa.int64()),
        "item_code": [f"BULK-{i:05d}" for i in range(n)],
        "description": ["lote"] * n,
        "category": ["moeda"] * n,
        "material": ["cobre"] * n,
        "quantity": pa.array([1] * n, pa.int32()),
        "weight_g": pa.array([Decimal("0.10")] * n, pa.decimal128(12, 2)),
        "recovered_on": [date(2025, 1, 2)] * n,
    })
    assert s.write("import", lambda tx: tx.insert_frame("items", table)) == n
    assert s.scalar("SELECT sum(weight_g) FROM items WHERE item_code LIKE 'BULK-%'") == Decimal("200.00")
    ids = [r["id"] for r in s.fetch("SELECT id FROM items WHERE item_code LIKE 'BULK-%' ORDER BY id")]
    assert len(set(ids)) == n and min(ids) > small_world.ids["B1-004"]   # ids from the sequence
    with pytest.raises(StoreError):
        s.write("t", lambda tx: tx.insert_frame("items; DROP TABLE items", table))


def test_concurrent_writers_keep_the_audit_chain_linear(small_world):
    s = small_world.store

    def work(k: int) -> None:
        for j in range(10):
            s.write(f"w{k}", lambda tx, j=j: tx.audit("touch", "test", f"{k}-{j}", None, {"k": k, "j": j}))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert s.scalar("SELECT count(*) FROM audit_log") == 40
    assert audit.verify_chain(s)[0] is True


# -- audit chain -----------------------------------------------------------------------


def _audit_some(s: Store, n: int = 5) -> None:
    for i in range(n):
        s.write("ana", lambda tx, i=i: tx.audit("update", "wreck", i, {"v": Decimal("1.10")},
                                                {"v": i, "d": date(2025, 1, i + 1)}))


def test_audit_rows_are_chained_with_an_independently_computed_hash(small_world):
    s = small_world.store
    _audit_some(s, 3)
    rows = s.fetch('SELECT id, "at", actor, action, entity, entity_id, before_json, after_json, prev_hash, hash, '
                   "seals_json FROM audit_log ORDER BY id")
    assert [r["id"] for r in rows] == [1, 2, 3]
    assert rows[0]["prev_hash"] == "0" * 64
    for prev, row in zip([None, *rows], rows):
        if prev is not None:
            assert row["prev_hash"] == prev["hash"]
        payload = {k: row[k] for k in ("id", "actor", "action", "entity", "entity_id", "before_json",
                                       "after_json", "prev_hash")}
        payload["at"] = row["at"].strftime("%Y-%m-%dT%H:%M:%S.%f")
        if row["seals_json"] is not None:                   # row seals (issue 14), hashed when present
            payload["seals_json"] = row["seals_json"]
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert row["hash"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert json.loads(rows[0]["before_json"]) == {"v": "1.10"}          # Decimal kept as exact text
    assert json.loads(rows[2]["after_json"]) == {"d": "2025-01-03", "v": 2}
    assert rows[0]["actor"] == "ana" and rows[0]["entity_id"] == "0"
    assert audit.verify_chain(s) == (True, None, audit.verify_chain(s)[2])


def test_verify_chain_on_an_empty_log(store):
    ok, bad, message = audit.verify_chain(store)
    assert (ok, bad) == (True, None) and "vazio" in message


@pytest.mark.parametrize("tamper, first_bad", [
    ("UPDATE audit_log SET after_json = '{\"v\":99}' WHERE id = 3", 3),            # edited row
    ("UPDATE audit_log SET actor = 'mallory' WHERE id = 1", 1),
    ("DELETE FROM audit_log WHERE id = 2", 3),                                      # deleted row: gap
    ("DELETE FROM audit_log WHERE id = 1", 2),                                      # the first one
])
def test_verify_chain_detects_tampering(small_world, tamper, first_bad):
    s = small_world.store
    _audit_some(s, 5)
    assert audit.verify_chain(s)[0]
    s.write("mallory", lambda tx: tx.execute(tamper))
    ok, bad, message = audit.verify_chain(s)
    assert (ok, bad) == (False, first_bad)
    assert str(first_bad) in message


def test_verify_chain_detects_an_edit_that_recomputed_its_own_hash(small_world):
    s = small_world.store
    _audit_some(s, 4)
    row = s.fetch_one('SELECT id, "at", actor, action, entity, entity_id, before_json, after_json, prev_hash '
                      "FROM audit_log WHERE id = 2")
    row["after_json"] = '{"v":1000}'
    forged = audit.row_hash(row)
    s.write("mallory", lambda tx: tx.execute("UPDATE audit_log SET after_json = ?, hash = ? WHERE id = 2",
                                             [row["after_json"], forged]))
    assert audit.verify_chain(s)[:2] == (False, 3)


def test_renumbered_rows_after_a_deletion_are_detected(small_world):
    s = small_world.store
    _audit_some(s, 4)
    s.write("mallory", lambda tx: (tx.execute("DELETE FROM audit_log WHERE id = 2"),
                                   tx.execute("UPDATE audit_log SET id = id - 1 WHERE id > 2")))
    ok, bad, _ = audit.verify_chain(s)
    assert not ok and bad == 2


# -- write functions: validation, nothing written on bad input ------------------------------

GOOD_WRECK = {
    "code": "NAU-2001-09", "name": "Rebocador Netuno", "hull_material": "aço", "casualty_year": 2001,
    "casualty_month": 3, "casualty_day": 14, "casualty_type": "naufrágio",
    "lat_deg": 23, "lat_min": 1.05, "lat_hem": "S", "lon_deg": 43, "lon_min": "12,30", "lon_hem": "W",
    "datum": "wgs84", "depth_m": 18.5, "office_code": "CPRJ", "situation": "soçobrada",
}


def _counts(s: Store) -> tuple[int, int]:
    return int(s.scalar("SELECT count(*) FROM wrecks")), int(s.scalar("SELECT count(*) FROM audit_log"))


def test_create_wreck_stores_exact_minutes_and_audits_without_the_position(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    new_id = wrecks.create_wreck(s, dpc, GOOD_WRECK)
    w = wrecks.get_wreck(s, dpc, new_id)
    assert (w["lat_deg"], w["lat_min"], w["lat_hem"]) == (23, Decimal("1.05"), "S")
    assert (w["lon_deg"], w["lon_min"], w["lon_hem"]) == (43, Decimal("12.30"), "W")
    assert w["datum"] == "WGS-84" and w["casualty_precision"] == "day" and w["depth_m"] == Decimal("18.50")
    assert w["position_text"] == "23°01,05' S 43°12,30' W (WGS-84)"
    row = s.fetch_one("SELECT actor, action, entity, entity_id, after_json FROM audit_log ORDER BY id DESC LIMIT 1")
    assert (row["actor"], row["action"], row["entity"], row["entity_id"]) == \
        ("dpc.silva", "create", "wreck", str(new_id))
    after = json.loads(row["after_json"])
    assert after["name"] == "Rebocador Netuno"
    assert all(after[k] == "sigilosa" for k in ("lat_deg", "lat_min", "lon_deg", "lon_min", "datum", "depth_m"))
    assert "1.05" not in row["after_json"] and "12.30" not in row["after_json"]


def test_create_wreck_from_position_text(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    data = {k: v for k, v in GOOD_WRECK.items() if not k.startswith(("lat_", "lon_"))}
    data.update(code="NAU-2001-10", latitude="22°54,35'S", longitude="43 10.2 O", position_approximate=True)
    w = wrecks.get_wreck(s, dpc, wrecks.create_wreck(s, dpc, data))
    assert w["position"].approximate and w["lon_hem"] == "W" and w["lat_min"] == Decimal("54.35")


@pytest.mark.parametrize("change, field, fragment", [
    ({"casualty_month": 2, "casualty_day": 30}, "casualty_day", "inexistente: 30/02/2001"),
    ({"casualty_day": 5, "casualty_month": None}, "casualty_month", "informe o mês"),
    ({"casualty_year": 3000}, "casualty_year", "Ano do sinistro"),
    ({"lat_deg": 91}, "lat_deg", "Latitude: os graus"),
    ({"lat_min": 60}, "lat_min", "59,99"),
    ({"lat_min": "12.345"}, "lat_min", "centésimos"),
    ({"lat_hem": "E"}, "lat_hem", "N ou S"),
    ({"lon_deg": 181}, "lon_deg", "Longitude: os graus devem ser um número inteiro de 0 a 180"),
    ({"lon_deg": 180, "lon_min": "0.01"}, "lon_min", "com 180 graus"),
    ({"office_code": "CPXX"}, "office_code", "desconhecida: CPXX"),
    ({"casualty_type": "afundamento"}, "casualty_type", "Tipo de sinistro"),
    ({"hull_material": "papel"}, "hull_material", "Material do casco"),
    ({"datum": "NAD27"}, "datum", "Datum desconhecido"),
    ({"datum": "desconhecido"}, "datum", "posição aproximada"),
    ({"depth_m": -1}, "depth_m", "Profundidade"),
    ({"code": "NAU-1890-02"}, "code", "já existe"),
    ({"name": "  "}, "name", "obrigatório"),
    ({"casualty_precision": "month"}, "casualty_precision", "não confere"),
    ({"owner_id": 999}, "owner_id", "Responsável desconhecido"),
    ({"colour": "azul"}, "colour", "Campo desconhecido"),
])
def test_create_wreck_refuses_bad_input_naming_the_field(small_world, change, field, fragment):
    s, dpc = small_world.store, small_world.principal("dpc")
    before = _counts(s)
    data = {**GOOD_WRECK, **change}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(InputError) as err:
        wrecks.create_wreck(s, dpc, data)
    problems = {p.path: p.message for p in err.value.problems}
    assert field in problems, problems
    assert fragment in problems[field]
    assert _counts(s) == before


def test_create_wreck_reports_every_problem_at_once(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    with pytest.raises(InputError) as err:
        wrecks.create_wreck(s, dpc, {**GOOD_WRECK, "lat_deg": 95, "lon_min": 75, "office_code": "XX",
                                     "casualty_type": "?"})
    assert {p.path for p in err.value.problems} >= {"lat_deg", "lon_min", "office_code", "casualty_type"}


def test_list_wrecks_filters(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")

    def codes(**kw: object) -> list[str]:
        return list(wrecks.list_wrecks(s, dpc, **kw)["code"])

    assert codes() == ["NAU-1668-01", "NAU-1750-04", "NAU-1890-02", "NAU-1995-03"]
    assert codes(state="rj") == ["NAU-1750-04", "NAU-1890-02"]
    assert codes(office="CPBA") == ["NAU-1668-01"]
    assert codes(hull="madeira") == ["NAU-1668-01", "NAU-1750-04"]
    assert codes(century=17) == ["NAU-1668-01"]          # 1601–1700
    assert codes(century=18) == ["NAU-1750-04"]          # 1701–1800
    assert codes(century=20) == ["NAU-1995-03"]
    assert codes(search="santissimo") == ["NAU-1668-01"]  # accents and case ignored
    assert codes(search="TRÊS") == ["NAU-1995-03"]
    assert codes(search="marco secreto") == []            # notes are never searched
    with pytest.raises(InputError):
        wrecks.list_wrecks(s, dpc, century=0)


def test_get_wreck_not_found(small_world):
    with pytest.raises(NotFound):
        wrecks.get_wreck(small_world.store, small_world.principal("dpc"), 9999)


def test_create_organisation_validates_cnpj_and_cpf(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    good = {"name": "Delta Mergulho Ltda", "cnpj": "12.ABC.345/01DE-35", "nationality": "brasileira",
            "address": "Rua A, 1", "city": "Niterói", "state": "rj", "representative_name": "Rita",
            "representative_cpf": "529.982.247-25", "registered_on": "15/03/2024", "email": "rita@delta.com.br"}
    new_id = organisations.create_organisation(s, dpc, good)
    row = organisations.get_organisation(s, dpc, new_id)
    assert row["cnpj"] == "12ABC34501DE35" and row["representative_cpf"] == "52998224725"
    assert row["state"] == "RJ" and row["registered_on"] == date(2024, 3, 15)
    before = int(s.scalar("SELECT count(*) FROM organisations"))
    for change, field in [({"cnpj": "11.222.333/0001-82"}, "cnpj"),
                          ({"cnpj": "11.222.333/0001-81"}, "cnpj"),          # already registered (org A)
                          ({"representative_cpf": "111.111.111-11"}, "representative_cpf"),
                          ({"state": "XX"}, "state"),
                          ({"registered_on": "31/02/2024"}, "registered_on"),
                          ({"email": "not-an-email"}, "email")]:
        with pytest.raises(InputError) as err:
            organisations.create_organisation(s, dpc, {**good, "cnpj": "45.723.174/0001-10", **change})
        assert field in {p.path for p in err.value.problems}
    assert int(s.scalar("SELECT count(*) FROM organisations")) == before


def test_foreign_organisation_needs_no_cnpj(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    new_id = organisations.create_organisation(s, dpc, {
        "name": "Oceanic Recovery Inc.", "nationality": "norte-americana", "country": "EUA", "address": "1 Main St",
        "city": "Miami", "state": "FL", "representative_name": "John", "registered_on": date(2024, 1, 2)})
    assert organisations.get_organisation(s, dpc, new_id)["cnpj"] is None


@pytest.mark.parametrize("data, field", [
    ({"doc_kind": "CPF", "doc_number": "529.982.247-24"}, "doc_number"),
    ({"doc_kind": "CNPJ", "doc_number": "11.222.333/0001-80"}, "doc_number"),
    ({"doc_kind": "CPF"}, "doc_number"),
    ({"doc_kind": "desconhecido", "doc_number": "123"}, "doc_number"),
    ({"doc_kind": "RG", "doc_number": "123"}, "doc_kind"),
])
def test_create_owner_refuses_bad_documents(small_world, data, field):
    s, dpc = small_world.store, small_world.principal("dpc")
    with pytest.raises(InputError) as err:
        owners.create_owner(s, dpc, {"name": "Fulano", "nationality": "brasileira", "whereabouts_known": False,
                                     **data})
    assert field in {p.path for p in err.value.problems}
    assert s.scalar("SELECT count(*) FROM owners") == 1


def test_create_owner_normalises_the_document(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    oid = owners.create_owner(s, dpc, {"name": "Maria", "doc_kind": "CPF", "doc_number": "529.982.247-25",
                                       "nationality": "brasileira", "whereabouts_known": True,
                                       "address": "Rua B, 2"})
    assert owners.get_owner(s, dpc, oid)["doc_number"] == "52998224725"
    assert list(owners.list_owners(s, dpc, search="maria")["name"]) == ["Maria"]


# -- items: pagination in SQL ---------------------------------------------------------------


def test_page_items_pages_cover_everything_once(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    assert items.count_items(s, dpc) == 10
    seen = []
    for page in (1, 2, 3, 4):
        df = items.page_items(s, dpc, page=page, page_size=3)
        assert len(df) == (3 if page < 4 else 1)
        seen += list(df["item_code"])
    assert seen == sorted(seen) and len(set(seen)) == 10
    assert items.page_items(s, dpc, page=5, page_size=3).empty


def test_page_items_filters_and_delivery(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    df = items.page_items(s, dpc, ItemFilter(contract_code="A-1"))
    assert list(df["item_code"]) == [f"A1-00{i}" for i in range(1, 7)]
    delivered = dict(zip(df["item_code"], df["delivered_on"]))
    assert delivered["A1-001"] == date(2025, 3, 1) and pd.isna(delivered["A1-003"])
    assert isinstance(df["weight_g"].iloc[0], Decimal) and df["weight_g"].iloc[0] == Decimal("27.05")
    assert items.count_items(s, dpc, ItemFilter(search="faianca")) == 1          # accent-insensitive
    assert items.count_items(s, dpc, ItemFilter(category="moeda")) == 3
    assert items.count_items(s, dpc, ItemFilter(contract_code="B-1", category="moeda")) == 1
    assert items.filter_options(s, dpc, contract_code="B-1")["category"] == ["equipamento", "moeda", "vidro"]


def test_latest_delivery_row_counts(small_world):
    s, dpc = small_world.store, small_world.principal("dpc")
    item_id = small_world.ids["A1-001"]
    s.write("t", lambda tx: tx.execute(
        "INSERT INTO item_deliveries (item_id, delivered_on, received_by, place, recorded_by) "
        "VALUES (?, DATE '2025-02-27', 'x', 'y', 'z')", [item_id]))   # a correction: newer row, earlier date
    df = items.page_items(s, dpc, ItemFilter(contract_code="A-1"))
    assert df.set_index("item_code").loc["A1-001", "delivered_on"] == date(2025, 2, 27)


@pytest.mark.parametrize("kw", [{"page": 0}, {"page_size": 0}, {"page_size": 501}, {"page": "2"}])
def test_page_items_refuses_bad_paging(small_world, kw):
    with pytest.raises(InputError):
        items.page_items(small_world.store, small_world.principal("dpc"), **kw)


# -- users (admin) ---------------------------------------------------------------------------


def test_user_administration_is_audited_without_hashes(small_world):
    s, admin = small_world.store, small_world.principal("admin")
    uid = users.create_user(s, admin, {"username": "Nova.Pessoa", "full_name": "Nova Pessoa", "role": "explorer",
                                       "organisation_id": small_world.ids["org_c"], "password": "senha-bem-longa"})
    row = users.get_user(s, admin, uid)
    assert row["username"] == "nova.pessoa" and row["organisation_name"] == "Gama Pesquisas Marinhas Ltda"
    assert "password_hash" not in row
    users.set_role(s, admin, uid, "commission", commission_body="culture")
    users.set_active(s, admin, uid, False)
    s.write("t", lambda tx: tx.execute(
        "UPDATE users SET failed_attempts = 5, locked_until = TIMESTAMP '2099-01-01' WHERE id = ?", [uid]))
    users.unlock_user(s, admin, uid)
    users.reset_password(s, admin, uid, "outra-senha-longa")
    row = users.get_user(s, admin, uid)
    assert (row["role"], row["commission_body"], row["organisation_id"], row["active"]) == \
        ("commission", "culture", None, False)
    assert row["failed_attempts"] == 0 and row["locked_until"] is None
    log = s.fetch("SELECT action, actor, before_json, after_json FROM audit_log WHERE entity = 'user' "
                  "AND entity_id = ? ORDER BY id", [str(uid)])
    assert [r["action"] for r in log] == ["create", "set_role", "deactivate", "unlock", "reset_password"]
    assert all(r["actor"] == "admin" for r in log)
    stored_hash = s.scalar("SELECT password_hash FROM users WHERE id = ?", [uid])
    text = json.dumps(log)
    assert "argon2" not in text and stored_hash not in text and "password" not in text.replace("reset_password", "")
    assert json.loads(log[1]["after_json"])["role"] == "commission"
    assert json.loads(log[1]["before_json"])["role"] == "explorer"
    assert "password_hash" not in users.list_users(s, admin).columns


@pytest.mark.parametrize("data, field", [
    ({"role": "explorer"}, "organisation_id"),
    ({"role": "commission"}, "commission_body"),
    ({"role": "dpc", "organisation_id": 1}, "organisation_id"),
    ({"role": "dpc", "commission_body": "navy"}, "commission_body"),
    ({"role": "dpc", "password": "curta"}, "password"),
    ({"role": "dpc", "username": "admin"}, "username"),              # taken
    ({"role": "dpc", "username": "a b"}, "username"),
    ({"role": "rei"}, "role"),
])
def test_create_user_refuses_bad_input(small_world, data, field):
    s, admin = small_world.store, small_world.principal("admin")
    base = {"username": "fulano", "full_name": "Fulano", "password": "senha-comprida-1"}
    before = s.scalar("SELECT count(*) FROM users")
    with pytest.raises(InputError) as err:
        users.create_user(s, admin, {**base, **data})
    assert field in {p.path for p in err.value.problems}
    assert s.scalar("SELECT count(*) FROM users") == before


def test_admin_cannot_lock_everyone_out(small_world):
    s, admin = small_world.store, small_world.principal("admin")
    with pytest.raises(InputError, match="próprio"):
        users.set_active(s, admin, admin.id, False)
    with pytest.raises(InputError, match="próprio"):
        users.set_role(s, admin, admin.id, "dpc")
    other = users.create_user(s, admin, {"username": "admin2", "full_name": "Outro", "role": "admin",
                                         "password": "senha-comprida-2"})
    users.set_active(s, admin, other, False)   # fine: admin stays
    # the only active admin cannot be demoted by another (inactive) admin's session either
    with pytest.raises(InputError, match="último"):
        users.set_role(s, replace(admin, id=other), admin.id, "dpc")
    assert users.get_user(s, admin, admin.id)["role"] == "admin"
    with pytest.raises(NotFound):
        users.unlock_user(s, admin, 9999)
