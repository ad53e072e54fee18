"""Termos do contrato (dpc): modality I–IV, shares under their caps, the historical payment form,
art. 21 §3, the difficulty rubric of art. 21 §1 and, for a cancelled contract, the compensation of
art. 22 sole paragraph. Every change is audited (before → after) by the store."""
from __future__ import annotations

from decimal import Decimal

import pandas as pd
import streamlit as st

from ui import fields, session
from ui.fields import date_field, money_field
from ui.fmt import date_br, number_br
from ui.forms import save
from ui.people import person
from valuation.core.law import DIFFICULTY_ACTIVITIES as ACTIVITIES
from valuation.core.money import format_brl, format_share
from valuation.partition import salvage, terms, valuation_date
from valuation.partition.contract_law import caps_help_pt, law_text_of, modality_labels
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


def blank(v: str) -> str | None:
    return v if v and v.strip() else None


def weight_text(w: Decimal) -> str:
    return number_br(w, 0 if w == w.to_integral() else 2)


L = terms.FIELD_LABELS  # the labels the store's problems use: the form shows the same


df = contracts.list_contracts(store, user, counts=False)
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
law_caption, hist_help, other_help = caps_help_pt(c["signed_on"])   # the law of the contract's date
MODALITIES_PT = modality_labels(law_text_of(c["signed_on"]), MODALITY_LABELS)
st.caption(law_caption)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Situação", str(c["status"]).capitalize())
m2.metric("Modalidade", c["modality"] or "—", help=MODALITIES_PT.get(c["modality"] or "", "não definida"))
m3.metric("Recompensa histórica", format_share(c["historical_share"]))
m4.metric("Parcela dos demais bens", format_share(c["other_share"]))

st.subheader("Termos de pagamento")
with st.form("terms"):
    a, b = st.columns(2)
    mod_opts = ["", *MODALITIES]
    modality = a.selectbox(L["modality"], mod_opts, format_func=lambda v: MODALITIES_PT.get(v, "— escolha —"),
                           index=mod_opts.index(c["modality"]) if c["modality"] in MODALITIES else 0)
    value_fixed = b.selectbox(L["value_fixed"], ["", *VALUE_FIXED_LABELS],
                              format_func=lambda v: VALUE_FIXED_LABELS.get(v, "não informado"),
                              index=(["", *VALUE_FIXED_LABELS].index(c["value_fixed"] or "")))
    hist = a.text_input(L["historical_share"], value=terms.percent_text(c["historical_share"]),
                        placeholder="ex.: 30 ou 30,5",
                        help=hist_help)
    pay_opts = ["", *HISTORICAL_PAYMENTS]
    hpay = b.selectbox(L["historical_payment"], pay_opts,
                       format_func=lambda v: PAYMENT_LABELS.get(v, "—"),
                       index=pay_opts.index(c["historical_payment"] or ""))
    other = a.text_input(L["other_share"], value=terms.percent_text(c["other_share"]), placeholder="ex.: 50",
                         help=other_help)
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


def valuation_date_form(code: str) -> None:
    """The valuation date (art. 21 §3): the day whose rates convert the Commission's foreign prices."""
    st.subheader("Data de avaliação (art. 21 §3)")
    day, conversion = valuation_date.contract_valuation(store, user, code)
    st.caption("O valor das coisas pode ser fixado no contrato antes do início ou depois do término das operações "
               "(Lei 7.542/1986, art. 21 §3). Com data de avaliação, a Comissão converte todos os preços em moeda "
               "estrangeira pela cotação dessa data.")
    (st.info if day else st.caption)(conversion.text)
    with st.form(f"valuation_date_{code}"):
        typed = date_field(valuation_date.LABEL, value=day, max_value=session.today(), path="valuation_date",
                           help="Antes do início ou depois do término das operações; em branco: sem data fixada")
        ok = st.form_submit_button("Gravar data de avaliação")
    if ok and save(valuation_date.set_valuation_date, store, user, code, {"valuation_date": typed},
                   today=session.today(), labels=valuation_date.LABELS,
                   success="Data de avaliação gravada.") is not None:
        st.rerun()


valuation_date_form(code)

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
    st.caption(f"Última avaliação: {person(store, user, current.assessed_by)}, {date_br(current.assessed_at)}; "
               "sugerida "
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


def salvage_form(code: str) -> None:
    """Modality IV: the award with the factors the Authority weighed (art. 21 IV; Lei 7.203/1984 art. 10)."""
    labels = salvage.LABELS
    st.subheader("Remuneração por assistência e salvamento (art. 21 IV)")
    st.caption("Lei 7.203/1984 art. 10: remuneração eqüitativa pelo resultado útil, que não excede o valor das coisas "
               "salvas (§1); sem resultado útil, o reembolso das despesas quando evitados danos a terceiros ou ao meio "
               "ambiente (§2). Registre cada fator que a Autoridade Naval considerou: o demonstrativo os imprime.")
    current = salvage.contract_assessment(store, user, code)
    if current:
        st.dataframe(pd.DataFrame(salvage.factor_rows(current), columns=["Fator", "Registro da Autoridade Naval"]),
                     hide_index=True, width="stretch")
    with st.form(f"salvage_{code}", clear_on_submit=True):
        a, b, c3 = st.columns(3)
        data: dict[str, object] = {
            "award": a.text_input(labels["award"], placeholder="ex.: 1.234,56"),
            "expenses": b.text_input(labels["expenses"], placeholder="ex.: 1.234,56"),
            "useful_result": c3.checkbox(labels["useful_result"], value=True),
            "act": a.text_input(labels["act"], placeholder="Portaria nº 12/2026-DPC"),
            "assessed_on": date_field(labels["assessed_on"], where=b, path="assessed_on"),
        }
        for key, label in salvage.FACTORS.items():
            data[key] = st.text_area(label, height=68)
        if st.form_submit_button("Gravar remuneração e fatores"):
            save(salvage.record_salvage_assessment, store, user, code,
                 {k: (v if not isinstance(v, str) or v.strip() else None) for k, v in data.items()}, labels=labels,
                 success="Remuneração gravada com os fatores; o valor passa a ser o da modalidade IV.")


if c["modality"] == "IV":
    salvage_form(code)
