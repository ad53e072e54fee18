"""Presidência (the president): close the round, adopt the consensus, record a decision that departs from
it (with its reason), publish the decisions; a published round changes only through a new round."""
from __future__ import annotations

import streamlit as st

from page_tabs.commission.progress import progress_table
from page_tabs.commission.view import VOTES, RoundView, done
from ui.expanders import lazy_expander
from ui.fields import money_field
from ui.fmt import count_br, for_display
from ui.forms import save
from valuation.commission.closing import close_readiness
from valuation.commission.decisions import record_decisions
from valuation.commission.rounds import close_round, publish_round
from valuation.commission.sheet import MAX_VALUE_BRL
from valuation.commission.views import override_decision

OVERRIDE_LABELS = {"historical": "Classificação", "value_brl": "Valor (R$)", "item_code": "Código do item",
                   "reason": "Motivo (vai para o fundamento da decisão e para a ata)"}


def render(view: RoundView) -> None:
    store, user, rid, rnd = view.store, view.user, view.rid, view.round
    if view.is_open:
        close_form(view)
    elif rnd.status in ("encerrada", "decidida"):
        st.caption("O resultado do encerramento (decididos, sinalizados, fora dos comparáveis com o motivo, sem "
                   "decisão) está na aba Resultado.")
        if st.button("Adotar o consenso dos itens decididos", key="cm_adopt"):
            adopted = save(record_decisions, store, user, rid, success=None)
            done(adopted, "" if adopted is None else f"{count_br(adopted.written)} decisão(ões) registrada(s); "
                 f"{count_br(adopted.skipped)} item(ns) sem decisão (sem quórum, empate sem voto do presidente ou "
                 f"sem valor).")
        override_form(view)
        if rnd.status == "decidida" and st.button("Publicar decisões", type="primary", key="cm_publish"):
            message = f"Decisões da rodada {rnd.number} publicadas: a empresa já as vê."
            done(save(publish_round, store, user, rid, success=None), message)
    else:
        st.info("Rodada publicada: uma mudança exige nova rodada (abra-a acima, com os itens sinalizados).")


def close_form(view: RoundView) -> None:
    """Before the close: who has not voted yet and whether every item has the quorum, then the confirmation
    (issue 23 item 6); the close states its outcome above the tabs, the results in the Resultado tab."""
    store, user, rid, rnd = view.store, view.user, view.rid, view.round
    ready = close_readiness(store, user, rid)
    st.markdown(f"**Antes de encerrar a rodada {ready.number}**")
    quorum = (f"Quórum da Comissão: {count_br(ready.quorum)} membros votantes por item ({ready.quorum_basis}). "
              f"{count_br(ready.with_quorum)} de {count_br(ready.items)} itens têm quórum")
    if ready.quorum_met:
        st.success(quorum + ": todos os itens podem ser decididos.")
    else:
        st.warning(quorum + f"; {count_br(ready.short)} não têm e ficarão sem decisão (sem quórum) se a rodada "
                   "for encerrada agora.")
    if len(ready.missing):
        st.markdown(f"**Ainda não votaram** ({count_br(len(ready.missing))} membro(s))")
        st.dataframe(for_display(ready.missing, counts=("voted", "missing"), rename={
            "member": "Membro", "body": "Órgão", "voted": "Itens votados", "missing": "Itens sem voto"}),
            hide_index=True, width="stretch")
    else:
        st.caption("Todos os membros votaram em todos os itens da rodada.")
    with lazy_expander("Andamento por membro (itens avaliados)", key="commission_progress_box") as opened:
        if opened:
            progress_table(view)
    pending = "" if ready.quorum_met and not len(ready.missing) else (
        f" com {count_br(ready.short)} item(ns) sem quórum e {count_br(len(ready.missing))} membro(s) sem votar "
        "em todos os itens")
    sure = st.checkbox(f"Confirmo o encerramento da rodada {ready.number}{pending}: os membros não poderão mais "
                       "registrar avaliações.", key=f"cm_close_sure_{rid}")
    if st.button("Encerrar rodada", type="primary", disabled=not sure, key="cm_close"):
        message = (f"Rodada {rnd.number} encerrada: o consenso de cada item foi calculado e gravado; o resultado "
                   "está na aba Resultado.")
        done(save(close_round, store, user, rid, success=None), message)


def override_form(view: RoundView) -> None:
    """One item's decision departing from the consensus, with its reason (it goes into the minutes)."""
    rid = view.rid
    with st.form("cm_override"):
        st.markdown("**Decisão divergente do consenso (um item, com motivo)**")
        o1, o2, o3 = st.columns(3)
        o_code = o1.text_input("Código do item", value=st.session_state.get(f"cm_last_item_{rid}", ""))
        o_hist = o2.radio("Classificação", [True, False], format_func=lambda h: VOTES[h], horizontal=True)
        o_value = money_field("Valor (R$)", maximum=MAX_VALUE_BRL, required=True, where=o3, path="value_brl")
        o4, o5 = st.columns(2)
        o_sig = o4.selectbox("Significância", [None, 1, 2, 3, 4, 5],
                             format_func=lambda s: "—" if s is None else str(s))
        o_keep = o5.checkbox("Manter na União")
        o_reason = st.text_area("Motivo (vai para o fundamento da decisão e para a ata)")
        if st.form_submit_button("Registrar decisão"):
            message = f"Decisão do item {o_code.strip()} registrada."
            done(save(override_decision, view.store, view.user, rid, o_code, historical=o_hist, value=o_value,
                      significance=o_sig, must_keep=o_keep, reason=o_reason, success=None,
                      labels=OVERRIDE_LABELS), message)
