"""Protocolo (issue 42, items 1 and 6): a company's representative files a request or a document of its process, in
PDF, and downloads the receipt — dated by the system, never by the filer; the office records a filing that reached
it on paper, by e-mail or through SEI, examines each filing (Lei 9.784/1999 art. 24) and reads its queue. What a user
wrote (a subject, a note) is shown as plain text."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import session
from ui.fields import date_field
from ui.fmt import date_br, for_display, option_label
from ui.forms import save
from ui.tabs import LazyTabs
from valuation.attachments.kinds import MAX_FILE_BYTES, megabytes
from valuation.attachments.records import Upload
from valuation.core import nup
from valuation.db.access import allowed
from valuation.proceedings import filing_receipt as receipt
from valuation.proceedings import filings as fr
from valuation.proceedings import intimations as it
from valuation.proceedings import requests as rq
from valuation.process import numbers
from valuation.registry.organisations import list_organisations

user = session.guard("filings")
store = session.store()
st.title("Protocolo")
files_label = f"{fr.LABELS['files']} — até {megabytes(MAX_FILE_BYTES)} cada"
COLUMNS = {"id": "Protocolo", "nup": "NUP do processo", "request_id": "Requerimento", "document_no": "Documento nº",
           "kind_pt": "O que foi protocolado", "subject": "Assunto", "organisation": "Empresa",
           "channel_pt": "Meio", "received_on": "Recebido em", "filed_by_name": "Protocolado por",
           "filed_at": "Registrado em", "reviewed_by_name": "Examinado por", "review_note": "O que a OM fez"}


def _table(rows: list[dict], empty: str) -> None:
    if not rows:
        st.caption(empty)
        return
    frame = pd.DataFrame(rows)
    st.dataframe(for_display(frame, dates=["received_on"], moments=["filed_at"], only=list(COLUMNS),
                             rename=COLUMNS), hide_index=True, width="stretch")


def _receipt(rows: list[dict], key: str) -> None:
    """Pick a filing (nothing chosen at first) and download its registered receipt."""
    if not rows:
        return
    titles = {int(r["id"]): f"Protocolo nº {r['id']} — requerimento nº {r['request_id']}, documento "
                            f"{r['document_no']} ({date_br(r['received_on'])})" for r in rows}
    pick = st.selectbox("Recibo de protocolo", list(titles), index=None, format_func=option_label(titles),
                        placeholder="Escolha o protocolo", key=key)
    if pick is not None:
        data = receipt.receipt_file(store, user, int(pick))
        st.download_button("Baixar o recibo (PDF)", data, file_name=f"recibo_protocolo_{pick}.pdf",
                           mime="application/pdf", icon=":material/download:", key=f"{key}_download")


def _what(prefix: str) -> dict:
    """The common fields: what is filed, its process (or, for a new request, the wreck and the matter), subject."""
    kind = st.selectbox(fr.LABELS["kind"], list(fr.KINDS), index=None, format_func=option_label(fr.KINDS),
                        placeholder="Escolha o que protocolar", key=f"{prefix}_kind")
    data: dict = {"kind": kind}
    if kind == fr.NEW_REQUEST:
        data["wreck_code"] = st.text_input(fr.LABELS["wreck_code"], max_chars=40, key=f"{prefix}_wreck",
                                           help="O código do naufrágio (ex.: NAU-1890-02).")
        matters = {k: v for k, v in rq.MATTERS.items() if k != "recurso"}
        data["matter"] = st.selectbox(fr.LABELS["matter"], list(matters), index=None, format_func=option_label(matters),
                                      placeholder="Escolha o assunto", key=f"{prefix}_matter")
    elif kind is not None:     # an appeal is against a decided request's decision; the rest go to open processes
        chosen = rq.decided_requests(store, user) if kind == fr.APPEAL else rq.undecided_requests(store, user)
        titles = {int(r["id"]): rq.request_title(r) for r in chosen}
        data["request_id"] = st.selectbox(fr.LABELS["request_id"], list(titles), index=None,
                                          format_func=option_label(titles), placeholder="Escolha o processo",
                                          key=f"{prefix}_request")
    return data


def _uploads(files: list | None) -> list[Upload]:
    return [Upload(f.name, f.getvalue()) for f in files or []]


def _done(filed: fr.Filed | None) -> None:
    if filed is None:
        return
    number = f", NUP {filed.nup}" if filed.nup else ""
    st.success(f"Protocolo nº {filed.filing_id} registrado: documento {filed.document_no} do requerimento nº "
               f"{filed.request_id}{number}. Recibo com código de verificação {filed.receipt_code} (baixe-o em "
               "\"Meus protocolos\" ou na lista).")


def file_tab() -> None:
    st.caption(f"A data do protocolo é a do sistema ({date_br(store.today())}), registrada com a hora; quem "
               "protocola não a informa (Lei 9.784/1999, art. 22 §1). O recibo sai na hora, com código de "
               "verificação.")
    data = _what("file")
    with st.form("filing", clear_on_submit=False):
        data["subject"] = st.text_input(fr.LABELS["subject"], max_chars=fr.MAX_SUBJECT)
        files = st.file_uploader(files_label, type=["pdf"], accept_multiple_files=True, key="filing_files",
                                 max_upload_size=25)   # MB = MAX_FILE_BYTES (a literal: tests/service)
        sent = st.form_submit_button("Protocolar", type="primary", icon=":material/send:")
    if sent:      # nothing chosen: the store names each missing field (and writes nothing)
        _done(save(fr.file_electronic, store, user, {k: v for k, v in data.items() if v is not None},
                   _uploads(files), success=None, labels=fr.LABELS))


def received_tab() -> None:
    st.caption("Um documento que chegou à Organização Militar em papel, por correio eletrônico ou por outro sistema "
               "de protocolo: registre o dia em que a OM o recebeu e o documento digitalizado. O registro diz o meio.")
    data = _what("received")
    orgs = list_organisations(store, user)
    names = dict(zip(orgs["id"].tolist(), orgs["name"].tolist()))
    with st.form("filing_received"):
        data["organisation_id"] = st.selectbox(fr.LABELS["organisation_id"], list(names), index=None,
                                               format_func=option_label(names), placeholder="Escolha a empresa")
        channels = {k: v for k, v in fr.CHANNELS.items() if k != fr.SYSTEM}
        data["channel"] = st.selectbox(fr.LABELS["channel"], list(channels), index=None,
                                       format_func=option_label(channels), placeholder="Escolha o meio")
        data["received_on"] = date_field(fr.LABELS["received_on"], max_value=store.today(), required=True,
                                         path="received_on")
        data["subject"] = st.text_input(fr.LABELS["subject"], max_chars=fr.MAX_SUBJECT)
        if data.get("kind") == fr.NEW_REQUEST:     # a case begun in the protocol system keeps its NUP
            data["nup"] = st.text_input(numbers.ADOPT_LABEL, max_chars=nup.MAX_INPUT, placeholder=nup.EXAMPLE,
                                        help=numbers.ADOPT_HELP, key="filing_received_nup")
        files = st.file_uploader(files_label, type=["pdf"], accept_multiple_files=True,
                                 key="filing_received_files", max_upload_size=25)   # MB = MAX_FILE_BYTES
        sent = st.form_submit_button("Registrar protocolo", type="primary")
    if sent:
        data["organisation_id"] = None if data["organisation_id"] is None else int(data["organisation_id"])
        _done(save(fr.record_received, store, user, {k: v for k, v in data.items() if v is not None},
                   _uploads(files), success=None, labels=fr.LABELS))


def queue_tab() -> None:
    rows = fr.deadline_rows(store, user, as_of=store.today())
    st.caption("Cada protocolo ainda não examinado: a Autoridade deve praticar o ato em 5 dias, prorrogáveis até o "
               "dobro com justificativa (Lei 9.784/1999, art. 24), contados do recebimento.")
    if not rows:
        st.info("Nenhum protocolo a examinar.")
        return
    frame = pd.DataFrame([{"case_pt": r["case_pt"], "nup": r["nup"], "organisation": r["organisation"],
                           "matter_pt": r["matter_pt"], "due": r["due"], "state_pt": r["state_pt"]} for r in rows])
    st.dataframe(for_display(frame, dates=["due"], rename={
        "case_pt": "Protocolo", "nup": "NUP", "organisation": "Empresa", "matter_pt": "O que foi protocolado",
        "due": "Examinar até", "state_pt": "Situação"}), hide_index=True, width="stretch")
    waiting = {int(r["id"]): f"Protocolo nº {r['id']} — {r['organisation'] or '—'}, requerimento nº {r['request_id']}"
               for r in fr.filings_of(store, user) if r["reviewed_at"] is None}
    with st.form("filing_review"):
        pick = st.selectbox("Protocolo examinado", list(waiting), index=None, format_func=option_label(waiting),
                            placeholder="Escolha o protocolo")
        note = st.text_input(fr.LABELS["note"], max_chars=fr.MAX_NOTE,
                             help="Ex.: juntado ao processo e encaminhado à instrução; pedido de complementação.")
        sent = st.form_submit_button("Registrar exame")
    if sent:
        if pick is None:
            st.error("Protocolo examinado: escolha o protocolo.")
            return
        if save(fr.review, store, user, int(pick), note, success=None, labels=fr.LABELS) is not None:
            st.success(f"Exame do protocolo nº {pick} registrado.")


# the ciência first after the act: what the representative reads (its period runs from it)
INTIMATION_COLUMNS = {"id": "Intimação", "act_pt": "Ato", "ciencia_pt": "Ciência", "issued_on": "Emitida em",
                      "nup": "NUP do processo", "request_id": "Requerimento", "organisation": "Empresa"}


def _intimation_table(rows: list[dict]) -> None:
    if not rows:
        st.caption("Nenhuma intimação.")
        return
    shown = [c for c in INTIMATION_COLUMNS if c != "organisation" or not allowed(user, "file_filings")]  # its own
    st.dataframe(for_display(pd.DataFrame(rows), dates=["issued_on"], only=shown, rename=INTIMATION_COLUMNS),
                 hide_index=True, width="stretch")


def intimations_tab() -> None:
    """A representative's intimations: opening one downloads it and gives the ciência (expressa) today."""
    st.caption("Abrir uma intimação registra a sua ciência hoje, e o prazo que ela abre começa a correr (Lei "
               "11.419/2006 art. 5 §1). Não aberta, a ciência é tácita ao fim do prazo indicado (art. 5 §3).")
    rows = it.intimations_of(store, user)
    _intimation_table(rows)
    if not rows:
        return
    titles = {int(r["id"]): f"Intimação nº {r['id']} — {r['act_pt']} ({r['ciencia_pt']})" for r in rows}
    pick = st.selectbox("Intimação", list(titles), index=None, format_func=option_label(titles),
                        placeholder="Escolha a intimação", key="intimation_pick")
    if pick is None:
        return
    if st.button("Abrir a intimação", icon=":material/mark_email_read:", key="intimation_open"):
        data = save(it.open_intimation, store, user, int(pick), success=None)
        if data is not None:        # drawn again: the table shows the ciência just recorded
            st.session_state["intimation_file"] = (int(pick), data)
            st.rerun()
    kept = st.session_state.get("intimation_file")
    if kept is not None and kept[0] == pick:
        st.download_button("Baixar a intimação (PDF)", kept[1], file_name=f"intimacao_{pick}.pdf",
                           mime="application/pdf", icon=":material/download:", key="intimation_download")


