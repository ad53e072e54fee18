"""Coisas achadas (Lei 7.542/1986 arts. 28–30; NORMAM-10 0405): register things handed in by third
parties, follow the 30-day window, declaration of loss, sale and proceeds, owner reclaim, Federal Revenue."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import fields, session
from ui.expanders import lazy_expander
from ui.fields import date_field, money_field
from ui.fmt import brl, count_br, date_br, for_display, is_blank, option_label
from ui.forms import save, show_problems
from ui.people import with_names
from ui.safe import md
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.inventory import found_costs, found_things
from valuation.registry import offices
from valuation.registry.wrecks import list_wrecks

TABLE = {"id": "Nº", "office_code": "OM", "description": "Descrição", "quantity": "Qtd.", "place": "Local do achado",
         "collected_on": "Recolhida em", "finder_name": "Quem achou", "origin": "Procedência",
         "state_label": "Situação", "unclaimed_due": "Prazo do responsável (30 dias)",
         "costs_due": "Custas de guarda e conservação devidas", "proceeds": "Produto da venda",
         "proceeds_due": "Produto guardado até", "next_step": "Próximo passo"}
EVENTS = {"kind": "Registro", "event_date": "Data", "amount": "Valor", "party": "Pessoa", "origin": "Procedência",
          "reference": "Documento", "note": "Observação", "recorded_by": "Registrado por",
          "recorded_at": "Registrado em"}
# form keys → the labels the forms show (problems name the field so)
EVENT_LABELS = {"kind": "Registro", "event_date": "Data", "amount": "Valor (R$)", "party": "Responsável / adquirente",
                "origin": "Procedência", "reference": "Documento (edital, processo, ofício)", "note": "Observação"}
THING_LABELS = {"office_code": "Capitania/Delegacia/Agência", "collected_on": "Data do recolhimento (arrecadação)",
                "found_on": "Data do achado", "description": "Descrição", "quantity": "Quantidade",
                "place": "Local do achado", "origin": "Procedência", "finder_name": "Quem achou",
                "finder_document": "Documento de quem achou", "finder_contact": "Contato de quem achou",
                "wreck_code": "Naufrágio", "reference": "Termo de arrecadação / ofício", "notes": "Observações"}


def detail(df: pd.DataFrame) -> None:
    st.subheader("Detalhe e registros")
    titles = {i: f"nº {i} — {d}" for i, d in zip(df["id"], df["description"])}
    pick = st.selectbox("Coisa achada", list(titles), format_func=option_label(titles))
    thing = found_things.get_found_thing(store, user, int(pick), as_of=today)
    st.markdown(f"**{md(thing['description'])}** ({count_br(thing['quantity'])}) — {thing['state_label']}  \n"
                f"Achada em {md(thing['place'])} por {md(thing['finder_name'])}; recolhida pela "
                f"{thing['office_code']} em {date_br(thing['collected_on'])}. "
                f"Procedência: {found_things.ORIGIN_LABELS[thing['current_origin']]}.  \n"
                f"**Próximo passo:** {md(thing['next_step'])}")
    with st.expander(f"Prazo do responsável: {date_br(thing['unclaimed'].due)} — como foi contado"):
        st.markdown("\n".join(f"- {md(s)}" for s in thing["unclaimed"].steps)
                    + f"\n\nFundamento: {md(thing['unclaimed'].basis)}")
    if thing["proceeds_deadline"] is not None:
        with st.expander(f"Produto ({brl(thing['proceeds'])}) guardado até "
                         f"{date_br(thing['proceeds_deadline'].due)} — como foi contado"):
            st.markdown("\n".join(f"- {md(s)}" for s in thing["proceeds_deadline"].steps))
    reclaim = thing["reclaim"]
    (st.info if reclaim.open else st.caption)(reclaim.text)
    costs(int(pick), thing)
    if len(thing["events"]) > 0:
        events = pd.DataFrame(thing["events"])
        events["kind"] = [found_things.EVENT_LABELS.get(k, k) for k in events["kind"]]
        events["origin"] = [None if is_blank(o) else found_things.ORIGIN_LABELS.get(o, o) for o in events["origin"]]
        events = with_names(store, user, events, "recorded_by")
        st.dataframe(for_display(events, money=("amount",), dates=("event_date", "recorded_at"), only=list(EVENTS),
                                 rename=EVENTS), hide_index=True, width="stretch")
    else:
        st.caption("Nenhum registro depois do recolhimento.")
    if thing["next_events"]:
        event_form(int(pick), thing["next_events"])


COSTS = {"incurred_on": "Data", "kind": "Natureza", "amount": "Valor", "description": "Descrição",
         "reference": "Documento", "recorded_by": "Registrado por"}


def costs(found_id: int, thing: dict) -> None:
    """The custody and conservation costs (art. 29 §1): what the owner pays to reclaim the thing."""
    with lazy_expander(f"Custas e despesas de guarda e conservação (art. 29 §1): {brl(thing['reclaim'].costs_due)} "
                     "devidas até hoje", key=f"found_costs_box_{found_id}") as opened:
        if opened:
            if thing["costs"]:
                st.dataframe(for_display(pd.DataFrame(thing["costs"]), money=("amount",), dates=("incurred_on",),
                                         only=list(COSTS), rename=COSTS), hide_index=True, width="stretch")
            else:
                st.caption("Nenhuma despesa registrada.")
            if thing["state"] not in found_things.KEPT_STATES:
                return
            L = found_costs.LABELS
            with st.form("cost", clear_on_submit=True):
                a, b, c = st.columns(3)
                kind = a.selectbox(L["kind"], list(found_costs.KINDS))
                day = date_field(L["incurred_on"], value=today, max_value=today, required=True, where=b,
                                 path="incurred_on")
                amount = money_field(L["amount"], required=True, where=c, path="amount")
                description = st.text_input(L["description"])
                reference = st.text_input(L["reference"])
                sent = st.form_submit_button("Registrar despesa")
            if sent and save(found_costs.record_found_cost, store, user, found_id,
                             {"kind": kind, "incurred_on": day, "amount": amount, "description": description or None,
                              "reference": reference or None}, today=today, labels=L, success=None) is not None:
                st.session_state["found_flash"] = "Despesa de guarda e conservação registrada."
                st.rerun()


def event_form(found_id: int, next_events: tuple[str, ...]) -> None:
    L = EVENT_LABELS
    with st.form("event"):
        a, b = st.columns(2)
        kind = a.selectbox(L["kind"], next_events, format_func=option_label(found_things.EVENT_LABELS))
        event_date = date_field(L["event_date"], value=today, max_value=today, required=True, where=b,
                                path="event_date")
        c, d, e = st.columns(3)
        amount = money_field(L["amount"], help="Na devolução: custas e despesas de guarda e conservação pagas "
                             "(no mínimo as devidas, art. 29 §1); na venda: o produto.", where=c, path="amount")
        party = d.text_input(L["party"])
        origin = e.selectbox(L["origin"], ["", "nacional", "estrangeira"],
                             format_func=lambda o: found_things.ORIGIN_LABELS.get(o, "não informada"),
                             help="Só no registro da procedência identificada.")
        reference = st.text_input(L["reference"])
        note = st.text_input(L["note"], help="Na venda: por que a coisa é de difícil guarda e conservação.")
        sent = st.form_submit_button("Registrar", type="primary")
    if not sent:
        return
    data = {"kind": kind, "event_date": event_date, "amount": amount, "party": party or None,
            "origin": origin or None, "reference": reference or None, "note": note or None}
    try:
        found_things.record_found_event(store, user, found_id, fields.read(data), today=today)
    except InputError as exc:
        show_problems(exc, labels=L)
    except (AccessDenied, NotFound, ConflictError) as exc:
        st.error(str(exc))
    else:
        st.session_state["found_flash"] = f"Registrado: {found_things.EVENT_LABELS[kind]}."
        st.rerun()


def register() -> None:
    L = THING_LABELS
    registered, data = False, {}
    with lazy_expander("Registrar coisa achada e entregue por terceiro", key="found_register_box") as opened:
        if opened:
            office_codes = list(offices.office_choices(store, user))   # an office officer: its own
            w = list_wrecks(store, user)
            wreck_names = {"": "nenhum (não é de naufrágio cadastrado)",
                           **dict(zip(w["code"], w["code"] + " — " + w["name"]))}
            with st.form("register", clear_on_submit=False):
                a, b, c = st.columns(3)
                data = {
                    "office_code": a.selectbox(L["office_code"], office_codes, help="A que recolheu a coisa."),
                    "collected_on": date_field(L["collected_on"], value=today, max_value=today, required=True, where=b,
                                               path="collected_on"),
                    "found_on": date_field(L["found_on"], max_value=today, help="Se souber", where=c, path="found_on"),
                    "description": st.text_area(L["description"]),
                    "quantity": a.number_input(L["quantity"], min_value=1, value=1, step=1),
                    "place": b.text_input(L["place"]),
                    "origin": c.selectbox(L["origin"], list(found_things.ORIGINS), index=2,
                                          format_func=option_label(found_things.ORIGIN_LABELS)),
                    "finder_name": a.text_input(L["finder_name"]),
                    "finder_document": b.text_input(L["finder_document"]),
                    "finder_contact": c.text_input(L["finder_contact"]),
                    "wreck_code": a.selectbox(L["wreck_code"], list(wreck_names),
                                              format_func=option_label(wreck_names)),
                    "reference": b.text_input(L["reference"]),
                    "notes": c.text_input(L["notes"]),
                }
                registered = st.form_submit_button("Registrar", type="primary")
    if not registered:
        return
    clean = {k: (v.strip() or None) if isinstance(v, str) else v for k, v in data.items()}
    try:
        new_id = found_things.register_found_thing(store, user, fields.read(clean), today=today)
    except InputError as exc:
        show_problems(exc, labels=L)
    except (AccessDenied, NotFound, ConflictError) as exc:
        st.error(str(exc))
    else:
        st.session_state["found_flash"] = f"Coisa achada registrada (nº {new_id})."
        st.rerun()


user = session.guard("found_things")
store = session.store()
today = session.today()
st.title("Coisas achadas")
st.caption("Quem acha coisas ou bens em águas sob jurisdição nacional deve comunicar e entregá-los à CP, DL ou AG "
           "(art. 28). Ficam sob custódia; enquanto não alienados, o responsável pode reclamá-los pagando as custas e "
           "despesas de guarda e conservação (art. 29 §1), mesmo depois de declarados perdidos; não reclamados em 30 "
           "dias do recolhimento podem ser declarados perdidos (art. 29 §2); os de difícil guarda podem ser vendidos "
           "e o produto fica 6 meses à disposição do responsável, depois vira receita da União (art. 29 §3); os de "
           "procedência estrangeira vão à Receita Federal (art. 30). Prazos contados no "
           "calendário da Capitania que recolheu.")
if flash := st.session_state.pop("found_flash", None):
    st.success(flash)

state = st.selectbox("Situação", [""] + list(found_things.STATE_LABELS),
                     format_func=lambda s: found_things.STATE_LABELS.get(s, "Todas"))
df = found_things.list_found_things(store, user, as_of=today, state=state or None)
held = df[df["state"] == "sob_custodia"] if len(df) else df
m = st.columns(3)
m[0].metric("Sob custódia", count_br(len(held)))
m[1].metric("Prazo de 30 dias vencido", count_br(int((held["unclaimed_due"] < today).sum()) if len(held) else 0))
m[2].metric("Produto de venda guardado", count_br(int((df["state"] == "vendido").sum()) if len(df) else 0))
if len(df):
    st.dataframe(for_display(df, money=("proceeds", "costs_due"),
                             dates=("collected_on", "unclaimed_due", "proceeds_due"),
                             counts=("quantity",), only=list(TABLE), rename=TABLE), hide_index=True, width="stretch")
    detail(df)
else:
    st.info("Nenhuma coisa achada nesta situação." if state else "Nenhuma coisa achada registrada.")
register()
