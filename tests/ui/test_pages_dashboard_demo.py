"""The dashboard pages of issue 11 part A (Visão geral, Prazos, Calendário, Domínio, Naufrágios,
Empresas, Achados) as their users meet them: on the full demo database (`seed_full_demo`, what
`db init --demo` writes) every page renders for every role that sees it, with no raw identifier
(snake_case word) and no blank marker (None, nan, <NA>, NaT, empty) in what it shows; the
company without CNPJ no longer breaks Empresas; a five-year lapse that ran out is a state
("encerrado — União desde …"), not an overdue task nor an event of the .ics feed; the wreck map
exports read plainly; form problems name the field by the form's label."""
from __future__ import annotations

import io
import json
import re
from datetime import date
from decimal import Decimal
from pathlib import Path

import openpyxl
import pandas as pd
import pypdf
import pytest

from tests.support.db_copies import copy_database
from tests.support.ui import date_value, each_tab, open_expander, open_tab, page_as, set_date, texts
from valuation.db.access import Principal
from valuation.db.store import Store
from valuation.deadlines import engine, frames, views, wreck_map
from valuation.demo.base import DEMO_TODAY
from valuation.inventory import found_things as ft

# the check of ../shared/tools/pages_on_demo.py --strict
RAW = re.compile(r"(?<![\w./:@-])[a-z]+(?:_[a-z0-9]+)+(?![\w./:@-])")
BLANKS = {"None", "nan", "NaN", "NaT", "<NA>", "empty"}
# demo login → the pages of part A that its role sees
VIEWS = {
    "dpc.prado": ("overview", "deadlines", "calendar", "domain", "wrecks", "organisations", "found_things"),
    "exp.arqueonautica": ("overview", "deadlines", "calendar", "wrecks", "organisations"),
    "cf.rocha": ("overview", "wrecks", "organisations"),
    "cmg.tavares": ("overview", "wrecks", "organisations"),
    "admin": ("overview",),
}


@pytest.fixture(scope="module")
def demo_file(full_demo_db: Path) -> Path:
    """The full demo (the session's, built once per run by `db init --demo`)."""
    return full_demo_db


@pytest.fixture
def demo(demo_file: Path, tmp_path: Path) -> Path:
    """A private copy of the full demo (one process owns a DuckDB file; tests may write)."""
    copy = tmp_path / "demo.duckdb"
    copy_database(demo_file, copy)
    return copy


def principal(path: Path, username: str) -> Principal:
    with Store(path) as store:
        row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                              "WHERE username = ?", [username])
    return Principal(**row)


def seen(at) -> list[str]:  # type: ignore[no-untyped-def]
    """Everything a user reads on the run: texts, metrics, widget labels and options, table headers and cells."""
    out = texts(at).split("\n") + [str(t.value) for t in at.text]
    for kind in ("selectbox", "multiselect", "radio", "text_input", "number_input", "date_input"):
        for w in getattr(at, kind):
            out.append(str(w.label))
            out += [str(o) for o in (getattr(w, "options", None) or [])][:300]
    for d in at.dataframe:
        frame = d.value
        if isinstance(frame, pd.DataFrame):
            out += [str(c) for c in frame.columns]
            for c in frame.columns:
                out += [str(v) for v in frame[c].head(300).tolist()]
    return out


ENGLISH = re.compile(r"^(count|sum of .*|value|variable|index|week|day|state)$", re.I)
SHOWN_KEYS = {"text", "x", "y", "name", "ticktext", "customdata", "legendgrouptitle"}


def chart_texts(spec: object, key: str = "") -> list[str]:
    """The strings a Plotly figure shows: titles, category values, trace names, hover data."""
    if isinstance(spec, dict):
        return [t for k, v in spec.items() for t in chart_texts(v, k)]
    if isinstance(spec, list):
        return [t for v in spec for t in chart_texts(v, key)]
    return [spec] if isinstance(spec, str) and key in SHOWN_KEYS else []


def charts(at) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


