"""Auditoria (admin) and Políticas (dpc), issue 11: the log read in pt-BR (labels, masked positions,
Brasília time), filtered and paginated in SQL, exported, its chain checked with progress; the
policies page shows every policy and records a change with its reason."""
from __future__ import annotations

import io
import json
import zipfile
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support.ui import RAW_IDENTIFIER, page_as, page_problems, texts
from valuation.core import clock
from valuation.core.errors import AccessDenied, InputError
from valuation.db import audit_log
from valuation.db.shared import using
from valuation.db.store import Store
from valuation.exports import to_csv_bytes, to_xlsx_bytes
from valuation.oversight import audit_text as at_text
from valuation.policies import values as policies
from valuation.policies.defaults import DEFAULTS
from valuation.registry import wrecks

REASON = "Portaria DPC nº 12/2026, após consulta à Comissão."
WRECK = {"code": "NAU-2020-77", "name": "Balsa Teste", "hull_material": "aço", "casualty_year": 2020,
         "casualty_type": "naufrágio", "lat_deg": 23, "lat_min": "41.37", "lat_hem": "S", "lon_deg": 42,
         "lon_min": "12.86", "lon_hem": "W", "datum": "WGS-84", "office_code": "CPRJ", "situation": "soçobrada"}


def button(page: Any, label: str) -> Any:
    return next(b for b in page.button if b.label == label)


# -- the log in Portuguese -------------------------------------------------------------------------
def test_every_field_the_full_demo_writes_has_a_label_and_reads_without_codes(full_demo_db: Path) -> None:
    with using(full_demo_db, read_only=True) as s:   # the pages' shared Store when a page opened it
        rows = s.fetch("SELECT action, entity, entity_id, before_json, after_json FROM audit_log ORDER BY id")
    assert len(rows) > 50
    keys = {k for r in rows for j in (r["before_json"], r["after_json"]) if j for k in json.loads(j)}
    assert at_text.unlabelled(keys) == []
    assert all(r["action"] in at_text.ACTION_LABELS and r["entity"] in at_text.ENTITY_LABELS for r in rows)
    for r in rows:
        shown = " ".join([at_text.action_label(r["action"]), at_text.subject(r["entity"], r["entity_id"]),
                          *[" ".join(c) for c in at_text.changes(r["action"], r["before_json"], r["after_json"])]])
        assert not RAW_IDENTIFIER.findall(shown), (r["action"], shown)
        assert not any(k in shown for k in ("{", '":', "None", "null")), shown


def test_values_read_in_pt_br() -> None:
    change = at_text.changes("survey_overrun_approved", '{"approved_overrun":"0.00","line_no":1}',
                             '{"approved_overrun":"20000.00","line_no":1}')
    assert change == [("Excesso aprovado", "R$ 0,00", "R$ 20.000,00")]
    created = at_text.changes("difficulty_assessed", None, '{"suggested_share":"0.5250","scores":[3,4]}')
    assert created == [("Parcela sugerida", "—", "52,5 %"), ("Notas", "—", "3, 4")]
    assert at_text.summary("round_closed", '{"status":"aberta"}', '{"status":"encerrada","items":240}') == \
        "Situação: aberta → encerrada; Itens: 240"
    assert at_text.summary("create", None, '{"role":"commission_president","active":true}') == \
        "Perfil: Presidente da Comissão; Ativo: sim"
    assert at_text.value_text("assessment_recorded", "price_date", "2026-09-09") == "09/09/2026"


def test_brasilia_time_and_period_bounds() -> None:
    assert clock.brasilia(datetime(2026, 3, 1, 2, 30)) == datetime(2026, 2, 28, 23, 30)
    assert clock.utc_bounds(date(2026, 3, 1), date(2026, 3, 2)) == (datetime(2026, 3, 1, 3), datetime(2026, 3, 3, 3))


def test_positions_stay_masked_in_what_the_admin_reads(small_world: Any) -> None:
    s = small_world.store
    wrecks.create_wreck(s, small_world.principal("dpc"), WRECK)
    row = s.fetch_one("SELECT * FROM audit_log WHERE action = 'create' AND entity = 'wreck'")
    fields = dict((label, after) for label, _b, after in at_text.changes(row["action"], row["before_json"],
                                                                        row["after_json"]))
    assert fields["Latitude (graus)"] == fields["Longitude (minutos)"] == fields["Datum"] == "sigilosa"
    # even a row holding a position (written behind the application's back) reads masked
    assert at_text.value_text("create", "lat_min", "41.37") == "sigilosa"
    small_world.store.close()
    page = page_as(small_world.path, small_world.principal("admin"), "audit")
    shown = "\n".join([texts(page), *[t.value.to_csv() for t in page.table]])
    assert "Balsa Teste" in shown and "41,37" not in shown and "41.37" not in shown and "12,86" not in shown


