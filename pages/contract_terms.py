"""Termos do contrato (dpc): modality I–IV, shares under their caps, the historical payment form,
art. 21 §3, the difficulty rubric of art. 21 §1 and, for a cancelled contract, the compensation of
art. 22 sole paragraph. Every change is audited (before → after) by the store."""
from __future__ import annotations

from decimal import Decimal

import streamlit as st

from ui import fields, session
from ui.fields import money_field
from ui.fmt import date_br, number_br
from ui.forms import save
from valuation.core.law import DIFFICULTY_ACTIVITIES as ACTIVITIES
from valuation.core.money import format_brl, format_share
from valuation.partition import terms
from valuation.partition.documents import (
    MODALITY_LABELS,
    PAYMENT_LABELS,
    VALUE_FIXED_LABELS,
)
from valuation.partition.rubric import suggested_other_share
from valuation.partition.rules import (
    COMPENSATION_FORMS,
    HISTORICAL_PAYMENTS,
    MODALITIES,
)
from valuation.registry import contracts

user = session.guard("contract_terms")
store = session.store()
st.title("Termos do contrato")
st.caption("Lei 7.542/1986 arts. 20–22 (redação da Lei 10.166/2000): recompensa de até 40 % do valor atribuído aos "
           "bens históricos; modalidades I–IV para os demais bens, com parcela de até 70 % nas modalidades II e III.")


def blank(v: str) -> str | None:
    return v if v and v.strip() else None


def weight_text(w: Decimal) -> str:
    return number_br(w, 0 if w == w.to_integral() else 2)


L = terms.FIELD_LABELS  # the labels the store's problems use: the form shows the same


df = contracts.list_contracts(store, user)
df = df[df["kind"].isin(terms.TERMS_KINDS)] if len(df) else df
if not len(df):
    st.info("Nenhum contrato de exploração ou remoção cadastrado.")
    st.stop()
names = dict(zip(df["code"], df["wreck_name"]))
codes = df["code"].tolist()
# open on a contract whose terms are recorded, else on a signed one
with_terms = [k for k, m in zip(codes, df["modality"]) if isinstance(m, str) and m]
signed = [k for k, st_ in zip(codes, df["status"]) if st_ != "solicitado"]
first = (with_terms or signed or codes)[0]
code = st.selectbox("Contrato", codes, index=codes.index(first),
                    format_func=lambda k: f"{k} — {names[k]}" + ("" if k in with_terms else " (termos a definir)"))
c = contracts.get_contract(store, user, code)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Situação", str(c["status"]).capitalize())
m2.metric("Modalidade", c["modality"] or "—", help=MODALITY_LABELS.get(c["modality"] or "", "não definida"))
m3.metric("Recompensa histórica", format_share(c["historical_share"]))
m4.metric("Parcela dos demais bens", format_share(c["other_share"]))

st.subheader("Termos de pagamento")
with st.form("terms"):
    a, b = st.columns(2)
    mod_opts = ["", *MODALITIES]
    modality = a.selectbox(L["modality"], mod_opts, format_func=lambda v: MODALITY_LABELS.get(v, "— escolha —"),
                           index=mod_opts.index(c["modality"]) if c["modality"] in MODALITIES else 0)
    value_fixed = b.selectbox(L["value_fixed"], ["", *VALUE_FIXED_LABELS],
                              format_func=lambda v: VALUE_FIXED_LABELS.get(v, "não informado"),
                              index=(["", *VALUE_FIXED_LABELS].index(c["value_fixed"] or "")))
    hist = a.text_input(L["historical_share"], value=terms.percent_text(c["historical_share"]),
                        placeholder="ex.: 30 ou 30,5",
                        help="Até 40 % do valor atribuído aos bens históricos (art. 20 §2).")
    pay_opts = ["", *HISTORICAL_PAYMENTS]
    hpay = b.selectbox(L["historical_payment"], pay_opts,
                       format_func=lambda v: PAYMENT_LABELS.get(v, "—"),
                       index=pay_opts.index(c["historical_payment"] or ""))
    other = a.text_input(L["other_share"], value=terms.percent_text(c["other_share"]), placeholder="ex.: 50",
                         help="Até 70 % do valor de mercado dos demais bens recuperados; modalidades II e III "
                              "(art. 21).")
    fixed = money_field(L["fixed_amount"], value=c["fixed_amount"], where=b, path="fixed_amount")
    award = money_field(L["salvage_award"], value=c["salvage_award"], where=a, path="salvage_award")
    saved = st.form_submit_button("Gravar termos", type="primary")


