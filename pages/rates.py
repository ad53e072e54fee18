"""Câmbio: the rate table the Commission's values are converted with (BRL per unit, PTAX-style;
a price converts at the rate of its date or the latest earlier one, never a later one).
Everyone of the Commission and the DPC reads it; the president and the DPC enter a rate or import a
series (all or nothing, every bad line listed)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import session
from ui.fields import date_field, money_field, value_or_stop
from ui.fmt import count_br, date_br, for_display, rate_br
from ui.forms import save, show_problems
from ui.people import with_names
from valuation.commission.rates import MAX_RATE, MIN_RATE, add_rate, import_rates, list_rates
from valuation.commission.views import known_currencies, problems_frame
from valuation.core.errors import AccessDenied, ConflictError, InputError
from valuation.db.access import allowed

PAGE_SIZE = 50
FORM_LABELS = {"currency": "Moeda (código ISO)", "day": "Data", "brl": "Taxa (R$ por unidade)", "source": "Fonte"}
FILTER_LABELS = {"currency": "Moeda", "start": "De", "end": "Até", "page": "Página"}
SAMPLE = "data;moeda;taxa\n01/09/2026;USD;5,4120\n01/09/2026;EUR;6,2850\n02/09/2026;USD;5,4301\n"

user = session.guard("rates")
store = session.store()
st.title("Câmbio")
st.caption("Taxas em reais por unidade da moeda (ex.: PTAX de venda do Banco Central). O valor de um membro em "
           "moeda estrangeira é convertido pela taxa da data do preço ou, na falta dela, pela última anterior — "
           "nunca por uma posterior; a taxa usada fica gravada com a avaliação.")
may_write = allowed(user, "add_rates")

if may_write:
    entry, upload = st.columns(2)
    with entry, st.form("rate_entry", clear_on_submit=False):
        st.markdown("**Cadastrar uma taxa**")
        c1, c2 = st.columns(2)
        currency = c1.text_input(FORM_LABELS["currency"], value="USD", max_chars=3)
        day = date_field(FORM_LABELS["day"], value=session.today(), max_value=session.today(), required=True, where=c2,
                         path="day")
        c3, c4 = st.columns(2)
        brl = money_field(FORM_LABELS["brl"], placeholder="ex.: 5,7810", minimum=MIN_RATE, maximum=MAX_RATE, places=6,
                          required=True, where=c3, path="brl")
        source = c4.text_input(FORM_LABELS["source"], value="PTAX venda (BCB)")
        replace = st.checkbox("Substituir a taxa já cadastrada nesta data (correção)")
        if st.form_submit_button("Gravar taxa", type="primary"):
            row = save(add_rate, store, user, currency, day, brl, source=source, replace=replace,
                       success="Taxa gravada.", labels=FORM_LABELS)
            if row is not None:
                st.caption(f"Taxa de {row.currency} em {date_br(row.day)}: R$ {rate_br(row.brl)}.")
    with upload:
        st.markdown("**Importar uma série (CSV ou XLSX)**")
        st.caption("Colunas data;moeda;taxa (dd/mm/aaaa, vírgula decimal) ou o arquivo diário de fechamento PTAX do "
                   "Banco Central. Tudo ou nada: uma linha com problema recusa o arquivo.")
        st.download_button("Baixar modelo", data=SAMPLE.encode("utf-8"), file_name="cotacoes_modelo.csv",
                           mime="text/csv", key="rates_sample")
        file = st.file_uploader("Arquivo", type=["csv", "txt", "xlsx"], key="rates_file")
        # Not ui.forms.save: a refused file lists its problems as a table (line, column, reason).
        if st.button("Importar série", disabled=file is None, key="rates_import") and file is not None:
            try:
                res = import_rates(store, user, file.getvalue(), file.name)
            except InputError as exc:
                table = problems_frame(exc)
                st.error(f"Arquivo recusado: nada foi gravado. {count_br(len(table))} problema(s).")
                st.dataframe(for_display(table, counts=("Linha",)), hide_index=True, width="stretch")
            except (AccessDenied, ConflictError) as exc:
                st.error(str(exc))
            else:
                span = "" if res.first_day is None else f" de {date_br(res.first_day)} a {date_br(res.last_day)}"
                st.success(f"{count_br(res.rows)} linha(s) lidas: {count_br(res.added)} taxa(s) nova(s), "
                           f"{count_br(res.unchanged)} já cadastrada(s) ({', '.join(res.currencies)}{span}).")
else:
    st.info("Somente o presidente da Comissão e a DPC cadastram taxas; aqui você consulta a tabela em uso.")

st.subheader("Tabela de taxas")
f1, f2, f3, f4 = st.columns(4)
currencies = [c for c in known_currencies(store, user) if c != "BRL"]
cur = f1.selectbox("Moeda", [""] + currencies, format_func=lambda c: c or "Todas", key="rates_cur")
start = value_or_stop(date_field("De", key="rates_start", where=f2))
end = value_or_stop(date_field("Até", key="rates_end", where=f3))
page = f4.number_input("Página", min_value=1, value=1, step=1, key="rates_page")
try:
    df = list_rates(store, user, cur or None, start=start, end=end, page=int(page), page_size=PAGE_SIZE)
except InputError as exc:
    show_problems(exc, title="Filtro inválido:", labels=FILTER_LABELS)
    st.stop()
if len(df):
    df["brl"] = [rate_br(v) for v in df["brl"].tolist()]
    shown = with_names(store, user, pd.DataFrame(df), "recorded_by")
    st.dataframe(for_display(shown, dates=("day", "recorded_at"), rename={
        "currency": "Moeda", "day": "Data", "brl": "Taxa (R$)", "source": "Fonte", "recorded_by": "Cadastrada por",
        "recorded_at": "Em"}), hide_index=True, width="stretch")
elif page == 1:
    st.info("Nenhuma taxa cadastrada para este filtro.")
if len(df) < PAGE_SIZE:
    st.caption("Fim da tabela." if len(df) or page == 1 else "Página além do fim da tabela.")