# -- filters, pages, export (store) ----------------------------------------------------------------
def _log(small_world: Any) -> tuple[Store, Any]:
    s, dpc = small_world.store, small_world.principal("dpc")
    for n in (5, 6, 3):
        policies.set_policy(s, dpc, "quorum", n, REASON)
    wrecks.create_wreck(s, dpc, WRECK)
    return s, small_world.principal("admin")


def test_filters_narrow_in_sql_and_pages_run_newest_first(small_world: Any) -> None:
    s, admin = _log(small_world)
    total = audit_log.count_audit(s, admin)
    assert total == s.scalar("SELECT count(*) FROM audit_log") == 4
    only = audit_log.AuditFilter(action="set_policy")
    assert audit_log.count_audit(s, admin, filters=only) == 3
    first = audit_log.page_audit(s, admin, filters=only, page=1, page_size=2)
    second = audit_log.page_audit(s, admin, filters=only, page=2, page_size=2)
    assert first["id"].tolist() == sorted(first["id"].tolist(), reverse=True) and len(second) == 1
    assert set(first["id"]) | set(second["id"]) == {r["id"] for r in s.fetch(
        "SELECT id FROM audit_log WHERE action = 'set_policy'")}
    today = clock.brasilia(s.now()).date()
    assert audit_log.count_audit(s, admin, filters=audit_log.AuditFilter(start=today, end=today)) == 4
    assert audit_log.count_audit(s, admin, filters=audit_log.AuditFilter(end=today - timedelta(days=1))) == 0
    assert audit_log.count_audit(s, admin, filters=audit_log.AuditFilter(actor="dpc.silva", entity="wreck")) == 1
    with pytest.raises(InputError) as err:
        audit_log.count_audit(s, admin, filters=audit_log.AuditFilter(start=today, end=today - timedelta(days=2)))
    assert err.value.problems[0].message.startswith("Período:")
    choices = audit_log.audit_choices(s, admin)
    assert choices == {"actor": ["dpc.silva"], "entity": ["policy", "wreck"], "action": ["create", "set_policy"]}


def test_the_export_holds_the_filtered_rows_readable_and_typed(small_world: Any) -> None:
    s, admin = _log(small_world)
    exported = audit_log.export_audit(s, admin, audit_log.AuditFilter(action="set_policy"))
    frame = at_text.readable(exported, names={"dpc.silva": "CF Ana Silva (DPC)"}, with_hash=True)
    assert frame["Nº"].tolist() == [1, 2, 3] and set(frame["Ação"]) == {"Política alterada"}
    assert set(frame["Usuário"]) == {"CF Ana Silva (DPC)"} and set(frame["Login"]) == {"dpc.silva"}  # the person
    assert frame["Alteração"].tolist()[0].startswith("Quórum da Comissão: 4 de 6 membros votantes → 5 de 6")
    assert isinstance(frame["Data e hora (Brasília)"].iloc[0], datetime)
    csv = to_csv_bytes(frame).decode("utf-8-sig")
    assert csv.splitlines()[0] == "Nº;Data e hora (Brasília);Usuário;Ação;Objeto;Alteração;Login;Hash"
    assert "Motivo: " in csv and "set_policy" not in csv
    with zipfile.ZipFile(io.BytesIO(to_xlsx_bytes({"Auditoria": frame}))) as z:
        assert "Política alterada" in z.read("xl/sharedStrings.xml").decode("utf-8")


@pytest.mark.parametrize("role", ["dpc", "commission", "explorer"])
def test_only_the_admin_reads_checks_and_exports_the_log(small_world: Any, role: str) -> None:
    s, user = small_world.store, small_world.principal(role)
    for call in (lambda: audit_log.check_chain(s, user), lambda: audit_log.export_audit(s, user),
                 lambda: audit_log.audit_choices(s, user),
                 lambda: audit_log.count_audit(s, user, filters=audit_log.AuditFilter())):
        with pytest.raises(AccessDenied):
            call()


def test_the_chain_check_reports_progress_per_batch(small_world: Any) -> None:
    s, admin = _log(small_world)
    seen: list[tuple[int, int]] = []
    result = audit_log.check_chain(s, admin, progress=lambda done, total: seen.append((done, total)), batch=3)
    assert seen == [(3, 4), (4, 4)]
    assert (result.ok, result.checked, result.bad_id, result.anchor) == (True, 4, None, "Âncora confere")


