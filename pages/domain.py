"""Domínio dos naufrágios: a quem pertencem as coisas de cada naufrágio e desde quando.

Lei 7.542/1986 arts. 3 I, 6, 7 e 32: faixa de datas quando o sinistro só é conhecido
pelo ano ou pelo século; os intervalos de suspensão do art. 6 parágrafo único.
"""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from ui import session
from ui.charts import pt_br, show
from ui.fmt import count_br, for_display, is_blank
from ui.safe import md
from valuation.core.errors import AccessDenied, ValuationError
from valuation.registry.domain.queries import domain_statuses
from valuation.registry.offices import list_offices

PAGE_SIZE = 100
SHOWN = {"code": "Código", "name": "Embarcação", "office_code": "OM", "casualty": "Sinistro", "owner_pt": "Domínio",
         "since": "Da União desde", "since_max": "… ou até", "lapse_due": "Último dia p/ licença",
         "owner_name": "Responsável", "suspensions": "Suspensões (art. 6)"}

user = session.guard("domain")
store = session.store()
st.title("Domínio dos naufrágios")
st.caption("Incorporação ao domínio da União: declaração de perda (art. 3 I), prazo de 5 anos sem pedido de "
           "licença (arts. 6 e 7) e naufrágios antigos (art. 32). Datas incertas são calculadas nos dois extremos.")

c1, c2 = st.columns(2)
as_of = c1.date_input("Situação em", value=session.today(), format="DD/MM/YYYY")
codes = list_offices(store, user)["code"].tolist()
office = c2.selectbox("Capitania/Delegacia/Agência", [None, *codes], format_func=lambda c: c or "Todas")
try:
    df = domain_statuses(store, user, as_of, office=office)
except (AccessDenied, ValuationError) as exc:
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
fig = px.bar(by_office, x="office_code", y="n", color="Domínio",
             color_discrete_map={"União": "#2e5f8a", "Particular (responsável)": "#e67e22", "Incerto": "#8e44ad"},
             labels={"office_code": "Capitania/Delegacia/Agência", "n": "Naufrágios"})
fig.update_traces(hovertemplate="%{x}: %{y} naufrágio(s)<extra></extra>")
show(pt_br(fig, counts=("y",), legend="Domínio", height=360))

pages = max(1, -(-len(df) // PAGE_SIZE))
page = int(st.number_input(f"Página (de {count_br(pages)})", min_value=1, max_value=pages, value=1, step=1)) \
    if pages > 1 else 1
shown = df.iloc[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
st.dataframe(for_display(shown, dates=["since", "since_max", "lapse_due"], only=list(SHOWN), rename=SHOWN),
             hide_index=True, width="stretch")

names = dict(zip(shown["code"], shown["name"]))
code = st.selectbox("Explicar um naufrágio", shown["code"].tolist(), format_func=lambda c: f"{c} — {names[c]}")
row = df[df["code"] == code].iloc[0]
st.subheader(f"{md(row['code'])} — {row['owner_pt']}")
if not is_blank(row["suspensions"]):
    st.text("Suspensões do prazo (art. 6 parágrafo único):\n" + row["suspensions"])
if not is_blank(row["court_pending"]):
    st.text(f"Tribunal Marítimo (política, Lei 2.180 art. 20): {row['court_pending']}")
st.text(f"Fundamento: {row['basis']}\n\n{row['steps']}")
