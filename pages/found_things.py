"""Coisas achadas (Lei 7.542/1986 arts. 28–30; NORMAM-10 0405): register things handed in by third
parties, follow the 30-day window, declaration of loss, sale and proceeds, owner reclaim, Federal Revenue."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import session
from ui.fmt import for_display
from ui.forms import show_problems
from valuation.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.money import format_brl
from valuation.store import found_things as ft
from valuation.store import offices

user = session.guard("found_things")
store = session.store()
today = session.now().date()
st.title("Coisas achadas")
st.caption("Quem acha coisas ou bens em águas sob jurisdição nacional deve comunicar e entregá-los à CP, DL ou AG "
           "(art. 28). Ficam sob custódia; não reclamados em 30 dias do recolhimento podem ser declarados perdidos "
           "(art. 29 §2); os de difícil guarda podem ser vendidos e o produto fica 6 meses à disposição do "
           "responsável, depois vira receita da União (art. 29 §3); os de procedência estrangeira vão à Receita "
           "Federal (art. 30). Prazos contados no calendário da Capitania que recolheu.")
if flash := st.session_state.pop("found_flash", None):
    st.success(flash)

state = st.selectbox("Situação", [""] + list(ft.STATE_LABELS), format_func=lambda s: ft.STATE_LABELS.get(s, "Todas"))
df = ft.list_found_things(store, user, as_of=today, state=state or None)
held = df[df["state"] == "sob_custodia"] if len(df) else df
m = st.columns(3)
m[0].metric("Sob custódia", len(held))
m[1].metric("Prazo de 30 dias vencido", int((held["unclaimed_due"] < today).sum()) if len(held) else 0)
m[2].metric("Produto de venda guardado", int((df["state"] == "vendido").sum()) if len(df) else 0)
st.dataframe(for_display(df.drop(columns=["state"]), money=("proceeds",),
                         dates=("collected_on", "unclaimed_due", "proceeds_due"),
                         rename={"id": "Nº", "office_code": "OM", "description": "Descrição", "quantity": "Qtd.",
                                 "place": "Local do achado", "collected_on": "Recolhida em", "finder_name": "Quem achou",
                                 "origin": "Procedência", "state_label": "Situação",
                                 "unclaimed_due": "Prazo do responsável (30 dias)", "proceeds": "Produto da venda",
                                 "proceeds_due": "Produto guardado até", "next_step": "Próximo passo"}),
             hide_index=True, width="stretch")

if len(df):
    st.subheader("Detalhe e registros")
    pick = st.selectbox("Coisa achada", df["id"].tolist(),
                        format_func=lambda i: f"nº {i} — {df.loc[df['id'] == i, 'description'].iloc[0]}")
    thing = ft.get_found_thing(store, user, int(pick), as_of=today)
    st.markdown(f"**{thing['description']}** ({thing['quantity']}) — {thing['state_label']}  \n"
                f"Achada em {thing['place']} por {thing['finder_name']}; recolhida pela {thing['office_code']} em "
                f"{thing['collected_on']:%d/%m/%Y}. Procedência: {ft.ORIGIN_LABELS[thing['current_origin']]}.  \n"
                f"**Próximo passo:** {thing['next_step']}")
    with st.expander(f"Prazo do responsável: {thing['unclaimed'].due:%d/%m/%Y} — como foi contado"):
        st.markdown("\n".join(f"- {s}" for s in thing["unclaimed"].steps) + f"\n\nBase: {thing['unclaimed'].basis}")
    if thing["proceeds_deadline"] is not None:
        with st.expander(f"Produto ({format_brl(thing['proceeds'])}) guardado até "
                         f"{thing['proceeds_deadline'].due:%d/%m/%Y} — como foi contado"):
            st.markdown("\n".join(f"- {s}" for s in thing["proceeds_deadline"].steps))
    if thing["events"]:
        events = pd.DataFrame(thing["events"]).drop(columns=["id", "found_id"])
        events["kind"] = [ft.EVENT_LABELS[k] for k in events["kind"]]
        st.dataframe(for_display(events, money=("amount",), dates=("event_date", "recorded_at"),
                                 rename={"kind": "Registro", "event_date": "Data", "amount": "Valor", "party": "Pessoa",
                                         "origin": "Procedência", "reference": "Documento", "note": "Observação",
                                         "recorded_by": "Registrado por", "recorded_at": "Registrado em"}),
                     hide_index=True, width="stretch")
    if thing["next_events"]:
        with st.form("event"):
            a, b = st.columns(2)
            kind = a.selectbox("Registrar", thing["next_events"], format_func=ft.EVENT_LABELS.get)
            event_date = b.date_input("Data", value=today, max_value=today, format="DD/MM/YYYY")
            c, d, e = st.columns(3)
            amount = c.text_input("Valor em R$ (custas pagas ou produto da venda; ex.: 1234,50)")
            party = d.text_input("Responsável / adquirente")
            origin = e.selectbox("Procedência identificada", ["", "nacional", "estrangeira"],
                                 format_func=lambda o: ft.ORIGIN_LABELS.get(o, "—"))
            reference = st.text_input("Documento (edital, processo, ofício)")
            note = st.text_input("Observação (na venda: por que é de difícil guarda)")
            sent = st.form_submit_button("Registrar", type="primary")
        if sent:
            data = {"kind": kind, "event_date": event_date, "amount": amount or None, "party": party or None,
                    "origin": origin or None, "reference": reference or None, "note": note or None}
            try:
                ft.record_found_event(store, user, int(pick), data, today=today)
            except InputError as exc:
                show_problems(exc)
            except (AccessDenied, NotFound, ConflictError) as exc:
                st.error(str(exc))
            else:
                st.session_state["found_flash"] = f"Registrado: {ft.EVENT_LABELS[kind]}."
                st.rerun()

with st.expander("Registrar coisa achada e entregue por terceiro"):
    office_codes = offices.list_offices(store, user)["code"].tolist()
    with st.form("register", clear_on_submit=False):
        a, b, c = st.columns(3)
        data = {
            "office_code": a.selectbox("Capitania/Delegacia/Agência que recolheu", office_codes),
            "collected_on": b.date_input("Recolhida em", value=today, max_value=today, format="DD/MM/YYYY"),
            "found_on": c.date_input("Achada em (se souber)", value=None, max_value=today, format="DD/MM/YYYY"),
            "description": st.text_area("Descrição"),
            "quantity": a.number_input("Quantidade", min_value=1, value=1, step=1),
            "place": b.text_input("Local do achado"),
            "origin": c.selectbox("Procedência", list(ft.ORIGINS), index=2, format_func=ft.ORIGIN_LABELS.get),
            "finder_name": a.text_input("Quem achou (nome)"),
            "finder_document": b.text_input("Documento de quem achou"),
            "finder_contact": c.text_input("Contato"),
            "wreck_code": a.text_input("Código do naufrágio (se for de um naufrágio cadastrado)"),
            "reference": b.text_input("Termo de arrecadação / ofício"),
            "notes": c.text_input("Observações"),
        }
        registered = st.form_submit_button("Registrar", type="primary")
    if registered:
        clean = {k: (v.strip() or None) if isinstance(v, str) else v for k, v in data.items()}
        try:
            new_id = ft.register_found_thing(store, user, clean, today=today)
        except InputError as exc:
            show_problems(exc)
        except (AccessDenied, NotFound, ConflictError) as exc:
            st.error(str(exc))
        else:
            st.session_state["found_flash"] = f"Coisa achada registrada (nº {new_id})."
            st.rerun()
