"""Termos do contrato (dpc): modality I–IV, shares under their caps, the historical payment form,
art. 21 §3, the difficulty rubric of art. 21 §1 and, for a cancelled contract, the compensation of
art. 22 sole paragraph. Every change is audited (before → after) by the store."""
from __future__ import annotations

from decimal import Decimal

import streamlit as st

from ui import session
from ui.forms import show_problems
from valuation.errors import AccessDenied, ConflictError, InputError
from valuation.money import format_brl, format_share
from valuation.partition import COMPENSATION_FORMS, HISTORICAL_PAYMENTS, MODALITIES
from valuation.rubric import ACTIVITIES, suggested_other_share
from valuation.statement_docs import MODALITY_LABELS, PAYMENT_LABELS, VALUE_FIXED_LABELS
from valuation.store import contracts
from valuation.store import partition as P

user = session.guard("contract_terms")
store = session.store()
st.title("Termos do contrato")
st.caption("Lei 7.542/1986 arts. 20–22 (redação da Lei 10.166/2000): recompensa de até 40 % do valor atribuído aos "
           "bens históricos; modalidades I–IV para os demais bens, com parcela de até 70 % nas modalidades II e III.")


def pct(d: Decimal | None) -> str:
    return "" if d is None else f"{(d * 100).normalize():f}".replace(".", ",")


def blank(v: str) -> str | None:
    return v if v and v.strip() else None


df = contracts.list_contracts(store, user)
df = df[df["kind"].isin(P.TERMS_KINDS)] if len(df) else df
if not len(df):
    st.info("Nenhum contrato de exploração ou remoção cadastrado.")
    st.stop()
names = dict(zip(df["code"], df["wreck_name"]))
codes = df["code"].tolist()
signed = [k for k, st_ in zip(codes, df["status"]) if st_ != "solicitado"]
code = st.selectbox("Contrato", codes, index=codes.index(signed[0]) if signed else 0,
                    format_func=lambda k: f"{k} — {names[k]}")
c = contracts.get_contract(store, user, code)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Situação", c["status"])
m2.metric("Modalidade", c["modality"] or "—")
m3.metric("Recompensa histórica", format_share(c["historical_share"]))
m4.metric("Parcela dos demais bens", format_share(c["other_share"]))

st.subheader("Termos de pagamento")
with st.form("terms"):
    a, b = st.columns(2)
    modality = a.selectbox("Modalidade (art. 21)", MODALITIES, format_func=MODALITY_LABELS.get,
                           index=MODALITIES.index(c["modality"]) if c["modality"] in MODALITIES else 0)
    value_fixed = b.selectbox("Valor fixado (art. 21 §3)", ["", *VALUE_FIXED_LABELS],
                              format_func=lambda v: VALUE_FIXED_LABELS.get(v, "não informado"),
                              index=(["", *VALUE_FIXED_LABELS].index(c["value_fixed"] or "")))
    hist = a.text_input("Recompensa pelos bens históricos (% de V_h, até 40)", value=pct(c["historical_share"]))
    pay_opts = ["", *HISTORICAL_PAYMENTS]
    hpay = b.selectbox("Forma de pagamento da recompensa", pay_opts,
                       format_func=lambda v: PAYMENT_LABELS.get(v, "—"),
                       index=pay_opts.index(c["historical_payment"] or ""))
    other = a.text_input("Parcela dos demais bens (% de V_n, até 70; modalidades II e III)", value=pct(c["other_share"]))
    fixed = b.text_input("Soma em dinheiro (modalidade I, R$)", value="" if c["fixed_amount"] is None else str(c["fixed_amount"]))
    award = a.text_input("Valor por assistência e salvamento (modalidade IV, R$)",
                         value="" if c["salvage_award"] is None else str(c["salvage_award"]))
    saved = st.form_submit_button("Gravar termos", type="primary")
if saved:
    try:
        data = {"modality": modality, "historical_share": P.share_from_percent(hist, "historical_share"),
                "historical_payment": blank(hpay), "other_share": P.share_from_percent(other, "other_share"),
                "fixed_amount": blank(fixed), "salvage_award": blank(award), "value_fixed": blank(value_fixed)}
        P.set_contract_terms(store, user, code, data)
    except InputError as exc:
        show_problems(exc)
    except (AccessDenied, ConflictError) as exc:
        st.error(str(exc))
    else:
        st.success("Termos gravados; a alteração ficou registrada na auditoria (antes → depois).")
        st.rerun()

st.subheader("Rubrica de dificuldade (art. 21 §1)")
st.caption("Cada atividade recebe nota de 0 a 4; os pesos são a política `difficulty_weights`. A sugestão é só "
           "referência: a parcela vale a decidida pela Autoridade Naval.")
weights = P.difficulty_weights(store)
current = P.current_difficulty(store, user, code)
cols = st.columns(len(ACTIVITIES))
scores = [cols[i].slider(f"{name} (peso {weights[i].normalize():f})", 0, 4,
                         value=current.scores[i] if current else 2, key=f"score_{code}_{i}")
          for i, name in enumerate(ACTIVITIES)]
s1, s2, s3 = st.columns([1, 1, 2])
s1.metric("Parcela sugerida", format_share(suggested_other_share(scores, weights)))
s2.metric("Parcela decidida pela Autoridade", format_share(c["other_share"]))
note = s3.text_input("Observação da avaliação", value=(current.note or "") if current else "")
if st.button("Gravar rubrica"):
    try:
        P.record_difficulty(store, user, code, scores, note=blank(note))
    except InputError as exc:
        show_problems(exc)
    else:
        st.success("Rubrica gravada.")
if current:
    st.caption(f"Última avaliação: {current.assessed_by}, {current.assessed_at:%d/%m/%Y %H:%M}; sugerida "
               f"{format_share(current.suggested_share)}.")

if c["status"] == "cancelado":
    st.subheader("Compensação no cancelamento (art. 22 parágrafo único)")
    st.caption(f"Cancelado em {c['cancelled_on']:%d/%m/%Y}: {c['cancel_reason'] or '—'}. Nenhum pagamento é devido, "
               "salvo bens sem valor histórico (ou o produto de sua venda), mesmo abaixo da parcela contratada."
               if c["cancelled_on"] else "Nenhum pagamento é devido, salvo a compensação abaixo.")
    comp = P.current_compensation(store, user, code)
    if comp:
        st.info(f"Em vigor: {format_share(comp.share)} por "
                f"{'adjudicação' if comp.form == 'adjudication' else 'produto da venda'}"
                + (f" (venda: {format_brl(comp.sale_proceeds)})" if comp.sale_proceeds is not None else "")
                + f" — {comp.reason}")
    with st.form("compensation"):
        a, b = st.columns(2)
        share = a.text_input("Parcela da compensação (%)", value=pct(comp.share) if comp else "")
        form = b.selectbox("Forma", COMPENSATION_FORMS,
                           format_func=lambda v: "adjudicação de bens" if v == "adjudication" else "produto da venda")
        proceeds = a.text_input("Produto da venda (R$)")
        reason = b.text_input("Fundamento")
        ok = st.form_submit_button("Gravar compensação")
    if ok:
        try:
            P.set_compensation(store, user, code, {
                "compensation_share": P.share_from_percent(share, "compensation_share"),
                "compensation_form": form, "sale_proceeds": blank(proceeds), "reason": blank(reason)})
        except InputError as exc:
            show_problems(exc)
        else:
            st.success("Compensação gravada.")
            st.rerun()
