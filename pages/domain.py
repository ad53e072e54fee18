"""Domínio dos naufrágios: a quem pertencem as coisas de cada naufrágio e desde quando.

Lei 7.542/1986 arts. 3 I, 6, 7 e 32: faixa de datas quando o sinistro só é conhecido
pelo ano ou pelo século; os intervalos de suspensão do art. 6 parágrafo único — entre eles o
período de cada determinação de remoção (arts. 5, 9, 10), registrada aqui — e o saldo mantido
à disposição do responsável depois da alienação por sua conta (art. 13 §2).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from ui import figures, session
from ui import signatures as signatures_ui
from ui.charts import pt_br, show
from ui.expanders import lazy_expander
from ui.fields import choice_field, date_field, money_field, value_or_stop
from ui.fmt import count_br, for_display, is_blank, option_label
from ui.forms import blanks_to_none, save
from ui.safe import md
from valuation.core.errors import ValuationError
from valuation.db.access import allowed
from valuation.proceedings import removal_order_act
from valuation.registry import owner_balances, removal_orders
from valuation.registry.domain.queries import domain_statuses
from valuation.registry.offices import list_offices

if TYPE_CHECKING:
    import pandas as pd

PAGE_SIZE = 100
SHOWN = {"code": "Código", "name": "Embarcação", "office_code": "OM", "casualty": "Sinistro", "owner_pt": "Domínio",
         "since": "Da União desde", "since_max": "… ou até", "lapse_due": "Último dia p/ licença",
         "owner_name": "Responsável", "suspensions": "Suspensões (art. 6)",
         "site": "Sítio arqueológico (CF art. 20 X)", "cargo_owner_pt": "Carga: domínio (arts. 13 §1 e 14)",
         "cargo_since": "Carga: da União desde"}

user = session.guard("domain")
store = session.store()
st.title("Domínio dos naufrágios")
st.caption("Incorporação ao domínio da União: declaração de perda (art. 3 I), prazo de 5 anos sem pedido de "
           "licença (arts. 6 e 7) e naufrágios antigos (art. 32). Datas incertas são calculadas nos dois extremos.")

c1, c2 = st.columns(2)
as_of = value_or_stop(date_field("Situação em", value=session.today(), required=True, where=c1))
mine = session.user_office(user)      # an office officer: its own office, no other choice
codes = [mine] if mine else list_offices(store, user)["code"].tolist()
office = c2.selectbox("Capitania/Delegacia/Agência", codes if mine else [None, *codes],
                      format_func=lambda c: c or "Todas")
try:
    df = domain_statuses(store, user, as_of, office=office)
except ValuationError as exc:
    st.error(str(exc))
    st.stop()

if df.empty:
    st.info("Nenhum naufrágio cadastrado.")
    st.stop()
counts = df["owner"].value_counts()
m = st.columns(3)
m[0].metric("Da União", count_br(int(counts.get("union", 0))))
m[1].metric("Do responsável", count_br(int(counts.get("private", 0))))
m[2].metric("Incertos (data do sinistro)", count_br(int(counts.get("uncertain", 0))))

by_office = df.groupby(["office_code", "owner_pt"]).size().reset_index(name="n")
by_office["Domínio"] = [o[:1].upper() + o[1:] for o in by_office["owner_pt"]]
fig = figures.bar(by_office, x="office_code", y="n", color="Domínio",
                  color_discrete_map={"União": "#2e5f8a", "Particular (responsável)": "#e67e22",
                                      "Incerto": "#8e44ad"},
                  labels={"office_code": "Capitania/Delegacia/Agência", "n": "Naufrágios"})
fig.update_traces(hovertemplate="%{x}: %{y} naufrágio(s)<extra></extra>")
show(pt_br(fig, counts=("y",), legend="Domínio", height=360))

pages = max(1, -(-len(df) // PAGE_SIZE))
page = int(st.number_input(f"Página (de {count_br(pages)})", min_value=1, max_value=pages, value=1, step=1)) \
    if pages > 1 else 1
shown = df.iloc[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
st.dataframe(for_display(shown, dates=["since", "since_max", "lapse_due", "cargo_since"], only=list(SHOWN),
                         rename=SHOWN),
             hide_index=True, width="stretch")

names = dict(zip(shown["code"], shown["name"]))
code = st.selectbox("Explicar um naufrágio", shown["code"].tolist(), format_func=lambda c: f"{c} — {names[c]}")
row = df[df["code"] == code].iloc[0]
st.subheader(f"{md(row['code'])} — {row['owner_pt']}")
if not is_blank(row["suspensions"]):
    st.text("Suspensões do prazo (art. 6 parágrafo único):\n" + row["suspensions"])
if not is_blank(row["site"]):
    st.text(f"Sítio arqueológico registrado: {row['site']} — bem da União (Constituição Federal art. 20 X; "
            "Lei 3.924/1961), qualquer que seja o prazo de 5 anos do art. 6.")
if not is_blank(row["court_pending"]):
    st.text(f"Tribunal Marítimo (política, Lei 2.180 art. 20): {row['court_pending']}")
st.text(f"Fundamento: {row['basis']}\n\n{row['steps']}")


ORDERS = {"nup": "NUP", "wreck_code": "Naufrágio", "act": "Ato", "kind": "Providência", "ordered_on": "Determinada em",
          "notice": "Intimação", "starts_by": "Início fixado", "ends_by": "Término fixado", "state_pt": "Situação"}
BALANCES = {"wreck_code": "Naufrágio", "owner_name": "Responsável", "disposed_on": "Alienação", "proceeds": "Produto",
            "union_costs": "Despesas da União", "balance": "Saldo", "paid_on": "Entregue em"}


def order_form(codes: list[str]) -> None:
    labels = removal_orders.LABELS
    with lazy_expander("Registrar determinação de remoção (art. 5)", key="domain_removal_box") as opened:
        if opened:
            with st.form("removal_order", clear_on_submit=True):
                a, b, c = st.columns(3)
                data = {"wreck_code": choice_field(labels["wreck_code"], codes, what="o naufrágio", where=a,
                                                   path="wreck_code"),
                        "kind": b.selectbox(labels["kind"], removal_orders.ORDER_KINDS),
                        "act": c.text_input(labels["act"], placeholder="Ofício nº 12/2026-CPRJ"),
                        "ordered_on": date_field(labels["ordered_on"], where=a, path="ordered_on"),
                        "notice": b.selectbox(labels["notice"], removal_orders.NOTICES,
                                              format_func=option_label(removal_orders.NOTICE_LABELS)),
                        "notified_on": date_field(labels["notified_on"], where=c, path="notified_on"),
                        "published_on": date_field(labels["published_on"], where=a, path="published_on"),
                        "starts_by": date_field(labels["starts_by"], where=b, path="starts_by"),
                        "ends_by": date_field(labels["ends_by"], where=c, path="ends_by"),
                        "reason": st.text_input(labels["reason"])}
                if st.form_submit_button("Registrar determinação", type="primary"):
                    save(removal_orders.record_removal_order, store, user, blanks_to_none(data), labels=labels,
                         success="Determinação nº {result} registrada; o prazo de 5 anos fica suspenso "
                                 "enquanto vigorar (art. 6 parágrafo único II).")


def order_steps(orders: pd.DataFrame) -> None:
    """Takeover (art. 10) and end of an order still running."""
    running = orders[orders["ended_on"].isna()] if len(orders) else orders
    if running.empty:
        return
    titles = {int(r["id"]): f"{r['wreck_code']} — {r['act']}" for r in running.to_dict("records")}
    with st.form("removal_step", clear_on_submit=True):
        a, b, c = st.columns(3)
        pick = choice_field("Determinação em curso", list(titles), what="a determinação", where=a,
                            format_func=option_label(titles))
        step = b.selectbox("Registrar", ("início pelo responsável", "assunção pela Autoridade Naval (art. 10)",
                                         "remoção concluída", "determinação revogada"))
        day = date_field("Data", where=c, path="day")
        if st.form_submit_button("Registrar etapa"):
            if step.startswith("início"):
                save(removal_orders.record_removal_start, store, user, pick, {"day": day},
                     labels=removal_orders.LABELS, success="Início registrado.")
            elif step.startswith("assunção"):
                save(removal_orders.record_takeover, store, user, pick, {"day": day}, labels=removal_orders.LABELS,
                     success="Assunção registrada (art. 10).")
            else:
                kind = "concluída" if step.startswith("remoção") else "revogada"
                save(removal_orders.end_order, store, user, pick, {"day": day, "end_kind": kind},
                     labels=removal_orders.LABELS, success="Determinação encerrada; a suspensão do prazo de 5 anos "
                                                           "termina nesse dia.")


ORDER_ISSUED_KEY = "domain_order_issued"     # what the last "Emitir determinação" did, shown once


def order_act_box(orders: pd.DataFrame) -> None:
    """The order as an issued act (issue 43, item 15): issued once as a PDF with its code and signed by the
    institutional A1, downloaded as it stands, its signatures and the upload box."""
    if orders.empty:
        return
    titles = {int(r["id"]): f"nº {r['id']} — {r['wreck_code']} — {r['act']}" for r in orders.to_dict("records")}
    st.markdown("**Ato da determinação** (PDF com código de verificação, NUP e assinatura eletrônica)")
    for kind, line in st.session_state.pop(ORDER_ISSUED_KEY, []):
        {"success": st.success, "warning": st.warning, "info": st.info}[kind](md(line))
    pick = st.selectbox("Determinação", list(titles), format_func=option_label(titles), key="domain_order_act")
    act = removal_order_act.order_act(store, user, int(pick))
    if act.code is None or not act.current:
        if act.code is not None:
            st.caption(f"A determinação mudou desde a emissão do ato {act.code}: emita a nova versão.")
        if st.button("Emitir determinação (PDF)", key="domain_order_issue", type="primary"):
            with st.spinner("Emitindo e assinando a determinação…"):
                issued = save(removal_order_act.issue_removal_order, store, user, int(pick), success=None,
                              title="Não foi possível emitir:")
            if issued is not None:
                code, signing = issued
                st.session_state[ORDER_ISSUED_KEY] = [
                    ("success", f"Emitida a determinação nº {pick} (código {code})."),
                    ("success" if signing.signed else "warning" if signing.configured else "info", signing.text)]
                st.rerun()
    if act.code is not None:
        st.download_button("Baixar determinação (PDF)", key=f"domain_order_pdf_{pick}", on_click="ignore",
                           data=lambda: removal_order_act.removal_order_file(store, user, int(pick)) or b"",
                           file_name=f"determinacao_{pick}.pdf", mime="application/pdf",
                           icon=":material/picture_as_pdf:")
        signatures_ui.panel(store, user, "removal_orders", int(pick), key=f"domain_order_signatures_{pick}")


def edital_publications(orders: pd.DataFrame) -> None:
    """The publications of each edital (art. 9 §2): once in each outlet; the 15 days run from the last."""
    by_edital = orders[orders["notice"] == "edital"] if len(orders) else orders
    if by_edital.empty:
        return
    titles = {int(r["id"]): f"{r['wreck_code']} — {r['act']}" for r in by_edital.to_dict("records")}
    st.markdown("**Publicações do edital** (Lei 7.542/1986 art. 9 §2: uma vez em cada veículo; o prazo de 15 dias "
                "é contado da última publicação — leitura adotada: a lei não diz de qual publicação ele corre)")
    pubs = removal_orders.list_edital_publications(store, user)
    if pubs:
        st.dataframe(for_display(pd_frame(pubs, titles), dates=["published_on"], rename={"published_on": "Publicação"}),
                     hide_index=True, width="stretch")
    else:
        st.caption("Nenhuma publicação registrada.")
    if not allowed(user, "manage_removal_orders"):
        return
    labels = removal_orders.LABELS
    with st.form("edital_publication", clear_on_submit=True):
        a, b, c, d = st.columns(4)
        pick = choice_field("Determinação por edital", list(titles), what="a determinação", where=a,
                            format_func=option_label(titles))
        data = {"outlet": b.selectbox(labels["outlet"], removal_orders.OUTLETS,
                                      format_func=option_label(removal_orders.OUTLET_LABELS)),
                "published_on": date_field(labels["published_on"], where=c, path="published_on"),
                "reference": d.text_input(labels["reference"], placeholder="Seção 3, p. 41")}
        if st.form_submit_button("Registrar publicação"):
            save(removal_orders.record_edital_publication, store, user, pick, blanks_to_none(data), labels=labels,
                 success="Publicação registrada; o prazo do edital conta da última publicação (leitura adotada do "
                         "art. 9 §2).")


def pd_frame(pubs: list[dict[str, object]], titles: dict[int, str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame([{"Determinação": titles.get(int(str(p["removal_order_id"])), "—"), "Veículo": p["outlet_pt"],
                          "published_on": p["published_on"], "Edição e página": p["reference"]} for p in pubs])


def balance_form(codes: list[str]) -> None:
    labels = owner_balances.LABELS
    with lazy_expander("Registrar saldo do responsável (art. 13 §2)", key="domain_balance_box") as opened:
        if opened:
            with st.form("owner_balance", clear_on_submit=True):
                a, b, c = st.columns(3)
                data = {"wreck_code": choice_field(labels["wreck_code"], codes, what="o naufrágio", where=a,
                                                   path="wreck_code"),
                        "disposed_on": date_field(labels["disposed_on"], where=b, path="disposed_on"),
                        "proceeds": money_field(labels["proceeds"], placeholder="ex.: 84.300,00", where=c,
                                                path="proceeds"),
                        "union_costs": money_field(labels["union_costs"], placeholder="ex.: 61.875,40", where=a,
                                                   path="union_costs"),
                        "note": st.text_input(labels["note"])}
                if st.form_submit_button("Registrar saldo", type="primary"):
                    save(owner_balances.record_owner_balance, store, user, blanks_to_none(data), labels=labels,
                         success="Saldo nº {result} registrado.")


st.subheader("Determinações de remoção (Lei 7.542/1986 arts. 5, 9 e 10)")
orders = removal_orders.list_removal_orders(store, user)
if orders.empty:
    st.caption("Nenhuma determinação de remoção registrada.")
else:
    st.dataframe(for_display(orders, dates=["ordered_on", "starts_by", "ends_by"], only=list(ORDERS),
                             labels={"notice": removal_orders.NOTICE_LABELS}, rename=ORDERS),
                 hide_index=True, width="stretch")
if allowed(user, "manage_removal_orders"):      # headquarters orders removals (art. 5); the offices read them
    order_form(df["code"].tolist())
    order_act_box(orders)
    order_steps(orders)
edital_publications(orders)
if allowed(user, "manage_owner_balances"):      # headquarters: the owner's balances (art. 13 §2)
    st.subheader("Saldos à disposição do responsável (art. 13 §2)")
    balances = owner_balances.list_owner_balances(store, user)
    if balances.empty:
        st.caption("Nenhum saldo registrado.")
    else:
        st.dataframe(for_display(balances, dates=["disposed_on", "paid_on"],
                                 money=["proceeds", "union_costs", "balance"], only=list(BALANCES), rename=BALANCES),
                     hide_index=True, width="stretch")
        st.caption("Cada saldo aparece na página Prazos com a data em que passa a receita da União.")
    balance_form(df["code"].tolist())