@pytest.mark.parametrize("username, key", [(u, k) for u, keys in VIEWS.items() for k in keys])
def test_pages_read_in_portuguese_on_the_full_demo(demo, username, key):
    at = page_as(demo, principal(demo, username), key, timeout=120)
    for tab in each_tab(at, key):   # every tab of the page, opened in turn (only the open one is drawn)
        where = key if tab is None else f"{key}, aba {tab}"
        assert not at.exception, (where, [e.message for e in at.exception])
        for fig in charts(at):
            assert fig["layout"].get("separators") == ",.", f"{where}: chart without pt-BR separators"
            words = chart_texts(fig)
            assert not [w for w in words if ENGLISH.match(w.strip())], f"{where}: English chart text {words}"
            assert not [m for w in words for m in RAW.findall(w)], f"{where}: raw identifiers in a chart {words}"
            for axis in ("xaxis", "yaxis"):
                fmt = fig["layout"].get(axis, {}).get("tickformat", "")
                assert "%b" not in fmt and "%B" not in fmt, f"{where}: month names in ticks"
        shown = seen(at)
        raw = sorted({m for t in shown for m in RAW.findall(t)})
        assert not raw, f"{username}/{where} shows raw identifiers: {raw}"
        blanks = sorted({t for t in shown if t.strip() in BLANKS})
        assert not blanks, f"{username}/{where} shows blank markers: {blanks}"
        assert "rules.md" not in "\n".join(shown) and "cli.md" not in "\n".join(shown)


FOREIGN = "Delta Ocean Research LLC"


@pytest.mark.parametrize("role", ["dpc", "commission", "commission_president"])
def test_organisations_page_renders_a_company_without_cnpj(small_world, role):
    """A foreign company has no CNPJ (NULL): Empresas crashed on `if v` over pd.NA (issue 11)."""
    store = small_world.store
    org_id = store.write("test", lambda tx: tx.scalar(
        "INSERT INTO organisations (name, cnpj, nationality, address, city, state, country, representative_name, "
        "registered_on) VALUES (?, NULL, 'estadunidense', '1 Harbor St', 'Boston', NULL, 'Estados Unidos', "
        "'John Doe', DATE '2021-03-04') RETURNING id", [FOREIGN]))
    store.close()
    at = page_as(small_world.path, small_world.principal(role), "organisations")
    assert not at.exception, [e.message for e in at.exception]
    table = at.dataframe[0].value
    assert table.loc[table["Razão social"] == FOREIGN, "CNPJ"].tolist() == ["—"]
    others = table[table["Razão social"] != FOREIGN]["CNPJ"].tolist()
    assert all(re.fullmatch(r"\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}", c) for c in others), others
    sheet = next(s for s in at.selectbox if s.label == "Ficha")
    sheet.set_value(org_id).run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("CNPJ: —" in m.value and "Boston" in m.value for m in at.markdown), texts(at)
    assert not {t for t in seen(at) if t.strip() in BLANKS}


def test_organisation_form_problems_name_the_fields_as_the_form_does(small_world):
    small_world.store.close()
    at = open_expander(page_as(small_world.path, small_world.principal("dpc"), "organisations"), "Inscrever empresa")
    fill = {"Razão social": "Delta Mergulho Ltda", "CNPJ": "11.111.111/1111-11", "Endereço": "Rua A, 1",
            "Cidade": "Niterói", "UF/Estado": "XX", "Representante legal": "Fulano"}
    for label, value in fill.items():
        next(t for t in at.text_input if t.label == label).input(value)
    next(b for b in at.button if b.label == "Inscrever").click()
    at.run()
    message = "\n".join(e.value for e in at.error)
    assert "CNPJ inválido" in message and "UF/Estado" in message, message
    assert not re.search(r"\b(cnpj|state|representative_\w+)\b", message), message
    placeholder = next(t for t in at.text_input if t.label == "CNPJ").placeholder
    assert placeholder in message  # the example of the message is the form's placeholder