def intimate_tab() -> None:
    """The office intimates a company in a request's process, and records the AR of a paper intimation."""
    st.caption("A intimação é emitida com código de verificação e entregue na caixa da empresa (com aviso por "
               "e-mail) ou em papel. O prazo que ela abre corre da ciência (Lei 9.784/1999 art. 66).")
    titles = {int(r["id"]): rq.request_title(r) for r in rq.undecided_requests(store, user)}
    # a decided request: its decision's intimation (the appeal's 10 days run from its ciência)
    titles |= {int(r["id"]): f"{rq.request_title(r)} · decidido" for r in rq.decided_requests(store, user)}
    with st.form("intimation"):
        request_id = st.selectbox(it.LABELS["request_id"], list(titles), index=None, format_func=option_label(titles),
                                  placeholder="Escolha o processo")
        acts = {k: f"{a.label} ({a.basis})" for k, a in it.ACTS.items()}
        act = st.selectbox(it.LABELS["act"], list(acts), index=None, format_func=option_label(acts),
                           placeholder="Escolha o ato")
        text = st.text_area(it.LABELS["text"], max_chars=it.MAX_TEXT)
        fixed = date_field(it.LABELS["fixed_day"], min_value=store.today(), path="fixed_day",
                           help="Só para um pedido de informações; em branco: 5 dias da ciência (art. 24)")
        delivery = st.selectbox(it.LABELS["delivery"], list(it.DELIVERIES), index=None,
                                format_func=option_label(it.DELIVERIES), placeholder="Escolha a entrega")
        sent = st.form_submit_button("Emitir a intimação", type="primary")
    if sent:
        data = {"act": act, "text": text, "fixed_day": fixed, "delivery": delivery}
        issued = save(it.issue_intimation, store, user, request_id, {k: v for k, v in data.items() if v is not None},
                      success=None, labels={**it.LABELS})
        if issued is not None:
            st.success(f"Intimação nº {issued.intimation_id} emitida, código de verificação {issued.code}.")
    rows = it.intimations_of(store, user)
    _intimation_table(rows)
    paper = {int(r["id"]): f"Intimação nº {r['id']} — {r['organisation'] or 'requerente'}" for r in rows
             if r["delivery"] == it.PAPER and r["ciencia_kind"] is None}
    if paper:
        with st.form("intimation_ar"):
            pick = st.selectbox("Intimação em papel", list(paper), index=None, format_func=option_label(paper),
                                placeholder="Escolha a intimação")
            day = date_field(it.LABELS["day"], max_value=store.today(), required=True, path="day")
            if st.form_submit_button("Registrar o aviso de recebimento"):
                if pick is None:
                    st.error("Intimação em papel: escolha a intimação.")
                elif save(it.record_ar, store, user, int(pick), day, success=None, labels=it.LABELS) is not None:
                    st.success(f"Ciência da intimação nº {pick} registrada; o prazo corre desde o aviso.")


def list_tab() -> None:
    rows = fr.filings_of(store, user)
    _table(rows, "Nenhum protocolo registrado.")
    _receipt(rows, "filing_receipt_pick")


names = (["Protocolar", "Intimações", "Meus protocolos"] if allowed(user, "file_filings")
         else ["A examinar", "Registrar protocolo recebido", "Intimar", "Todos os protocolos"])
RENDERERS = {"Protocolar": file_tab, "Intimações": intimations_tab, "Meus protocolos": list_tab,
             "A examinar": queue_tab, "Registrar protocolo recebido": received_tab, "Intimar": intimate_tab,
             "Todos os protocolos": list_tab}
tabs = LazyTabs("filings", names)
with tabs.panel():
    RENDERERS[tabs.current]()
