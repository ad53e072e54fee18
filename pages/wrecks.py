"""Naufrágios: registry with filters, a map of the positions the user is cleared for, detail, and (DPC) registration."""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from ui import session
from ui.fmt import for_display, yes_no
from ui.forms import blanks_to_none, save
from ui.fmt import GEO_CONFIG
from valuation.law import CASUALTY_TYPES
from valuation.positions import DATUMS
from valuation.store import offices, wrecks

user = session.guard("wrecks")
store = session.store()
st.title("Naufrágios")
st.caption("Posições são sigilosas (NORMAM-10 0105): só aparecem para quem tem acesso ao naufrágio; "
           "os demais veem a jurisdição (Capitania e UF).")

office_df = offices.list_offices(store, user)
c1, c2, c3, c4 = st.columns(4)
state = c1.selectbox("UF", [""] + sorted(office_df["state"].unique().tolist()), format_func=lambda s: s or "Todas")
hull = c2.selectbox("Casco", [""] + list(wrecks.HULL_MATERIALS), format_func=lambda s: s or "Todos")
century = c3.selectbox("Século do sinistro", [0] + list(range(16, 22)), format_func=lambda c: f"séc. {c}" if c else "Todos")
search = c4.text_input("Buscar (nome, código, bandeira)")
df = wrecks.list_wrecks(store, user, state=state or None, hull=hull or None, century=century or None, search=search)

st.metric("Naufrágios listados", len(df))
mapped = df[df["lat"].notna()] if len(df) else df
if len(mapped):
    fig = px.scatter_geo(mapped, lat="lat", lon="lon", hover_name="name", color="hull_material",
                         hover_data={"code": True, "office_code": True, "lat": False, "lon": False},
                         labels={"hull_material": "casco"}, height=520)
    fig.update_geos(projection_type="mercator", lataxis_range=[-35, 6], lonaxis_range=[-55, -28], resolution=50,
                    showcountries=True, showland=True, landcolor="#efe9dc", showocean=True, oceancolor="#dcecf7")
    fig.update_layout(margin={"l": 0, "r": 0, "t": 0, "b": 0})
    st.plotly_chart(fig, width="stretch", config=GEO_CONFIG)
else:
    st.info("Nenhuma posição liberada para o seu perfil entre os naufrágios listados.")

table = df[["code", "name", "hull_material", "casualty_year", "casualty_type", "situation", "office_code", "state",
            "position_cleared"]].copy() if len(df) else df
if len(table):
    table["position_cleared"] = [yes_no(bool(v)) for v in table["position_cleared"]]
st.dataframe(for_display(table, rename={"code": "Código", "name": "Nome", "hull_material": "Casco",
                                        "casualty_year": "Ano", "casualty_type": "Sinistro", "situation": "Situação",
                                        "office_code": "OM", "state": "UF", "position_cleared": "Posição liberada"}),
             hide_index=True, width="stretch")

if len(df):
    st.subheader("Detalhe")
    choice = st.selectbox("Naufrágio", df["id"].tolist(),
                          format_func=lambda i: f"{df.loc[df['id'] == i, 'code'].iloc[0]} — {df.loc[df['id'] == i, 'name'].iloc[0]}")
    w = wrecks.get_wreck(store, user, int(choice))
    precision = {"day": "dia", "month": "mês", "year": "ano", "century": "século"}[w["casualty_precision"]]
    a, b = st.columns(2)
    a.markdown(f"**{w['name']}** ({w['code']})  \n"
               f"Tipo: {w.get('vessel_type') or '—'} · Bandeira: {w.get('flag') or '—'}  \n"
               f"Casco: {w['hull_material']} · Sinistro: {w['casualty_type']} em {w['casualty_year']} (precisão: {precision})  \n"
               f"Situação: {w['situation']} · Área protegida: {yes_no(w['protected_area'])}")
    b.markdown(f"**Posição:** {w['position_text']}  \n"
               f"Jurisdição: {w['office_name']} ({w['state']})  \n"
               f"Contratos: {', '.join(w['contracts']) or '—'}")

if user.role == "dpc":
    with st.expander("Cadastrar naufrágio"):
        with st.form("new_wreck"):
            f1, f2, f3 = st.columns(3)
            data = {
                "code": f1.text_input("Código"), "name": f2.text_input("Nome da embarcação"),
                "vessel_type": f3.text_input("Tipo de embarcação"),
                "hull_material": f1.selectbox("Material do casco", wrecks.HULL_MATERIALS),
                "casualty_type": f2.selectbox("Tipo de sinistro", CASUALTY_TYPES),
                "casualty_precision": f3.selectbox("Precisão da data", wrecks.PRECISIONS),
                "casualty_year": f1.text_input("Ano do sinistro"), "casualty_month": f2.text_input("Mês"),
                "casualty_day": f3.text_input("Dia"),
                "latitude": f1.text_input("Latitude (ex.: 22°54,35' S)"),
                "longitude": f2.text_input("Longitude (ex.: 043°10,20' W)"),
                "datum": f3.selectbox("Datum", DATUMS),
                "position_approximate": f1.checkbox("Posição aproximada"),
                "office_code": f2.selectbox("Capitania/Delegacia/Agência", office_df["code"].tolist()),
                "situation": f3.selectbox("Situação", wrecks.SITUATIONS),
                "visible_high_tide": f1.checkbox("Visível na preamar"),
                "visible_low_tide": f2.checkbox("Visível na baixa-mar"),
                "protected_area": f3.checkbox("Em área protegida"),
                "signalling": st.text_input("Sinalização"),
            }
            submitted = st.form_submit_button("Cadastrar")
        if submitted:
            save(wrecks.create_wreck, store, user, blanks_to_none(data), success="Naufrágio cadastrado (id {result}).")