def test_wreck_form_problems_name_the_fields_as_the_form_does(small_world):
    small_world.store.close()
    at = open_expander(page_as(small_world.path, small_world.principal("dpc"), "wrecks"), "Cadastrar naufrágio")
    for label, value in {"Código": "NAU-2001-09", "Nome da embarcação": "Lancha Teste", "Ano do sinistro": "2001",
                         "Mês do sinistro": "2", "Dia do sinistro": "31", "Latitude": "vinte graus",
                         "Longitude": "43°10,20' W"}.items():
        next(t for t in at.text_input if t.label == label).input(value)
    next(b for b in at.button if b.label == "Cadastrar").click()
    at.run()
    assert not at.exception
    lines = [line for e in at.error for line in e.value.split("\n") if line.startswith("- ")]
    assert any(line.startswith("- Dia do sinistro") and "31/02/2001" in line for line in lines), lines
    lat = next(line for line in lines if "Latitude" in line)
    assert lat.startswith("- Latitude") and next(t for t in at.text_input if t.label == "Latitude").placeholder \
        in lat.replace("\\", "")
    assert not any(re.search(r"\b(casualty_\w+|latitude|longitude)\b", line) for line in lines), lines
    precision = next(s for s in at.selectbox if s.label == "Precisão da data do sinistro")
    assert precision.options == ["dia", "mês", "ano", "século"]


# -- five-year lapses that ran out: a state, not a task -------------------------------------------------
def test_a_five_year_lapse_that_ran_out_is_closed_not_overdue(small_world):
    """w3 (NAU-1995-03) sank in 1995 (known to the year): the five years ran from 31/12/1995 with no
    licence request, so on 2025 the things are the União's — a state, not a deadline someone misses."""
    store, dpc = small_world.store, small_world.principal("dpc")
    key = "five_year_lapse:NAU-1995-03"
    before = engine.compute_deadlines(store, dpc, as_of=date(1998, 6, 1))
    assert before.set_index("key").loc[key, "state"] == "upcoming"
    df = engine.compute_deadlines(store, dpc, as_of=date(2025, 7, 20)).set_index("key")
    row = df.loc[key]
    since = row["due"].toordinal() + 1
    assert row["state"] == "met" and row["met_on"].toordinal() == since
    assert row["state_pt"] == f"encerrado — União desde {date.fromordinal(since):%d/%m/%Y}"
    assert "art. 7" in row["reason"]
    ics = frames.deadlines_ics(store, dpc, as_of=date(2025, 7, 20)).decode()
    assert f"UID:{key}@valuation" not in ics and "UID:" in ics


def test_on_the_demo_no_lapse_pads_the_overdue_list_or_the_feed(demo):
    dpc = principal(demo, "dpc.prado")
    with Store(demo) as store:
        df = engine.compute_deadlines(store, dpc, as_of=DEMO_TODAY)
        lapses = df[df["rule"] == "five_year_lapse"]
        closed = lapses[lapses["state_pt"].str.startswith("encerrado — União desde")]
        assert len(closed) >= 3  # RJ-005, PA-002, PR-001, AP-001 in the demo
        assert not (lapses["state"] == "overdue").any()
        ics = frames.deadlines_ics(store, dpc, as_of=DEMO_TODAY).decode()
    unfolded = ics.replace("\r\n ", "")
    assert all(f"UID:{key}@valuation" not in unfolded for key in closed["key"])
    assert "UID:" in unfolded
    at = page_as(demo, dpc, "deadlines", timeout=120)
    heading = next(h.value for h in at.subheader if h.value.startswith("Vencidos ("))
    if heading != "Vencidos (0)":  # the first list under the office summary is the overdue one
        lists = [d.value for d in at.dataframe if {"Prazo", "Vencimento", "Observação"} <= set(d.value.columns)]
        assert lists and not lists[0]["Prazo"].str.startswith("Prazo de 5 anos").any(), lists[0]["Prazo"].tolist()
    picker = next(s for s in at.selectbox if s.label == "Explicar um prazo")
    assert not any(o.startswith("Prazo de 5 anos") and "vencido" in o for o in picker.options)