def save_terms() -> dict[str, object]:
    data = {"modality": blank(modality), "historical_share": terms.share_from_percent(hist, "historical_share"),
            "historical_payment": blank(hpay), "other_share": terms.share_from_percent(other, "other_share"),
            "fixed_amount": fields.read(fixed), "salvage_award": fields.read(award), "value_fixed": blank(value_fixed)}
    return terms.set_contract_terms(store, user, code, data)


if saved and save(save_terms, success="Termos gravados; a alteração ficou registrada na auditoria "
                                      "(antes → depois).") is not None:
    st.rerun()

st.subheader("Rubrica de dificuldade (art. 21 §1)")
st.caption("Cada atividade recebe nota de 0 a 4, com os pesos da política de pesos da rubrica de dificuldade "
           "(página Políticas). A sugestão é só referência: vale a parcela decidida pela Autoridade Naval.")
weights = terms.difficulty_weights(store)
current = terms.current_difficulty(store, user, code)
cols = st.columns(len(ACTIVITIES))
scores = [cols[i].slider(f"{name.capitalize()} (peso {weight_text(weights[i])})", 0, 4,
                         value=current.scores[i] if current else 2, key=f"score_{code}_{i}")
          for i, name in enumerate(ACTIVITIES)]
s1, s2, s3 = st.columns([1, 1, 2])
s1.metric("Parcela sugerida", format_share(suggested_other_share(scores, weights)))
s2.metric("Parcela decidida pela Autoridade", format_share(c["other_share"]))
note = s3.text_input("Observação da avaliação", value=(current.note or "") if current else "")
if st.button("Gravar rubrica"):
    save(terms.record_difficulty, store, user, code, scores, note=blank(note), success="Rubrica gravada.")
if current:
    st.caption(f"Última avaliação: {current.assessed_by}, {date_br(current.assessed_at)}; sugerida "
               f"{format_share(current.suggested_share)}.")

if c["status"] == "cancelado":
    st.subheader("Compensação no cancelamento (art. 22 parágrafo único)")
    st.caption(f"Cancelado em {date_br(c['cancelled_on'])}: {c['cancel_reason'] or '—'}. Nenhum pagamento é devido, "
               "salvo bens sem valor histórico (ou o produto de sua venda), mesmo abaixo da parcela contratada."
               if c["cancelled_on"] else "Nenhum pagamento é devido, salvo a compensação abaixo.")
    comp = terms.current_compensation(store, user, code)
    if comp:
        st.info(f"Em vigor: {format_share(comp.share)} por "
                f"{'adjudicação' if comp.form == 'adjudication' else 'produto da venda'}"
                + (f" (venda: {format_brl(comp.sale_proceeds)})" if comp.sale_proceeds is not None else "")
                + f" — {comp.reason}")
    with st.form("compensation"):
        a, b = st.columns(2)
        share = a.text_input(L["compensation_share"], value=terms.percent_text(comp.share if comp else None),
                             placeholder="ex.: 30")
        form = b.selectbox(L["compensation_form"], COMPENSATION_FORMS,
                           format_func=lambda v: "adjudicação de bens" if v == "adjudication" else "produto da venda")
        proceeds = money_field(L["sale_proceeds"], where=a, path="sale_proceeds")
        reason = b.text_input(L["reason"])
        ok = st.form_submit_button("Gravar compensação")

    def save_compensation() -> terms.Compensation:
        return terms.set_compensation(store, user, code, {
            "compensation_share": terms.share_from_percent(share, "compensation_share"),
            "compensation_form": form, "sale_proceeds": fields.read(proceeds), "reason": blank(reason)})

    if ok and save(save_compensation, success="Compensação gravada.") is not None:
        st.rerun()
