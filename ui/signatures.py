"""The signatures of an issued act on the page that offers it (issue 27 §2): 'assinado por N de M', who is missing,
each signature (signer, time, outcome, reason), the last signed revision to download, and the box
"Enviar PDF assinado" that hands the file to `valuation.signatures.uploads.submit` (every upload recorded), and the
uploads refused before their signatures were checked.

Everything shown that came from outside (a certificate's name, a reason quoting it) is plain text: tables
(st.dataframe) or `md`-escaped lines. The upload is bounded as every attachment (MAX_FILE_BYTES)."""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ui.fmt import moment_br
from ui.safe import md
from valuation.attachments.kinds import MAX_FILE_BYTES, megabytes
from valuation.db.access import Principal, allowed
from valuation.signatures import listing, uploads

NOT_THIS = uploads.NOT_THIS


def _outcome_key(key: str) -> str:
    return f"{key}_signed_outcome"


def _table(act: listing.SignedAct) -> None:
    """One line per upload (issue 43, item 9): when, who sent it, the outcome, the new signatures, the reasons."""
    if not act.rows:
        st.caption("Nenhum PDF assinado enviado para este documento.")
        return
    st.dataframe(pd.DataFrame([{"Enviado em": moment_br(r.uploaded_at), "Enviado por": r.uploaded_by,
                                "Resultado": r.outcome, "Assinaturas novas": r.signatures,
                                "Motivo": r.reason or "—"} for r in act.rows]),
                 hide_index=True, width="stretch")


def _act(store: Any, user: Principal, table: str, record_id: int, act: listing.SignedAct, key: str) -> None:
    st.markdown(f"**Código {md(act.code)}** · emitido em {md(moment_br(act.issued_at))} · "
                f"**{md(act.progress.text)}**")
    if act.progress.missing:
        st.caption(md(act.progress.missing_text))
    elif act.progress.complete:
        st.caption("Todas as assinaturas exigidas foram conferidas.")
    _table(act)
    if act.has_signed_file:
        code = act.code
        st.download_button("Baixar a versão assinada mais recente (PDF)", key=f"{key}_signed_{code}",
                           data=lambda: listing.latest_signed(store, user, table, record_id, code) or b"",
                           file_name=f"assinado_{code}.pdf", mime="application/pdf", on_click="ignore",
                           help="Quem ainda não assinou assina esta versão, para que as assinaturas se somem.")


def _show_outcome(key: str) -> None:
    outcome = st.session_state.pop(_outcome_key(key), None)
    if outcome is None:
        return
    ok, lines = outcome
    body = "\n".join(f"- {md(line)}" for line in lines)
    (st.success if ok else st.error)(("Assinatura aceita." if ok else "Assinatura recusada:") + "\n\n" + body)


# The box takes what the server takes (.streamlit/config.toml server.maxUploadSize), twice the file limit, so a file
# a little over 25 MB reaches `submit`, which refuses it naming the limit (and records it); the browser alone showed
# a red icon and, on "Enviar", only "Escolha o arquivo PDF assinado" (issue 43, item 8).
BOX_MB = 50
CHOOSE = (f"Escolha o arquivo PDF assinado (até {megabytes(MAX_FILE_BYTES)}). Se o arquivo escolhido ficou marcado em "
          f"vermelho, ele passa de {BOX_MB} MB e o navegador não o envia: o limite de um PDF assinado é "
          f"{megabytes(MAX_FILE_BYTES)}.")


def _upload(store: Any, user: Principal, table: str, record_id: int, key: str) -> None:
    with st.form(f"{key}_form", clear_on_submit=True):
        upload = st.file_uploader(f"Enviar PDF assinado (PAdES; até {megabytes(MAX_FILE_BYTES)})", type=["pdf"],
                                  key=f"{key}_file", max_upload_size=50)   # = BOX_MB (a literal: checked)
        sent = st.form_submit_button("Enviar PDF assinado", icon=":material/draw:")
    if not sent:
        return
    if upload is None:
        st.warning(CHOOSE)
        return
    st.session_state[_outcome_key(key)] = submit(store, user, table, record_id, upload.getvalue())
    st.rerun()


def submit(store: Any, user: Principal, table: str, record_id: int, data: bytes) -> tuple[bool, list[str]]:
    """Verify and record one signed upload (`signatures.uploads.submit`: every upload is recorded, refusals too);
    (accepted, the pt-BR lines that say why)."""
    with st.spinner("Conferindo as assinaturas…"):
        outcome = uploads.submit(store, user, table, record_id, data)
    return outcome.accepted, list(outcome.lines)


def current_copy(store: Any, user: Principal, table: str, record_id: int, registered: bytes) -> bytes:
    """The file a download of an issued act serves: its latest signed revision, else the registered bytes."""
    return listing.current_copy(store, user, table, record_id, registered)


def panel(store: Any, user: Principal, table: str, record_id: int, *, key: str) -> None:
    """The act's signatures and, for who may sign, the upload box (see the module)."""
    st.subheader("Assinatura eletrônica")
    st.caption("Baixe o PDF, assine-o no assinador do gov.br ou com o seu certificado ICP-Brasil (PAdES) sem "
               "alterar o documento e envie o arquivo assinado. A assinatura é conferida pelo sistema "
               "(Lei 14.063/2020; Decreto 10.543/2020).")
    _show_outcome(key)
    acts = listing.documents_of(store, user, table, record_id)
    if not acts:
        st.caption("Nenhum documento emitido ainda: baixe o PDF para emiti-lo.")
    for act in acts:
        _act(store, user, table, record_id, act, key)
    refused = listing.refusals_of(store, user, table, record_id)
    if refused:                    # issue 43, item 4: every upload leaves a trace, the substitution attempts too
        st.markdown("**Envios recusados antes da conferência das assinaturas**")
        st.dataframe(pd.DataFrame([{"Enviado em": moment_br(r.uploaded_at), "Enviado por": r.uploaded_by,
                                    "Documento": r.code, "Motivo": r.reason} for r in refused]),
                     hide_index=True, width="stretch")
    if acts and allowed(user, "upload_signed_document"):
        _upload(store, user, table, record_id, key)