# -- the wreck map (NORMAM-10 0404, Anexo 4-B) ----------------------------------------------------------
def test_wreck_map_exports_read_plainly(small_world):
    """Map of 2025 at CPRJ: 15/02/2026 is a Sunday and 16–17/02 are Carnival (policy days), so
    the map is due on Wednesday 18/02/2026 (Lei 9.784/1999 art. 66 §1)."""
    store, dpc = small_world.store, small_world.principal("dpc")
    m = wreck_map.wreck_map(store, dpc, office="CPRJ", year=2025)
    assert m.deadline_text == "18/02/2026, prorrogado de 15/02/2026 (domingo)"
    pdf = " ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(
        wreck_map.wreck_map_pdf(store, dpc, office="CPRJ", year=2025))).pages)
    assert "18/02/2026, prorrogado de 15/02/2026 (domingo)" in " ".join(pdf.split())
    book = openpyxl.load_workbook(io.BytesIO(wreck_map.wreck_map_xlsx(store, dpc, office="CPRJ", year=2025)))
    negative = list(book["Anexo 4-B"].iter_rows(values_only=True))
    assert negative[0] == ("Organização Militar", "Ano", "Mensagem")
    assert negative[1] == ("CPRJ", 2025, "NEGAT SINISTRO BT")
    sending = dict(zip(*list(book["Envio"].iter_rows(values_only=True))))
    assert sending["Ano dos sinistros"] == 2025
    assert sending["Prazo de envio"].date() == date(2026, 2, 18)
    assert sending["Prorrogação (Lei 9.784/1999 art. 66 §1)"] == "prorrogado de 15/02/2026 (domingo)"
    full = openpyxl.load_workbook(io.BytesIO(wreck_map.wreck_map_xlsx(store, dpc, office="CPSP", year=1995)))
    rows = list(full["Anexo 4-B"].iter_rows(values_only=True))
    depth = rows[0].index("Profundidade (m)")
    assert rows[1][depth] == 30  # a number, not the text '30,00'


# -- presentation helpers -----------------------------------------------------------------------------------
@pytest.mark.parametrize("key, text", [
    ("five_year_lapse:RJ-005", "Prazo de 5 anos do responsável — naufrágio RJ-005"),
    ("court_inquiry_opening:SP-003", "Abertura do inquérito — naufrágio SP-003"),
    ("monthly_report:CPPE-PQ-2025/03:2026-09", "Relatório mensal (setembro/2026) — contrato CPPE-PQ-2025/03"),
    ("wreck_map:CPMA:2025", "Mapa anual de naufrágios de 2025 — CPMA"),
    ("extension_request:A-1:2026-01-05", "Pedido de prorrogação — contrato A-1 (autorização até 05/01/2026)"),
    ("found_unclaimed:f3", "Coisa achada não reclamada — coisa achada nº 3"),
])
def test_deadline_keys_read_as_words(key, text):
    assert views.key_text(key) == text


def test_heat_map_grid_has_every_weekday_and_only_the_year():
    frame = pd.DataFrame({"state": ["overdue", "upcoming", "met", "due_soon"],
                          "due": [date(2026, 2, 18), date(2026, 2, 18), date(2026, 3, 2), date(2027, 1, 4)]},
                         dtype=object)
    grid = views.heatmap_grid(frame, 2026)
    assert grid["weekdays"] == ["seg", "ter", "qua", "qui", "sex", "sáb", "dom"] and len(grid["z"]) == 7
    assert grid["weeks"][0] == date(2025, 12, 29)            # the Monday before Thursday 01/01/2026
    assert grid["z"][0][0] is None and grid["z"][3][0] == 0   # 29/12/2025 is outside; 01/01/2026 counts 0
    col = (date(2026, 2, 18) - date(2025, 12, 29)).days // 7
    assert grid["z"][2][col] == 2 and grid["text"][2][col] == "qua 18/02/2026: 2 prazos"
    assert (grid["total"], grid["peak"]) == (2, 2)            # met and next year's deadlines left out


def test_timeline_opens_on_the_nearest_pending_deadline():
    frame = pd.DataFrame({"contract_code": ["A-1", "B-1", "C-1", None],
                          "state": ["met", "upcoming", "overdue", "overdue"],
                          "due": [date(2026, 11, 30), date(2027, 1, 10), date(2026, 11, 20), date(2026, 12, 1)]},
                         dtype=object)
    assert views.nearest_pending_contract(frame, date(2026, 12, 1)) == "C-1"
    assert views.nearest_pending_contract(frame, date(2027, 1, 1)) == "B-1"


