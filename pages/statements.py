"""Demonstrativos de partilha. dpc: draft → issue (immutable, numbered, versioned; a correction is a new
version). explorer: its own ISSUED statements only, in a plain view — the net amount first, the
adjudicated items, the downloads. Every line shows its legal basis (Lei 7.542 arts. 20–22; NORMAM-10)."""
from __future__ import annotations

from datetime import date

import pandas as pd
import streamlit as st

from ui import attachments as attachments_ui
from ui import session
from ui import signatures as signatures_ui
from ui.expanders import lazy_expander
from ui.fields import date_field
from ui.fmt import brl_fit, brl_nb, count_br, for_display, option_label
from ui.forms import save
from ui.people import with_names
from ui.safe import md
from valuation.attachments.photo_sheet import statement_photo_sheet
from valuation.core.errors import NotFound
from valuation.core.money import format_brl
from valuation.db import access
from valuation.partition import gross_sum, statement_reads, statements
from valuation.partition.documents import (
    GROUP_LABELS,
    INSPECTION_EFFECT,
    INSPECTION_NOTE,
    Sentence,
    StatementDoc,
    StatementLine,
    net_explanation,
    payment_rows,
    statement_parts,
)
from valuation.partition.salvage import factor_rows
from valuation.signatures import issuing

PAGE_SIZE = 50
ISSUED_KEY = "statements_issued"     # the confirmation of an issue, shown after the page runs again
user = session.guard("statements")
store = session.store()
st.title("Demonstrativos de partilha")


def file_stub(doc: StatementDoc) -> str:
    name = "demonstrativo_" + (doc.label if doc.is_issued else f"rascunho_{doc.id}")
    return name.replace("/", "-").replace(" ", "_")


def statement_file(doc: StatementDoc) -> bytes:
    """An issued statement's PDF as it stands (its latest signed revision, issue 43), a draft's as rendered now."""
    data = statement_reads.statement_pdf(store, user, doc.id)
    return signatures_ui.current_copy(store, user, "statements", doc.id, data) if doc.is_issued else data


