"""Documentos e fotos (issue 16): the documents of contracts (authorisation, co-signature, edital,
cost sheets) and of wrecks (DPC only), and photos of a contract's items in one ZIP. Files are
read and written only through the store, with the user; every upload and download is audited."""
from __future__ import annotations

import streamlit as st

from ui import attachments, session
from ui.fmt import count_br, option_label
from ui.tabs import LazyTabs
from valuation.attachments import records
from valuation.attachments.budget import MAX_HOURLY_PIXELS, MAX_UPLOAD_PIXELS, megapixels
from valuation.attachments.kinds import (
    MAX_ARCHIVE_BYTES,
    MAX_ARCHIVE_ENTRIES,
    MAX_FILE_BYTES,
    MAX_IMAGE_PIXELS,
    MAX_UPLOAD_BYTES,
    megabytes,
)
from valuation.db.access import allowed
from valuation.registry.contracts import contract_choices
from valuation.registry.wrecks import list_wrecks

user = session.guard("documents")
store = session.store()
dpc = allowed(user, "attach_any_file")   # anexar arquivos a qualquer registro (DPC): wrecks, every kind
st.title("Documentos e fotos")
st.caption("Os arquivos ficam com o registro a que pertencem e só são entregues a quem pode ver esse registro; "
           "o tipo é conferido pelo conteúdo, não pelo nome. Fotos são regravadas sem metadados (posição GPS, "
           "câmera): a posição de um naufrágio localizado é sigilosa (NORMAM-10 (ed. 2002) 0105). "
           f"Limites: {megabytes(MAX_FILE_BYTES)} por arquivo, {megabytes(MAX_UPLOAD_BYTES)} por envio, imagens até "
           f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels; ZIP de fotos até {megabytes(MAX_ARCHIVE_BYTES)} e "
           f"{count_br(MAX_ARCHIVE_ENTRIES)} arquivos; as imagens de um envio somam no máximo "
           f"{megapixels(MAX_UPLOAD_PIXELS)}, e {megapixels(MAX_HOURLY_PIXELS)} por usuário a cada hora.")

names = ["Contratos", "Fotos em lote"] + (["Naufrágios"] if dpc else [])
tabs = LazyTabs("documents", names)   # issue 17: only the open tab runs
contracts = contract_choices(store, user, with_items=tabs.is_open("Fotos em lote"))

if tabs.is_open("Contratos"):
    with tabs["Contratos"]:
        if contracts.empty:
            st.info("Nenhum contrato.")
        else:
            ids = [int(i) for i in contracts["id"]]
            held = records.counts(store, user, "contract", ids)
            labels = {i: f"{c} — {o}" + (f" · {count_br(held[i])} arquivo(s)" if held.get(i) else "")
                      for i, c, o in zip(ids, contracts["code"], contracts["organisation_name"])}
            first = next((k for k, i in enumerate(ids) if held.get(i)), 0)   # open on a contract with files
            cid = st.selectbox("Contrato", ids, index=first, format_func=option_label(labels), key="docs_contract")
            attachments.file_list(store, user, "contract", int(cid), key=f"docs_c_{cid}")
            kinds = ("authorisation", "co_signature", "edital", "cost_sheet") if dpc else ("cost_sheet",)
            st.markdown("**Anexar documento**" if dpc else "**Anexar planilha de custos**")
            attachments.upload_form(store, user, "contract", int(cid), kinds, key=f"docs_c_up_{cid}")

if tabs.is_open("Fotos em lote"):
    with tabs["Fotos em lote"]:
        with_items = contracts[contracts["has_items"]]["code"].tolist() if not contracts.empty else []
        if not with_items:
            st.info("Nenhum contrato com bens resgatados.")
        else:
            attachments.bulk_photos(store, user, with_items)

if tabs.is_open("Naufrágios"):
    with tabs["Naufrágios"]:
        wrecks = list_wrecks(store, user)
        wl = {int(i): f"{c} — {n}" for i, c, n in zip(wrecks["id"], wrecks["code"], wrecks["name"])}
        wid = st.selectbox("Naufrágio", list(wl), format_func=option_label(wl), key="docs_wreck")
        st.caption("Documentos e fotos de naufrágios são de uso exclusivo da DPC.")
        attachments.file_list(store, user, "wreck", int(wid), key=f"docs_w_{wid}")
        attachments.upload_form(store, user, "wreck", int(wid), ("document", "photo"), key=f"docs_w_up_{wid}")