def test_found_thing_amount_typed_the_brazilian_way(small_world):
    store, dpc = small_world.store, small_world.principal("dpc")
    today = date(2026, 11, 30)
    found_id = ft.register_found_thing(store, dpc, {
        "office_code": "CPRJ", "collected_on": date(2026, 11, 2), "description": "Ânfora", "place": "Praia",
        "finder_name": "Pescador"}, today=today)
    ft.record_found_event(store, dpc, found_id, {"kind": "sold", "event_date": date(2026, 11, 10),
                                                 "amount": "R$ 1.234,56", "reference": "Hasta 1/2026",
                                                 "note": "Oxida fora d'água"}, today=today)
    assert store.scalar("SELECT amount FROM found_thing_events WHERE found_id = ?", [found_id]) == Decimal("1234.56")


def test_deadline_charts_read_at_a_glance_on_the_demo(demo):
    """The heat map always shows the seven weekdays with a titled colour scale of whole counts; the
    timeline opens on the contract of the pending deadline nearest to the reference day and draws
    a 'hoje' line on it."""
    dpc = principal(demo, "dpc.prado")
    at = open_tab(page_as(demo, dpc, "deadlines", timeout=120), "deadlines", "Mapa de calor")
    heat = next(t for f in charts(at) for t in f["data"] if t["type"] == "heatmap")
    assert heat["y"] == ["seg", "ter", "qua", "qui", "sex", "sáb", "dom"]
    assert heat["colorbar"]["title"]["text"] == "Prazos no dia" and heat["colorbar"]["tickformat"] == ",d"
    open_tab(at, "deadlines", "Linha do tempo")
    figs = charts(at)
    gantt = next(f for f in figs if any(t.get("orientation") == "h" and t["type"] == "bar" for t in f["data"]))
    assert any(a["text"].startswith("hoje") for a in gantt["layout"]["annotations"])
    assert gantt["layout"]["xaxis"]["tickformat"] == "%d/%m/%Y"
    with Store(demo) as store:
        df = engine.compute_deadlines(store, dpc, as_of=date_value(at))
    expected = views.nearest_pending_contract(df, date_value(at))
    contract = next(s for s in at.selectbox if s.label == "Contrato")
    assert contract.value == expected and expected is not None


@pytest.mark.parametrize("kind", engine.EVENT_KINDS, ids=lambda k: k.key)
def test_every_event_form_asks_for_its_subject_and_reference_by_name(small_world, kind):
    small_world.store.close()
    at = open_tab(page_as(small_world.path, small_world.principal("dpc"), "deadlines"), "deadlines", "Registrar")
    next(s for s in at.selectbox if s.label == "Evento").set_value(kind).run()
    assert not at.exception, [e.message for e in at.exception]
    labels = {w.label for k in ("selectbox", "text_input", "number_input", "date_input") for w in getattr(at, k)}
    subject = {"contract": "Contrato", "wreck": "Naufrágio", "office": "Capitania/Delegacia/Agência"}.get(kind.subject)
    assert subject is None or subject in labels
    assert kind.reference is None or any(label.startswith(kind.reference_label) for label in labels), labels
    shown = seen(at)
    assert not sorted({m for t in shown for m in RAW.findall(t)}) and not {t for t in shown if t.strip() in BLANKS}


def test_dpc_records_a_wreck_map_sent_on_the_page(small_world):
    small_world.store.close()
    at = open_tab(page_as(small_world.path, small_world.principal("dpc"), "deadlines"), "deadlines", "Registrar")
    set_date(at, None, date(2025, 3, 1)).run()
    kind = engine.EVENT_KIND_BY_KEY["mapa_de_naufrágios_enviado"]
    next(s for s in at.selectbox if s.label == "Evento").set_value(kind).run()
    set_date(at, "Data do evento", date(2025, 2, 10))
    next(s for s in at.selectbox if s.label == "Capitania/Delegacia/Agência" and "CPSP" in s.options
         and s.options[0] != "Todas").set_value("CPSP")
    next(n for n in at.number_input if n.label == "Ano do mapa").set_value(2024)
    next(b for b in at.button if b.label == "Registrar").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    with Store(small_world.path) as store:
        row = store.fetch_one("SELECT kind, office_code, reference FROM deadline_events ORDER BY id DESC LIMIT 1")
    assert row == {"kind": "mapa_de_naufrágios_enviado", "office_code": "CPSP", "reference": "2024"}