def downloads(doc: StatementDoc) -> None:
    a, b = st.columns(2)
    a.download_button("Baixar PDF", data=lambda: statement_file(doc),
                      file_name=file_stub(doc) + ".pdf", mime="application/pdf", on_click="ignore",
                      icon=":material/picture_as_pdf:", type="primary")
    b.download_button("Baixar XLSX", data=lambda: statement_reads.statement_xlsx(store, user, doc.id),
                      file_name=file_stub(doc) + ".xlsx", on_click="ignore", icon=":material/table_view:",
                      mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    attachments_ui.photo_sheet("Baixar anexo fotográfico (PDF)", lambda: statement_photo_sheet(store, user, doc.id),
                               file_stub(doc) + "_fotos.pdf", key=f"photo_sheet_{doc.id}")   # issue 16
    if doc.is_issued:
        signatures_ui.panel(store, user, "statements", doc.id, key=f"st_signatures_{doc.id}")   # issue 27 §2


def items_table(doc: StatementDoc) -> None:
    if doc.items_total == 0:
        st.info("Nenhum bem adjudicado neste demonstrativo.")
        return
    pages = max(1, -(-doc.items_total // PAGE_SIZE))
    page = st.number_input(f"Página dos bens adjudicados (de {pages})", min_value=1, max_value=pages, value=1,
                           key=f"items_page_{doc.id}")
    items, total = statement_reads.statement_items(store, user, doc.id, page=int(page), page_size=PAGE_SIZE)
    st.dataframe(for_display(pd.DataFrame([{
        "Item": it.item_code, "Descrição": it.description, "Grupo": GROUP_LABELS.get(it.grp, it.grp),
        "Significância": it.significance, "Valor": it.value_brl} for it in items]), money=("Valor",),
        counts=("Significância",)),
        hide_index=True, width="stretch")
    st.caption(f"{count_br(total)} bem(ns) adjudicado(s), valor total {format_brl(doc.items_value)}.")


def amount_lines(lines: tuple[StatementLine, ...]) -> None:
    st.dataframe(for_display(pd.DataFrame([{
        "Descrição": ln.label, "Detalhe": ln.detail, "Valor": ln.amount, "Fundamento legal": ln.basis}
        for ln in lines]), money=("Valor",)), hide_index=True, width="stretch")


def lines_table(doc: StatementDoc) -> None:
    """The statement in the PDF's order: gross, deductions, net, how it is paid, the surveyor's credit,
    the inspection expenses (outside the net), the surveyor's cost lines."""
    parts = statement_parts(doc)
    st.markdown(f"**Valor bruto: {brl_nb(parts.gross)}** — a soma das parcelas marcadas com +; as linhas "
                "“base” (base de cálculo) e “não pago” ficam fora da soma")
    st.dataframe(for_display(pd.DataFrame([{
        "Na soma": r.place, "Descrição": r.label, "Detalhe": r.detail, "Valor": r.amount, "Fundamento legal": r.basis}
        for r in gross_sum.gross_rows(parts.gross_lines, parts.gross)]), money=("Valor",)),
        hide_index=True, width="stretch")
    residual = gross_sum.residual_sentence(parts.gross_lines)
    if residual:
        st.markdown(md(residual))
    factors = factor_rows(doc.terms.get("salvage_assessment"))   # modality IV (Lei 7.203/1984 art. 10)
    if factors:
        st.markdown("**Fatores da remuneração por assistência e salvamento** (art. 21 IV; Lei 7.203/1984 art. 10)")
        st.dataframe(pd.DataFrame(factors, columns=["Fator", "Registro da Autoridade Naval"]), hide_index=True,
                     width="stretch")
    st.markdown(f"**Deduções: {brl_nb(parts.deductions)}**")
    if parts.deduction_lines:
        amount_lines(parts.deduction_lines)
    else:
        st.caption("Nenhuma dedução.")
    st.markdown(f"**Valor líquido em favor do concessionário: {brl_nb(parts.net)}** — forma de pagamento:")
    st.dataframe(for_display(pd.DataFrame([{"Forma": f, "Valor": v, "Observação": n}
                                           for f, v, n in payment_rows(doc, parts)]), money=("Valor",)),
                 hide_index=True, width="stretch")
    if parts.credit_lines:
        st.markdown("**Crédito ao pesquisador** (NORMAM-10 (ed. 2002) 0303 c 2 I)")
        amount_lines(parts.credit_lines)
    st.markdown(f"**Despesas de fiscalização e seguro dos fiscais** (NORMAM-10 (ed. 2002) 0306): "
                f"{brl_nb(parts.inspection_total)}, fora do valor líquido")
    st.caption(INSPECTION_NOTE)
    if parts.inspection_lines:
        st.dataframe(for_display(pd.DataFrame([{
            "Despesa": ln.label, "Valor": ln.amount, "Efeito no valor líquido": INSPECTION_EFFECT,
            "Fundamento legal": ln.basis} for ln in parts.inspection_lines]), money=("Valor",)),
            hide_index=True, width="stretch")
    else:
        st.caption("Nenhuma despesa de fiscalização registrada para este contrato.")
    if doc.survey_lines:
        st.markdown("**Gastos do pesquisador** (planilha de custos e custo real)")
        st.dataframe(for_display(pd.DataFrame([{
            "Pesquisa": s.survey_contract, "Linha": s.line, "Previsto": s.planned, "Real": s.actual,
            "Excesso aprovado": s.approved_overrun, "Aceito": s.accepted, "Variação": s.variance}
            for s in doc.survey_lines]), money=("Previsto", "Real", "Excesso aprovado", "Aceito", "Variação")),
            hide_index=True, width="stretch")


def sentence_md(sentence: Sentence) -> str:
    """A sentence of `net_explanation` as Markdown: its emphasised parts in bold, every part escaped."""
    return "".join(f"**{md(text)}**" if bold else md(text) for text, bold in sentence)


def later_facts(statement_id: int) -> None:
    """An issued statement is never changed: what was corrected after it is said beside it."""
    facts = statement_reads.later_facts(store, user, statement_id)
    if facts:
        st.warning("Fatos registrados depois da emissão deste demonstrativo (ele não muda; uma nova versão só se "
                   "emite por decisão da DPC):\n\n" + "\n".join(f"- {md(line)}" for line in facts))


def draft_with_progress(code: str, as_of: date) -> int:
    with st.status("Calculando o demonstrativo a partir das decisões gravadas…"):
        return statements.create_draft(store, user, code, as_of=as_of)


if not access.allowed(user, "issue_statements"):   # the explorer's plain view of its issued statements
    listing = statement_reads.list_statements(store, user)
    if not len(listing):
        st.info("Ainda não há demonstrativo emitido para os contratos da sua empresa.")
        st.stop()
    labels = {int(i): f"{lab} — contrato {c}" + (" (substituído)" if sup else "") for i, lab, c, sup in
              zip(listing["id"], listing["label"], listing["contract_code"], listing["superseded"])}
    sid = st.selectbox("Demonstrativo", list(labels), format_func=option_label(labels))
    doc = statement_reads.get_statement(store, user, int(sid))
    if doc.superseded_by:
        st.warning(f"Esta versão foi substituída por {doc.superseded_by}. Consulte a versão em vigor.")
    later_facts(int(sid))
    st.subheader(f"{doc.label} — contrato {doc.contract_code}")
    if doc.nup:
        st.caption(f"NUP {doc.nup}")
    if doc.terms.get("law_text_line"):
        st.caption(f"Texto legal aplicado: {doc.terms['law_text_line']}.")
    st.metric("Valor líquido a receber", format_brl(doc.net))
    st.markdown(" ".join(sentence_md(sentence) for sentence in net_explanation(doc)))
    downloads(doc)
    st.subheader("Bens adjudicados")
    items_table(doc)
    with lazy_expander("Detalhamento com o fundamento legal de cada linha", key="statements_detail_box") as opened:
        if opened:
            lines_table(doc)
            for text in doc.warnings:
                st.caption(text)
    st.stop()

# -- dpc ---------------------------------------------------------------------------------
for kind, line in st.session_state.pop(ISSUED_KEY, []):     # what the last "Emitir demonstrativo" did, once
    {"success": st.success, "warning": st.warning, "info": st.info}[kind](md(line))
contracts = statement_reads.statement_contracts(store, user)
if not len(contracts):
    st.info("Nenhum contrato de exploração ou remoção.")
    st.stop()
info = {c: f"{c} — {o} ({count_br(n)} decidido(s), {count_br(k)} emitido(s))" for c, o, n, k in
        zip(contracts["code"], contracts["organisation_name"], contracts["decided"], contracts["issued"])}
codes = contracts["code"].tolist()
ready = statement_reads.ready_contract(contracts)
# keyed: the labels count the issued statements, and an unkeyed box whose labels change is a new box, back at the
# ready contract — after an issue the page jumped to another contract's statement (issue 43, item 5)
code = st.selectbox("Contrato", codes, index=codes.index(ready) if ready else 0, format_func=option_label(info),
                    key="statements_contract")
a, b = st.columns([1, 2])
as_of = date_field("Data-base do demonstrativo", value=session.today(), required=True, where=a)
b.write("")
if b.button("Gerar rascunho", type="primary"):
    new_id = save(draft_with_progress, code, as_of, success="Rascunho nº {result} gerado.",
                  title="Não foi possível gerar o rascunho:")
    if new_id is not None:
        st.session_state["statement_pick"] = new_id

listing = statement_reads.list_statements(store, user, code)
if not len(listing):
    st.info("Nenhum demonstrativo deste contrato ainda.")
    st.stop()
shown = with_names(store, user, listing[["label", "nup", "status", "as_of", "gross", "net", "created_by", "created_at",
                                         "superseded"]], "created_by")
st.dataframe(for_display(shown.assign(superseded=[("sim" if v else "não") for v in listing["superseded"]]),
                         money=("gross", "net"), dates=("as_of", "created_at"),
                         rename={"label": "Demonstrativo", "nup": "NUP", "status": "Situação", "as_of": "Data-base",
                                 "gross": "Bruto", "net": "Líquido", "created_by": "Por", "created_at": "Em",
                                 "superseded": "Substituído"}), hide_index=True, width="stretch")
ids = [int(i) for i in listing["id"]]
labels = dict(zip(ids, listing["label"]))
pick = st.session_state.pop("statement_pick", None)
if pick in ids:                              # a draft just made or a statement just issued opens
    st.session_state["statements_open"] = pick
sid = st.selectbox("Abrir", ids, format_func=option_label(labels), key="statements_open")
try:
    doc = statement_reads.get_statement(store, user, int(sid))
except NotFound as exc:
    st.error(str(exc))
    st.stop()
m = st.columns(3)
m[0].metric("Valor bruto", brl_fit(doc.gross, 3), help=format_brl(doc.gross))
m[1].metric("Valor líquido", brl_fit(doc.net, 3), help=format_brl(doc.net))
m[2].metric("Situação", doc.label if doc.is_issued else "rascunho")
if doc.nup:
    st.caption(f"NUP {doc.nup}")
if doc.supersedes_label:
    st.caption(f"Substitui {doc.supersedes_label}. Motivo: {md(doc.correction_reason)}")
if doc.terms.get("law_text_line"):
    st.caption(f"Texto legal aplicado: {doc.terms['law_text_line']}.")
for text in doc.blockers:
    st.error(text)
for text in doc.warnings:
    st.warning(text)
later_facts(int(sid))
lines_table(doc)
downloads(doc)
with lazy_expander(f"Bens adjudicados ({count_br(doc.items_total)})", key="statements_items_box") as opened:
    if opened:
        items_table(doc)

if not doc.is_issued and int(sid) == max(ids):
    st.subheader("Emitir")
    reason = None
    in_force = statement_reads.next_version(store, user, code)
    if in_force is not None:
        st.caption(f"Já existe {in_force[0]}: esta emissão será a versão {in_force[1]}, que o "
                   "substitui. O documento anterior permanece inalterado.")
        reason = st.text_area("Motivo da correção")
    if st.button("Emitir demonstrativo", type="primary", disabled=bool(doc.blockers)):
        with st.spinner("Emitindo e assinando o demonstrativo…"):
            issued = save(issuing.issue_statement, store, user, doc.id, correction_reason=reason, success=None,
                          title="Não foi possível emitir:")
        if issued is not None:
            issued_doc, signing = issued           # issue 43, item 1: the institutional A1 signs it as it goes out
            st.session_state["statement_pick"] = issued_doc.id
            st.session_state[ISSUED_KEY] = [
                ("success", f"Emitido {issued_doc.label} (contrato {doc.contract_code})."),
                ("success" if signing.signed else "warning" if signing.configured else "info", signing.text)]
            st.rerun()
