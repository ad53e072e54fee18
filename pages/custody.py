"""Entrega e custódia (Lei 7.542/1986 art. 23): undelivered items and their age per contract,
oldest first; DPC records deliveries to the Naval Authority (per item, per lot or in bulk)."""
from __future__ import annotations

import streamlit as st

from ui import cache, fields, figures, session
from ui.charts import pt_br, show
from ui.fields import date_field
from ui.fmt import count_br, for_display
from ui.forms import show_problems
from ui.people import with_names
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.db.access import allowed
from valuation.inventory import custody

# the form's labels, for problems that name a field
DELIVERY_LABELS = {"contract_code": "Contrato", "item_codes": "Códigos dos itens", "lot": "Lote (na seleção por lote)",
                   "recovered_to": "Só os recuperados até", "delivered_on": "Data da entrega",
                   "received_by": "Recebido por (posto e nome)", "place": "Local da entrega",
                   "note": "Observação (termo de entrega; obrigatória numa correção)"}

user = session.guard("custody")
store = session.store()
today = session.today()
st.title("Entrega e custódia dos bens resgatados")
st.caption("Art. 23: todo bem recuperado deve ser entregue à Autoridade Naval tão logo recuperado; até a entrega, "
           "o autorizado responde por ele como depositário. A idade é contada em dias desde a recuperação.")
if flash := st.session_state.pop("custody_flash", None):
    st.success(flash)

summary = cache.custody_summary(store, user, as_of=today)  # issue 17: the cache.* reads, per revision
bands = {column: label for column, _, label in custody.AGE_BANDS}
m = st.columns(4)
m[0].metric("Bens resgatados", count_br(summary["items"].sum()) if len(summary) else "0")
m[1].metric("Entregues", count_br(summary["delivered"].sum()) if len(summary) else "0")
m[2].metric("Não entregues", count_br(summary["undelivered"].sum()) if len(summary) else "0")
oldest = summary["max_age_days"].dropna()
m[3].metric("Mais antigo não entregue", f"{count_br(oldest.max())} dias" if len(oldest) else "—")

pending = summary[summary["undelivered"] > 0]
if len(pending):
    long = pending.melt(id_vars=["contract_code"], value_vars=list(bands), var_name="faixa", value_name="itens")
    long["faixa"] = long["faixa"].map(bands)
    fig = figures.bar(long, x="contract_code", y="itens", color="faixa",
                      category_orders={"faixa": list(bands.values())},
                      color_discrete_sequence=["#fdd49e", "#fdbb84", "#fc8d59", "#e34a33", "#b30000"],  # older = darker
                      labels={"contract_code": "Contrato", "itens": "Itens não entregues", "faixa": "Idade"},
                      title="Não entregues por idade")
    pt_br(fig, counts=("y",), legend="Idade", height=320)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 40, "b": 10})
    show(fig)
if len(summary):
    st.dataframe(for_display(summary, dates=("oldest_recovered_on",),
                             counts=("items", "delivered", "undelivered", "max_age_days", *bands),
                             rename={"contract_code": "Contrato", "organisation": "Empresa", "kind": "Tipo",
                                     "status": "Situação", "items": "Itens", "delivered": "Entregues",
                                     "undelivered": "Não entregues", "oldest_recovered_on": "Mais antigo recuperado em",
                                     "max_age_days": "Idade máxima (dias)", **bands}),
                 hide_index=True, width="stretch")
else:
    st.info("Nenhum contrato com bens resgatados.")

st.subheader("Não entregues — os mais antigos primeiro")
f1, f2, f3 = st.columns(3)
contract = f1.selectbox("Contrato", [""] + pending["contract_code"].tolist(), format_func=lambda c: c or "Todos")
lot = f2.text_input("Lote", key="list_lot")
if lot.strip():
    total = cache.custody_count(store, user, contract_code=contract or None, lot=lot.strip())