# -- the pages (AppTest) ---------------------------------------------------------------------------
def test_the_admin_reads_the_log_and_checks_the_chain(small_world: Any) -> None:
    _log(small_world)
    small_world.store.close()
    page = page_as(small_world.path, small_world.principal("admin"), "audit")
    assert not page_problems(page)
    table = page.table[0].value
    assert list(table.columns) == list(at_text.READABLE_COLUMNS)
    assert table["Ação"].tolist()[:2] == ["Cadastro", "Política alterada"]
    assert "Registros 1 a 4 de 4" in texts(page)
    button(page, "Verificar a cadeia inteira").click().run()
    assert "Cadeia íntegra: 4 registros, âncora confere." in texts(page)
    action = next(w for w in page.selectbox if w.label == "Ação")
    action.select("set_policy").run()
    assert page.table[0].value["Ação"].tolist() == ["Política alterada"] * 3
    assert not page_problems(page)


def test_a_tampered_log_is_reported_at_its_first_broken_row(small_world: Any) -> None:
    _log(small_world)
    small_world.store.close()
    con = duckdb.connect(str(small_world.path))
    con.execute("""UPDATE audit_log SET after_json = '{"quorum":6}' WHERE id = 2""")
    con.close()
    page = page_as(small_world.path, small_world.principal("admin"), "audit")
    button(page, "Verificar a cadeia inteira").click().run()
    errors = [e.value for e in page.error]
    assert any("primeiro registro com problema: nº 2" in e and "foi alterado" in e for e in errors), errors


def test_dpc_sees_every_policy_and_changes_one_with_its_reason(small_world: Any) -> None:
    small_world.store.close()
    page = page_as(small_world.path, small_world.principal("dpc"), "policies")
    assert not page_problems(page)
    overview = page.table[0].value
    assert list(overview.index) == [p.label for p in DEFAULTS]
    assert set(overview["Registrada por"]) == {"valor padrão (nunca alterado)"}
    assert set(overview["Em vigor desde"]) == {"sempre (padrão)"}
    assert "Nenhuma alteração registrada" in texts(page)
    pick = next(w for w in page.selectbox if w.label == "Política a alterar")
    pick.select("spread_threshold").run()
    page.text_input[0].input("40")
    button(page, "Gravar alteração").click().run()                # no reason: refused, nothing written
    assert any("Motivo da alteração" in e.value for e in page.error)
    page.text_area[0].input(REASON)
    button(page, "Gravar alteração").click().run()
    today = clock.today_brasilia().strftime("%d/%m/%Y")        # the page's default day is Brasília's
    assert f"Limite de dispersão dos valores: 40 % da mediana a partir de {today}" in texts(page)
    overview = page.table[0].value
    assert overview.loc["Limite de dispersão dos valores", "Valor em vigor"] == "40 % da mediana"
    assert overview.loc["Limite de dispersão dos valores", "Em vigor desde"] == today
    assert page.table[1].value["Valor"].tolist() == ["40 % da mediana"]
    assert page.table[1].value["Motivo"].tolist() == [REASON]
    assert page.text_area[0].value in ("", None)              # the next change starts with an empty reason
    assert not page_problems(page)
    with Store(small_world.path) as s:
        row = s.fetch_one("SELECT action, actor FROM audit_log ORDER BY id DESC LIMIT 1")
        assert row == {"action": "set_policy", "actor": small_world.username("dpc")}
        assert policies.policy_in_force(s, "spread_threshold").reason == REASON


def test_a_bad_value_on_the_page_names_the_field_by_its_label(small_world: Any) -> None:
    small_world.store.close()
    page = page_as(small_world.path, small_world.principal("dpc"), "policies")
    next(w for w in page.selectbox if w.label == "Política a alterar").select("difficulty_weights").run()
    page.text_input[1].input("muito")
    page.text_area[0].input(REASON)
    button(page, "Gravar alteração").click().run()
    errors = " ".join(e.value for e in page.error).replace("\\", "")   # Markdown escapes of the message
    assert "Pesos da rubrica de dificuldade (exploração)" in errors and "difficulty" not in errors
    with Store(small_world.path) as s:
        assert s.scalar("SELECT count(*) FROM policies") == 0


def test_every_action_and_entity_the_code_audits_has_a_portuguese_label() -> None:
    """A static guard: each `tx.audit("action", "entity", …)` written in the package reads in Portuguese on the
    Auditoria page (new writes cannot show a raw code to the admin)."""
    import re

    from tests.support.package_modules import source_files
    from valuation.oversight.audit_text import ACTION_LABELS, ENTITY_LABELS

    calls = set()
    for path in source_files():
        calls |= set(re.findall(r"\.audit\(\s*\"([a-z_.]+)\",\s*\"([a-z_]+)\"", path.read_text(encoding="utf-8")))
    assert len(calls) > 30
    assert not sorted(a for a, _ in calls if a not in ACTION_LABELS)
    assert not sorted(e for _, e in calls if e not in ENTITY_LABELS)
