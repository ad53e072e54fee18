"""Naufrágios: registry with filters, a map of the positions the user is cleared for, detail, and (DPC) registration."""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from page_tabs.wrecks import parties, record, site
from page_tabs.wrecks.view import WreckView
from ui import cache, figures, session
from ui.charts import show
from ui.fields import choice_field, date_field
from ui.fmt import count_br, date_br, for_display, is_blank, option_label, text, yes_no
from ui.forms import blanks_to_none, save
from ui.safe import md
from ui.tabs import LazyTabs
from valuation.core.law import PREFERENCE_EQUAL_TERMS
from valuation.db.access import allowed
from valuation.registry import co_signatures, offices, preference, wrecks
from valuation.registry.contracts import list_contracts
from valuation.registry.domain.queries import casualty_text

if TYPE_CHECKING:
    import pandas as pd

TABLE = {"code": "Código", "name": "Nome", "hull_material": "Casco", "casualty": "Data do sinistro",
         "casualty_type": "Sinistro", "situation": "Situação", "office_code": "OM", "state": "UF",
         "position_cleared": "Posição liberada"}


def whole(v: object) -> int | None:
    """A frame's nullable whole number (Int64 <NA>, NaN) as int or None, never truth-tested."""
    return None if is_blank(v) else int(v)  # type: ignore[call-overload]  # a number once not blank


