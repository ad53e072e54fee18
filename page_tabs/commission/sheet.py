"""Planilha (a member while the round is open): download the round's items with the member's entries,
fill them in, send them back — all or nothing, a refused sheet listing its problems."""
from __future__ import annotations

import streamlit as st

from page_tabs.commission.view import ERRORS, RoundView
from ui.fmt import count_br, for_display
from ui.safe import md
from valuation.commission.sheet_import import import_assessments
from valuation.commission.views import SHEET_SOURCE_VALUES, problems_frame, round_template
from valuation.core.errors import InputError


def render(view: RoundView) -> None:
    store, user, rid, rnd = view.store, view.user, view.rid, view.round
    st.caption("Baixe a planilha com os itens da rodada (já com as suas avaliações), preencha e envie. Colunas: "
               "Código, Histórico (sim, não ou vazio), Valor (ex.: 1.234,56), Moeda, Data do preço (dd/mm/aaaa), "
               "Significância (1 a 5, voto histórico), Manter (sim ou não), Fonte ("
               + ", ".join(SHEET_SOURCE_VALUES) + ") e Observação. Tudo ou nada: se uma linha tiver "
               "problema, nada é gravado.")
    st.caption(rnd.conversion.text)       # which day's rates convert the prices (art. 21 §3)
    t1, t2 = st.columns(2)
    t1.download_button("Baixar planilha (CSV)", data=lambda: round_template(store, user, rid, "csv"),
                       file_name=f"avaliacao_rodada{rnd.number}.csv", mime="text/csv", key="cm_tpl_csv")
    t2.download_button("Baixar planilha (XLSX)", data=lambda: round_template(store, user, rid, "xlsx"),
                       file_name=f"avaliacao_rodada{rnd.number}.xlsx", key="cm_tpl_xlsx",
                       mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    upload = st.file_uploader("Planilha preenchida (CSV ou XLSX)", type=["csv", "txt", "xlsx"], key="cm_upload")
    # Not ui.forms.save: a refused sheet lists its problems as a table (line, column, reason).
    if not st.button("Importar avaliações", type="primary", disabled=upload is None, key="cm_import") \
            or upload is None:
        return
    with st.status("Conferindo e gravando a planilha…") as status:
        try:
            res = import_assessments(store, user, rid, upload.getvalue(), upload.name)
        except InputError as exc:
            status.update(label="Planilha recusada", state="error")
            table = problems_frame(exc)
            lines = sorted({int(n) for n in table["Linha"].dropna()})
            st.error(f"Planilha recusada: nada foi gravado. {len(table)} problema(s)"
                     + (f" em {len(lines)} linha(s)." if lines else "."))
            st.dataframe(for_display(table, counts=("Linha",)), hide_index=True, width="stretch")
        except ERRORS as exc:
            status.update(label="Planilha recusada", state="error")
            st.error(str(exc))
        else:
            status.update(label="Planilha gravada", state="complete")
            ignored = f" Colunas ignoradas: {', '.join(md(c) for c in res.ignored_columns)}." \
                if res.ignored_columns else ""
            st.success(f"{count_br(res.rows)} avaliação(ões) gravada(s): {count_br(res.new)} nova(s), "
                       f"{count_br(res.corrections)} correção(ões).{ignored}")