else:   # the summary has counted them already (the same rows: the user's contracts, no delivery)
    total = int(summary["undelivered"].sum() if not contract else
                summary.loc[summary["contract_code"] == contract, "undelivered"].sum())
pages = max(1, -(-total // 50))
page = f3.number_input(f"Página (de {count_br(pages)})", min_value=1, max_value=pages, value=1, step=1)
rows = cache.custody_items(store, user, as_of=today, contract_code=contract or None, lot=lot.strip() or None,
                          page=int(page), page_size=50)
if len(rows):
    st.dataframe(for_display(rows.drop(columns=["id"]), dates=("recovered_on",), counts=("quantity", "age_days"),
                             rename={"contract_code": "Contrato", "item_code": "Código do item",
                                     "description": "Descrição", "category": "Categoria", "quantity": "Quantidade",
                                     "lot": "Lote", "recovered_on": "Recuperado em", "age_days": "Dias sem entrega"}),
                 hide_index=True, width="stretch")
else:
    st.info("Nenhum bem à espera de entrega na seleção.")

if allowed(user, "record_deliveries"):
    st.subheader("Registrar entrega à Autoridade Naval")
    codes = summary["contract_code"].tolist()
    with st.form("delivery", clear_on_submit=False):
        a, b = st.columns(2)
        target = fields.choice_field("Contrato", codes, what="o contrato", where=a, path="contract_code")
        mode = b.radio("Selecionar", ["Itens (códigos)", "Lote", "Todos os não entregues do contrato"], horizontal=True)
        item_codes = st.text_area("Códigos dos itens (um por linha ou separados por vírgula)")
        c, d = st.columns(2)
        lot_in = c.text_input("Lote (na seleção por lote)")
        up_to = date_field("Só os recuperados até (lote ou todos; opcional)", where=d, path="recovered_to")
        e, f, g = st.columns(3)
        delivered_on = date_field("Data da entrega", value=today, max_value=today, required=True, where=e,
                                  path="delivered_on")
        received_by = f.text_input("Recebido por (posto e nome)")
        place = g.text_input("Local da entrega")
        note = st.text_input("Observação (termo de entrega; obrigatória numa correção)")
        correction = st.checkbox("Correção de entrega já registrada (só por códigos)")
        submitted = st.form_submit_button("Registrar entrega", type="primary")
    if submitted:
        data = {"contract_code": target, "delivered_on": delivered_on, "received_by": received_by, "place": place,
                "note": note or None, "correction": correction}
        if mode.startswith("Itens"):
            data["item_codes"] = item_codes
        elif mode == "Lote":
            data.update(lot=lot_in or None, recovered_to=up_to)
        else:
            data.update(all_undelivered=True, recovered_to=up_to)
        try:
            res = custody.record_deliveries(store, user, fields.read(data), today=today)
        except InputError as exc:
            show_problems(exc, labels=DELIVERY_LABELS)
        except (AccessDenied, NotFound, ConflictError) as exc:
            st.error(str(exc))
        else:
            skipped = f" ({count_br(res.skipped)} já entregues antes ficaram como estavam)" if res.skipped else ""
            st.session_state["custody_flash"] = (f"Entrega registrada: {count_br(res.recorded)} itens do contrato "
                                                 f"{res.contract_code} em {res.delivered_on:%d/%m/%Y}{skipped}.")
            st.rerun()

st.subheader("Últimos registros de entrega")
recent = cache.custody_recent(store, user)
if len(recent):
    recent = with_names(store, user, recent, "recorded_by")
    st.dataframe(for_display(recent, dates=("delivered_on", "recorded_at"), counts=("items",),
                             rename={"contract_code": "Contrato", "delivered_on": "Entregue em",
                                     "received_by": "Recebido por", "place": "Local", "note": "Observação",
                                     "items": "Itens", "recorded_by": "Registrado por",
                                     "recorded_at": "Registrado em"}), hide_index=True, width="stretch")
else:
    st.info("Nenhuma entrega registrada.")