def wreck_map_chart(mapped: pd.DataFrame) -> None:
    fig = figures.scatter_geo(mapped, lat="lat", lon="lon", hover_name="name", color="Casco",
                              hover_data={"code": True, "office_code": True, "lat": False, "lon": False,
                                          "Casco": False},
                              labels={"code": "Código", "office_code": "OM"}, height=560)
    # The 1:50m outlines of South America alone (static/topojson/south-america_50m.json, 169 KB), not of the
    # whole world (1.1 MB, drawn in full on every view: the map took a second to settle; bench/README.md); east
    # of 30° W the outlines end, and the sea there is the background's colour.
    fig.update_geos(scope="south america", projection_type="mercator", lataxis_range=[-35, 6],
                    lonaxis_range=[-55, -28], resolution=50, showcountries=True, showland=True, landcolor="#efe9dc",
                    showocean=True, oceancolor="#dcecf7", bgcolor="#dcecf7")
    fig.update_layout(margin={"l": 0, "r": 0, "t": 0, "b": 0}, legend_title_text="Casco", separators=",.",
                      legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"})
    show(fig)


def detail(df: pd.DataFrame) -> None:
    st.subheader("Detalhe")
    titles = {i: f"{c} — {n}" for i, c, n in zip(df["id"], df["code"], df["name"])}
    choice = st.selectbox("Naufrágio", list(titles), format_func=option_label(titles))
    w = wrecks.get_wreck(store, user, int(choice))
    precision = wrecks.PRECISION_LABELS.get(w["casualty_precision"], w["casualty_precision"])
    when = casualty_text(w["casualty_year"], w["casualty_month"], w["casualty_day"], w["casualty_precision"])
    a, b = st.columns(2)
    a.markdown(f"**{md(w['name'])}** ({md(w['code'])})  \n"
               f"Tipo: {md(text(w.get('vessel_type')))} · Bandeira: {md(text(w.get('flag')))}  \n"
               f"Casco: {md(w['hull_material'])} · Sinistro: {md(w['casualty_type'])} em {when} "
               f"(data conhecida até o {precision})  \n"
               f"Situação: {md(w['situation'])} · Área protegida: {yes_no(w['protected_area'])}")
    position = md(w['position_text']) if w['position_cleared'] else "sigilosa (NORMAM-10 (ed. 2002) 0105)"
    b.markdown(f"**Posição:** {position}  \n"
               f"Jurisdição: {md(w['office_name'])} ({w['state']})  \n"
               f"Contratos: {md(', '.join(w['contracts']) or '—')}")
    contracts_of(int(choice))
    if allowed(user, "read_preference"):
        ranking(int(choice))
    wreck_tabs(w)
    if allowed(user, "correct_registry") and w["position_cleared"]:   # its office's, for an office officer
        record.correct_box(store, user, int(choice))
    record.history_box(store, user, int(choice))


# issue 25: the wreck's responsible parties (Lei 7.542 arts. 8, 13 §1, 14) and its archaeological site
WRECK_TABS = {"Sítio arqueológico": site.render, "Responsáveis e carga": parties.render}


def wreck_tabs(w: dict[str, object]) -> None:
    names = [n for n in WRECK_TABS if n != "Responsáveis e carga" or allowed(user, "read_owners")]
    tabs = LazyTabs("wrecks", names)   # only the open tab runs (issue 17)
    with tabs.panel():
        WRECK_TABS[tabs.current](WreckView(user=user, store=store, wreck=w))


CONTRACTS = {"code": "Contrato", "kind": "Tipo", "organisation_name": "Empresa", "requested_on": "Pedido em",
             "signed_on": "Assinado em", "state_pt": "Situação", "co_signed_on": "Coassinatura (MinC)"}


def contracts_of(wreck_id: int) -> None:
    """The wreck's contracts with their state (the co-signature of art. 20 §1 included)."""
    found = list_contracts(store, user, wreck_id=wreck_id, counts=False)
    if found.empty:
        return
    st.dataframe(for_display(found, dates=["requested_on", "signed_on", "co_signed_on"], only=list(CONTRACTS),
                             rename=CONTRACTS), hide_index=True, width="stretch")
    missing = found[[bool(v) for v in found["co_signature_missing"]]]
    if len(missing):
        st.warning(", ".join(missing["code"]) + f": {co_signatures.MISSING_TEXT}. Seus prazos ficam suspensos até "
                                                "que a coassinatura seja registrada.")
        if allowed(user, "record_co_signature"):
            co_signature_form(missing["code"].tolist())


def co_signature_form(codes: list[str]) -> None:
    labels = co_signatures.LABELS
    with st.form("co_signature", clear_on_submit=True):
        a, b = st.columns(2)
        data = {"contract_code": choice_field(labels["contract_code"], codes, what="o contrato", where=a,
                                              path="contract_code"),
                "signed_on": date_field(labels["signed_on"], where=b, path="signed_on"),
                "act": a.text_input(labels["act"], placeholder="Termo de coassinatura nº 01/2026-MinC"),
                "signatory": b.text_input(labels["signatory"])}
        if st.form_submit_button("Registrar coassinatura"):
            save(co_signatures.record_co_signature, store, user, blanks_to_none(data), labels=labels,
                 success="Coassinatura registrada: o contrato entra em vigor e seus prazos voltam a correr.")


def ranking(wreck_id: int) -> None:
    """Competing requests for the wreck, ranked under art. 16 §2 with the basis of each place."""
    ranked = preference.preference_ranking(store, user, wreck_id)
    if not ranked:
        return
    st.markdown("**Pedidos de exploração ou remoção e preferência (Lei 7.542/1986 art. 16 §2)**")
    st.table([{"Ordem": f"{r.place}º", "Pedido": r.request.contract_code, "Empresa": r.request.organisation,
               "Pedido em": date_br(r.request.requested_on),
               "Preferência": preference.PREFERENCE_LABELS[r.preference], "Fundamento": r.basis, "Observação": r.note}
              for r in ranked])
    st.caption(("Pedidos concorrentes. " if len(ranked) > 1 else "Sem pedidos concorrentes. ")
               + f"Preferência: {PREFERENCE_EQUAL_TERMS}; a Autoridade Naval compara as condições oferecidas.")


user = session.guard("wrecks")
store = session.store()
st.title("Naufrágios")
st.caption("Posições são sigilosas (NORMAM-10 (ed. 2002) 0105): só aparecem para quem tem acesso ao naufrágio; "
           "os demais veem a jurisdição (Capitania e UF).")

office_df = offices.list_offices(store, user)
c1, c2, c3, c4 = st.columns(4)
state = c1.selectbox("UF", [""] + sorted(office_df["state"].unique().tolist()), format_func=lambda s: s or "Todas")
hull = c2.selectbox("Casco", [""] + list(wrecks.HULL_MATERIALS), format_func=lambda s: s or "Todos")
century = c3.selectbox("Século do sinistro", [0] + list(range(16, 22)),
                       format_func=lambda c: f"séc. {c}" if c else "Todos")
search = c4.text_input("Buscar (nome, código, bandeira)")
df = cache.wreck_list(store, user, state=state or None, hull=hull or None, century=century or None,  # issue 17
                      search=search)

st.metric("Naufrágios listados", count_br(len(df)))
mapped = df[df["lat"].notna()].copy() if len(df) else df
if len(mapped):
    mapped["Casco"] = mapped["hull_material"]
    wreck_map_chart(mapped)
elif len(df):
    st.info("Nenhuma posição liberada para o seu perfil entre os naufrágios listados.")

if len(df):
    table = df.copy()
    table["casualty"] = [casualty_text(int(y), whole(m), whole(d), p) for y, m, d, p in
                         zip(table["casualty_year"], table["casualty_month"], table["casualty_day"],
                             table["casualty_precision"])]
    table["position_cleared"] = [yes_no(bool(v)) for v in table["position_cleared"]]
    st.dataframe(for_display(table, only=list(TABLE), rename=TABLE), hide_index=True, width="stretch")
    detail(df)
else:
    st.info("Nenhum naufrágio encontrado com estes filtros.")

if allowed(user, "create_owner"):
    record.owners_box(store, user)
if allowed(user, "create_wreck"):
    record.register_box(store, user)
