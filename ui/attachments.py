"""Attachment widgets (issue 16): gallery, upload, download — every byte through the store.

Pages call these with the store and the user; nothing here reads a file from disk or builds a
path: `records.open_attachment(store, user, id, variant)` checks the user's scope and audits
the download. Thumbnails and display copies read once are kept in the session (bounded by
`CACHE_BYTES`), so that a rerun of the page neither reads nor audits them again.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ui.fmt import count_br, date_br, for_display, text
from ui.forms import show_problems
from ui.people import person
from ui.safe import md
from valuation.attachments import bulk, records
from valuation.attachments.kinds import (
    KIND_LABELS,
    KINDS_BY_OWNER,
    MAX_FILE_BYTES,
    TYPES_BY_KIND,
    megabytes,
    size_text,
)
from valuation.attachments.sniff import accepted_text
from valuation.attachments.worker import WORKER
from valuation.core.errors import (
    AccessDenied,
    ConflictError,
    InputError,
    NotFound,
    StoreError,
)
from valuation.db.access import Principal, allowed, may_attach  # may_attach: pages ask before offering an upload

CACHE_KEY = "attachments_cache"
POLL_S = 0.25                      # how often the page redraws an upload's progress
CACHE_BYTES = 40 * 1024 * 1024
ERRORS = (AccessDenied, ConflictError, NotFound, StoreError)
# st.file_uploader's `type` filter is a convenience only: the store decides by the bytes.
_EXTENSIONS = {"pdf": ["pdf"], "docx": ["docx"], "odt": ["odt"], "xlsx": ["xlsx"], "ods": ["ods"],
               "jpeg": ["jpg", "jpeg", "jpe", "jfif"], "png": ["png"], "webp": ["webp"]}


def in_worker(user: Principal, label: str, fn: Any, *args: Any) -> Any:
    """Run an upload's store function in the bounded worker (issue 24, item 8:
    `valuation.attachments.worker`), drawing its progress until it ends; its result, or its exception
    raised here. A full queue raises ConflictError (pt-BR) at once."""
    job = WORKER.submit(user.username, label, fn, *args)
    bar = st.progress(0.0, text=f"{label}: na fila…")
    while not job.done():
        fraction, text = job.progress()
        bar.progress(fraction, text=f"{label}: {md(text)}")      # file names are user text
        time.sleep(POLL_S)
    try:
        return job.result()
    finally:
        bar.empty()


def _image(store: Any, user: Principal, a: Any, variant: str, alt: str | None = None) -> None:
    """One stored image, or a notice when its file is missing or altered on disk (audit verify names it;
    the page goes on). `alt`: what the photo shows, for who cannot see it (an item's code and description);
    else its caption or file name."""
    try:
        data = _bytes(store, user, a.id, variant)
    except StoreError as exc:
        st.warning(f"Foto indisponível: {md(exc)}")
        return
    st.image(data, caption=_caption(a), width="stretch", alt=alt_text(a, alt))


def _bytes(store: Any, user: Principal, attachment_id: int, variant: str) -> bytes:
    cache: OrderedDict = st.session_state.setdefault(CACHE_KEY, OrderedDict())
    key = (user.id, attachment_id, variant)
    if key in cache:
        cache.move_to_end(key)
        return cache[key]
    data = records.open_attachment(store, user, attachment_id, variant).data
    cache[key] = data
    while sum(len(v) for v in cache.values()) > CACHE_BYTES and len(cache) > 1:
        cache.popitem(last=False)
    return data


def alt_text(a: records.Attachment, subject: str | None) -> str:
    """The image's alternative text (WCAG 1.1.1): `subject` (e.g. "DPC-EX-2015-01-00001 — Moeda de prata"),
    else the photo's caption or file name."""
    return f"Foto: {subject or a.caption or a.name}"


def _caption(a: records.Attachment) -> str:
    label = a.caption or a.name
    return ("★ " if a.principal else "") + md(label)      # st.image renders its caption as Markdown


def _download(store: Any, user: Principal, a: records.Attachment, *, key: str, label: str = "Baixar") -> None:
    st.download_button(label, data=lambda: records.open_attachment(store, user, a.id, "file").data,
                       file_name=a.name, mime=a.media_type, key=key, icon=":material/download:")


@st.dialog("Fotos do item", width="large")
def _gallery_dialog(store: Any, user: Principal, owner_kind: str, owner_id: int, alt: str | None = None) -> None:
    photos = [a for a in records.list_attachments(store, user, owner_kind, owner_id) if a.is_image]
    if not photos:
        st.info("Nenhuma foto.")
        return
    pick = st.radio("Foto", range(len(photos)), horizontal=True, key=f"att_dialog_pick_{owner_kind}_{owner_id}",
                    format_func=lambda k: f"{k + 1}" + (" (principal)" if photos[k].principal else ""))
    a = photos[int(pick)]
    _image(store, user, a, "preview", alt)
    meta = (f"{a.width} × {a.height} pixels · {a.type_label} · enviada por {person(store, user, a.uploaded_by)} "
            f"em {date_br(a.uploaded_at)}")
    st.caption(md(meta))
    if a.original_sha256:
        st.caption(f"SHA-256 do arquivo original (prova; só DPC): {a.original_sha256}")
    _download(store, user, a, key=f"att_dialog_dl_{a.id}", label="Baixar a foto (sem metadados)")


def gallery(store: Any, user: Principal, owner_kind: str, owner_id: int, *, key: str, columns: int = 4,
            upload: bool = True, alt: str | None = None) -> None:
    """The photos of one owner row as thumbnails, a button for the full-size gallery and, for who
    may, an upload form and the choice of the principal photo; `alt` names what they show (`alt_text`)."""
    try:
        photos = [a for a in records.list_attachments(store, user, owner_kind, owner_id) if a.is_image]
    except (NotFound, AccessDenied) as exc:
        st.info(str(exc))
        return
    if not photos:
        st.caption("Nenhuma foto anexada.")
    else:
        cols = st.columns(columns)
        for k, a in enumerate(photos[: columns * 3]):
            with cols[k % columns]:
                _image(store, user, a, "thumb", alt)
        if len(photos) > columns * 3:
            st.caption(f"… e mais {count_br(len(photos) - columns * 3)} foto(s) na galeria.")
        if st.button(f"Abrir galeria ({count_br(len(photos))} foto(s))", key=f"{key}_open",
                     icon=":material/photo_library:"):
            _gallery_dialog(store, user, owner_kind, owner_id, alt)
        if owner_kind == "item" and len(photos) > 1 and may_attach(user, "item", "photo"):
            _principal_picker(store, user, photos, key=key)
    if upload and may_attach(user, owner_kind, "photo" if owner_kind == "item" else None) \
            and st.toggle("Anexar fotos", key=f"{key}_upload_on"):
        upload_form(store, user, owner_kind, owner_id, ("photo",) if owner_kind == "item"
                    else KINDS_BY_OWNER[owner_kind], key=f"{key}_up")


def _principal_picker(store: Any, user: Principal, photos: Sequence[records.Attachment], *, key: str) -> None:
    with st.popover("Foto principal"):
        pick = st.selectbox("Foto principal", range(len(photos)), key=f"{key}_principal",
                            format_func=lambda k: photos[k].caption or photos[k].name)
        if st.button("Definir como principal", key=f"{key}_principal_go"):
            try:
                records.set_principal(store, user, photos[int(pick)].id)
            except ERRORS as exc:
                st.error(str(exc))
            else:
                st.rerun()              # the gallery above shows the new principal first


def principal_photo(store: Any, user: Principal, item_id: int, *, key: str, alt: str | None = None) -> None:
    """The item's principal photo (display copy) and a button that opens the gallery; `alt` as `alt_text`."""
    try:
        photos = [a for a in records.list_attachments(store, user, "item", item_id, kind="photo")]
    except (NotFound, AccessDenied):
        return
    if not photos:
        st.caption("Sem foto.")
        return
    _image(store, user, photos[0], "thumb", alt)
    if st.button(f"Ver fotos ({count_br(len(photos))})", key=f"{key}_gallery", icon=":material/photo_library:"):
        _gallery_dialog(store, user, "item", item_id, alt)


def _type_keys(kinds: Sequence[str]) -> list[str]:
    """The accepted types of `kinds`, in their listed order (PDF, DOCX, ODT, … JPEG, PNG, WebP)."""
    out: list[str] = []
    for k in kinds:
        out += [t for t in TYPES_BY_KIND[k] if t not in out]
    return out


def _types_for(kinds: Sequence[str]) -> list[str]:
    return [e for t in _type_keys(kinds) for e in _EXTENSIONS[t]]


def upload_form(store: Any, user: Principal, owner_kind: str, owner_id: int, kinds: Sequence[str], *,
                key: str) -> None:
    """Upload files of one of `kinds` to one owner row (all or nothing, problems per file)."""
    kinds = [k for k in kinds if may_attach(user, owner_kind, k)]
    if not kinds:
        return
    with st.form(key, clear_on_submit=True):
        kind = st.selectbox("Tipo de documento", kinds, format_func=lambda k: KIND_LABELS.get(k, k)) \
            if len(kinds) > 1 else kinds[0]
        accepted = accepted_text(_type_keys(kinds))
        files = st.file_uploader(f"Arquivos ({accepted}; até {megabytes(MAX_FILE_BYTES)} cada)",
                                 type=_types_for(kinds), accept_multiple_files=True, key=f"{key}_files",
                                 max_upload_size=25)   # MB = MAX_FILE_BYTES (a literal: tests/service)
        submitted = st.form_submit_button("Anexar", icon=":material/attach_file:")
    if submitted:
        attach_uploaded(store, user, owner_kind, owner_id, str(kind), files or [])


def attach_uploaded(store: Any, user: Principal, owner_kind: str, owner_id: int, kind: str,
                    files: Sequence[Any]) -> list[int]:
    """Hand Streamlit's uploaded files to the store; shows the outcome; returns the new ids."""
    if not files:
        st.warning("Escolha ao menos um arquivo.")
        return []
    uploads = [records.Upload(f.name, f.getvalue()) for f in files]
    try:
        ids = in_worker(user, "Anexando", records.attach, store, user, owner_kind, owner_id, kind, uploads)
    except InputError as exc:
        show_problems(exc, title="Nenhum arquivo foi anexado:")
    except ERRORS as exc:
        st.error(str(exc))
    else:
        st.session_state.pop(CACHE_KEY, None)
        st.success(f"{count_br(len(ids))} arquivo(s) anexado(s).")
        return ids
    return []


def file_list(store: Any, user: Principal, owner_kind: str, owner_id: int, *, key: str) -> None:
    """The files of one owner row: a table and a download button per file."""
    try:
        files = records.list_attachments(store, user, owner_kind, owner_id)
    except (NotFound, AccessDenied) as exc:
        st.info(str(exc))
        return
    if not files:
        st.caption("Nenhum arquivo anexado.")
        return
    proof = allowed(user, "read_original_checksums")
    frame = pd.DataFrame([{"name": a.name, "kind": a.kind_label, "type": a.type_label,
                           "size": size_text(a.size_bytes), "by": person(store, user, a.uploaded_by),
                           "at": a.uploaded_at,
                           **({"sha": a.original_sha256} if proof else {})} for a in files])
    st.dataframe(for_display(frame, dates=("at",), rename={
        "name": "Arquivo", "kind": "Tipo", "type": "Formato", "size": "Tamanho", "by": "Enviado por",
        "at": "Enviado em", "sha": "SHA-256 do original (prova)"}), hide_index=True, width="stretch")
    pick = st.selectbox("Arquivo", range(len(files)), key=f"{key}_pick", format_func=lambda k: files[k].name)
    _download(store, user, files[int(pick)], key=f"{key}_dl_{files[int(pick)].id}", label="Baixar arquivo")


FIND_LABEL = "Outro item (código ou descrição)"


def _item_choice(store: Any, user: Principal, rows: pd.DataFrame | None, *, key: str) -> tuple[int, str] | None:
    """The item to open and its subject ("code — description", the photos' alternative text): one found by
    code or description among all the user's items (`FIND_LABEL`), or else one of the page's rows."""
    from valuation.inventory.queries import FIND_LIMIT, FIND_MAX_CHARS, find_items

    wanted = st.text_input(FIND_LABEL, key=f"{key}_find", max_chars=FIND_MAX_CHARS,
                           placeholder="ex.: DPC-EX-2015-01-00001 ou ânfora",
                           help="Qualquer item dos seus contratos, não só os desta página.")
    if wanted.strip():
        try:
            found = find_items(store, user, wanted)
        except InputError as exc:
            show_problems(exc, title="Busca inválida:")
            return None
        if not found:
            st.info("Nenhum item seu com esse código ou descrição.")
            return None
        items = [(int(r["id"]), str(r["item_code"]), r["description"]) for r in found]
        title = "Item encontrado" + (f" (os primeiros {count_br(len(found))})" if len(found) >= FIND_LIMIT else "")
        choice_key = f"{key}_found"
    elif rows is not None and len(rows) and "id" in rows.columns:
        items = [(int(i), str(c), d) for i, c, d in zip(rows["id"], rows["item_code"], rows["description"])]
        title, choice_key = "Item da página", f"{key}_item"
    else:
        return None
    counts = records.counts(store, user, "item", [i for i, _, _ in items])
    subjects = {i: f"{c} — {text(d)}" for i, c, d in items}
    labels = {i: s + (f" · {counts[i]} foto(s)" if counts.get(i) else "") for i, s in subjects.items()}
    picked = st.selectbox(title, list(labels), format_func=lambda i: labels.get(i, str(i)), key=choice_key)
    return None if picked is None else (int(picked), subjects[int(picked)])


def item_detail(store: Any, user: Principal, rows: pd.DataFrame, *, key: str = "inv_detail") -> None:
    """Inventory: pick an item — of the page, or any of the user's by code or description — see its data
    and its photos (and attach photos)."""
    from ui import item_card

    with st.expander("Detalhe do item e fotos", expanded=False):
        choice = _item_choice(store, user, rows, key=key)
        if choice is None:
            return
        item_id, subject = choice
        item_card.facts(store, user, item_id)
        gallery(store, user, "item", item_id, key=f"{key}_{item_id}", alt=subject)


def report_uploader(*, key: str) -> Any:
    """A file field for the report itself, inside a deadline-event form."""
    accepted = accepted_text(TYPES_BY_KIND["report"])
    return st.file_uploader(f"Relatório ({accepted}; até {megabytes(MAX_FILE_BYTES)}; opcional)",
                            type=_types_for(["report"]), key=key, max_upload_size=25)   # MB = MAX_FILE_BYTES


def attach_report(store: Any, user: Principal, event_id: int, uploaded: Any) -> None:
    """Attach the report given in the event form to the event just recorded."""
    if uploaded is not None:
        attach_uploaded(store, user, "deadline_event", int(event_id), "report", [uploaded])


def event_reports(store: Any, user: Principal, events: pd.DataFrame, *, key: str = "ev_reports") -> None:
    """Reports of the listed deadline events: pick one, download its report, or attach one."""
    if events is None or events.empty or "id" not in events.columns:
        return
    ids = [int(i) for i in events["id"].tolist()]
    counts = records.counts(store, user, "deadline_event", ids)
    st.subheader("Relatórios dos eventos")
    with_reports = sum(1 for i in ids if counts.get(i))
    st.caption(f"{count_br(with_reports)} dos {count_br(len(ids))} eventos listados têm relatório anexado.")
    titles = {int(r["id"]): f"Nº {r['id']} — {text(r.get('kind_label'))} · {date_br(r.get('event_date'))}"
              + (f" · {text(r.get('contract_code'))}" if not pd.isna(r.get("contract_code")) else "")
              + (f" · {counts[int(r['id'])]} arquivo(s)" if counts.get(int(r["id"])) else "")
              for r in events.to_dict("records")}
    event_id = st.selectbox("Evento", ids, format_func=lambda i: titles.get(i, str(i)), key=f"{key}_event")
    if event_id is None:
        return
    file_list(store, user, "deadline_event", int(event_id), key=f"{key}_{event_id}")
    if may_attach(user, "deadline_event", "report"):
        upload_form(store, user, "deadline_event", int(event_id), ("report",), key=f"{key}_up_{event_id}")


def bulk_photos(store: Any, user: Principal, contract_codes: Sequence[str], *, key: str = "bulk_zip") -> None:
    """A ZIP of photos named by item code, for a contract's items (all or nothing)."""
    if not contract_codes or not may_attach(user, "item", "photo"):
        return
    st.caption("Um arquivo ZIP com fotos (JPEG, PNG ou WebP) nomeadas pelo código do item — com '/' trocado por "
               "'-', p. ex. DPC-EX-2015-01-00001.jpg; mais fotos do mesmo item como _2, _3. Tudo ou nada: se um "
               "nome não corresponder a um item do contrato, nada é anexado e a lista dos nomes sem item aparece.")
    with st.form(key, clear_on_submit=True):
        code = st.selectbox("Contrato", list(contract_codes), key=f"{key}_contract")
        upload = st.file_uploader("Arquivo ZIP de fotos", type=["zip"], key=f"{key}_file")
        go = st.form_submit_button("Anexar fotos", icon=":material/photo_library:")
    if not go:
        return
    if upload is None:
        st.warning("Escolha o arquivo ZIP.")
        return
    with st.status("Conferindo as fotos…") as status:
        try:
            res = in_worker(user, "Fotos do ZIP", bulk.attach_photo_zip, store, user, code, upload.getvalue(),
                            upload.name)
        except InputError as exc:
            status.update(label="ZIP recusado: nada foi anexado", state="error")
            table = pd.DataFrame({"Arquivo": [p.path for p in exc.problems],
                                  "Motivo": [p.message.removeprefix(f"{p.path}: ") for p in exc.problems]})
            st.error(f"Nada foi anexado: {count_br(len(table))} problema(s).")
            st.dataframe(table, hide_index=True, width="stretch")
        except ERRORS as exc:
            status.update(label="ZIP recusado", state="error")
            st.error(str(exc))
        else:
            status.update(label="Fotos anexadas", state="complete")
            st.session_state.pop(CACHE_KEY, None)
            st.success(f"{count_br(res.attached)} foto(s) anexada(s) a {count_br(res.items)} item(ns) do contrato "
                       f"{res.contract_code}; {count_br(res.new_principals)} foto(s) principal(is) definida(s).")


def photo_sheet(label: str, make: Any, file_name: str, *, key: str) -> None:
    """A download button for a photo appendix (built, read and audited only when clicked)."""
    st.download_button(label, data=make, file_name=file_name, mime="application/pdf", on_click="ignore", key=key,
                       icon=":material/photo_library:",
                       help="Miniaturas da foto principal de cada item, sem metadados, até 4 MB de imagens.")
