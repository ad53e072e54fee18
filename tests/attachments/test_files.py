"""Attachments (issue 16 §§1–5): type by content, image bombs, metadata stripped, access by role,
append-only versions, audit, and the bulk ZIP of photos (all or nothing)."""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from PIL import Image

from tests.support import attachments as F
from valuation.attachments import bulk, records
from valuation.attachments.kinds import MAX_FILE_BYTES, TYPES_BY_KIND
from valuation.attachments.sniff import sniff
from valuation.core.errors import AccessDenied, InputError, NotFound, StoreError
from valuation.db.blobs import BlobStore, blob_path, files_root

ROOT = Path(__file__).resolve().parents[2]
REPORT = TYPES_BY_KIND["report"]
PHOTO = TYPES_BY_KIND["photo"]
SHEET = TYPES_BY_KIND["cost_sheet"]


def problems(exc: pytest.ExceptionInfo) -> str:
    return " | ".join(p.message for p in exc.value.problems)


# -- type by content ---------------------------------------------------------------------------
@pytest.mark.parametrize("make, name, allowed, key", [
    (F.jpeg, "foto.jpg", PHOTO, "jpeg"), (F.jpeg, "FOTO.JPEG", PHOTO, "jpeg"),
    (F.png_with_metadata, "a.png", PHOTO, "png"), (F.webp_with_metadata, "a.webp", PHOTO, "webp"),
    (F.pdf, "relatorio.pdf", REPORT, "pdf"), (F.docx, "relatorio.docx", REPORT, "docx"),
    (F.odt, "relatorio.odt", REPORT, "odt"), (F.xlsx, "planilha.xlsx", SHEET, "xlsx"),
    (lambda: F.odt(b"application/vnd.oasis.opendocument.spreadsheet"), "planilha.ods", SHEET, "ods"),
])
def test_listed_types_are_recognised_by_their_bytes(make, name, allowed, key):
    assert sniff(make(), name, allowed).key == key


@pytest.mark.parametrize("data, name, allowed, words", [
    (F.png_with_metadata(), "relatorio.pdf", REPORT, ("termina em .pdf", "imagem PNG")),   # renamed image
    (F.exe(), "relatorio.pdf", REPORT, ("programa executável",)),                          # renamed program
    (F.pdf(), "foto.jpg", PHOTO, ("PDF", "não é aceito aqui")),                            # a PDF is no photo
    (F.plain_zip(), "relatorio.docx", REPORT, ("ZIP comum",)),                              # a ZIP is no DOCX
    (F.docm(), "relatorio.docx", REPORT, ("ZIP comum",)),                                   # macros: not a DOCX
    (F.odt(b"application/x-evil"), "relatorio.odt", REPORT, ("ZIP comum",)),
    (F.xlsx(), "relatorio.xlsx", REPORT, ("planilha Excel", "não é aceito aqui")),          # sheets: cost sheets only
    (F.pdf()[:-7], "relatorio.pdf", REPORT, ("PDF incompleto",)),
    (b"GIF89a" + b"\x00" * 40, "foto.gif", PHOTO, ("imagem GIF",)),
    (b"", "vazio.pdf", REPORT, ("arquivo vazio",)),
    (F.jpeg(), "foto", PHOTO, ("não tem extensão",)),
    (b"%PDF-1.4\n" + b"0" * MAX_FILE_BYTES + b"%%EOF", "grande.pdf", REPORT, ("acima do limite de 25 MB",)),
])
def test_other_content_is_refused_in_portuguese_naming_the_file(data, name, allowed, words):
    with pytest.raises(InputError) as exc:
        sniff(data, name, allowed)
    text = problems(exc)
    assert text.startswith(f"{name}:")
    for w in words:
        assert w in text


# -- images: bombs and metadata ------------------------------------------------------------------
@pytest.mark.parametrize("data, words", [
    (F.png_header_only(20_000, 20_000), "acima do limite de 50 megapixels"),   # 400 MP declared in ~60 bytes
    (F.png_header_only(40_000, 10), "acima do limite de 50 megapixels"),       # one side too long
    (F.real_png_bomb(7_200), "acima do limite de 50 megapixels"),              # a genuine 52-megapixel PNG
    (F.jpeg()[:120], "corrompida ou incompleta"),
])
def test_image_bombs_and_broken_images_are_refused(data, words):
    with pytest.raises(InputError) as exc:
        records.prepare(records.Upload("foto.png" if data[:4] == b"\x89PNG" else "foto.jpg", data), PHOTO)
    assert words in problems(exc)


def _no_metadata(data: bytes) -> None:
    img = Image.open(io.BytesIO(data))
    assert dict(img.getexif()) == {}
    assert not img.getexif().get_ifd(0x8825)
    assert not {k for k in img.info if k.lower() in ("exif", "xmp", "icc_profile", "comment", "software")}
    for secret in (F.MAKE.encode(), F.MODEL.encode(), F.SERIAL.encode(), b"Exif\x00\x00", b"lat -13"):
        assert secret not in data


@pytest.mark.parametrize("make, name", [(F.jpeg, "mergulho.jpg"), (F.png_with_metadata, "mergulho.png"),
                                        (F.webp_with_metadata, "mergulho.webp")])
def test_gps_and_camera_data_never_reach_the_stored_copies(small_world, make, name):
    w = small_world
    raw = make()
    assert F.MODEL.encode() in raw                                 # the upload does carry them
    exp, dpc = w.principal("explorer_a"), w.principal("dpc")
    [aid] = records.attach(w.store, exp, "item", w.ids["A1-001"], "photo", [records.Upload(name, raw)])
    for variant in ("file", "preview", "thumb"):
        _no_metadata(records.open_attachment(w.store, dpc, aid, variant).data)
    seen_by_dpc = records.list_attachments(w.store, dpc, "item", w.ids["A1-001"])[0]
    seen_by_explorer = records.list_attachments(w.store, exp, "item", w.ids["A1-001"])[0]
    assert seen_by_dpc.original_sha256 == hashlib.sha256(raw).hexdigest() != seen_by_dpc.sha256
    assert seen_by_explorer.original_sha256 is None                 # evidence: DPC only
    log = " ".join(str(r["after_json"]) for r in w.store.fetch("SELECT after_json FROM audit_log"))
    assert seen_by_dpc.original_sha256 not in log and F.MODEL not in log   # the admin reads the log


def test_the_exif_orientation_is_applied_before_it_is_dropped(small_world):
    w = small_world
    [aid] = records.attach(w.store, w.principal("dpc"), "item", w.ids["A1-002"], "photo",
                           [records.Upload("deitada.jpg", F.jpeg((64, 48)))])
    stored = Image.open(io.BytesIO(records.open_attachment(w.store, w.principal("dpc"), aid).data))
    assert stored.size == (48, 64)


# -- access ------------------------------------------------------------------------------------
@pytest.fixture
def filed(small_world):
    """A photo of an A-1 item (explorer A), a report on an A-1 event, an A-1 cost sheet, a w1 document."""
    w = small_world
    dpc, exp = w.principal("dpc"), w.principal("explorer_a")
    event = w.store.write("fixture", lambda tx: tx.scalar(
        "INSERT INTO deadline_events (kind, contract_id, event_date, reference, recorded_by, recorded_at) "
        "VALUES ('relatório_mensal_entregue', ?, DATE '2025-03-05', '2025-02', 'exp.alfa', now()) RETURNING id",
        [w.ids["A-1"]]))
    ids = {
        "photo": records.attach(w.store, exp, "item", w.ids["A1-001"], "photo", [records.Upload("a.jpg", F.jpeg())])[0],
        "report": records.attach(w.store, exp, "deadline_event", event, "report",
                                 [records.Upload("r.pdf", F.pdf())])[0],
        "sheet": records.attach(w.store, exp, "contract", w.ids["A-1"], "cost_sheet",
                                [records.Upload("custos.xlsx", F.xlsx())])[0],
        "wreck": records.attach(w.store, dpc, "wreck", w.ids["w1"], "document",
                                [records.Upload("ficha.pdf", F.pdf())])[0],
    }
    return w, ids, event


READABLE = {   # principal key → which of the fixture's files it may read
    "dpc": {"photo", "report", "sheet", "wreck"},
    "explorer_a": {"photo", "report", "sheet"},
    "explorer_b": set(),
    "commission": {"photo"},
    "commission_president": {"photo"},
}


@pytest.mark.parametrize("key", sorted(READABLE))
def test_each_role_reads_exactly_the_files_of_the_rows_it_may_see(filed, key):
    w, ids, _ = filed
    user = w.principal(key)
    for what, aid in ids.items():
        if what in READABLE[key]:
            assert records.open_attachment(w.store, user, aid).data
        else:
            with pytest.raises(NotFound) as exc:
                records.open_attachment(w.store, user, aid)
            assert str(exc.value) == f"Arquivo anexado {aid} não encontrado."   # as for an id that does not exist


def test_another_companys_ids_and_guessed_ids_read_not_found(filed):
    w, ids, event = filed
    other = w.principal("explorer_b")
    missing = max(ids.values()) + 1000
    with pytest.raises(NotFound) as absent:
        records.open_attachment(w.store, other, missing)
    assert str(absent.value) == f"Arquivo anexado {missing} não encontrado."
    for owner_kind, owner_id in (("item", w.ids["A1-001"]), ("deadline_event", event), ("contract", w.ids["A-1"])):
        with pytest.raises(NotFound, match="não encontrado"):
            records.list_attachments(w.store, other, owner_kind, owner_id)
    assert records.counts(w.store, other, "item", [w.ids["A1-001"]]) == {}
    with pytest.raises(AccessDenied):
        records.open_attachment(w.store, w.principal("admin"), ids["photo"])


def test_nobody_reaches_a_file_by_its_hash_or_path(filed):
    w, ids, _ = filed
    dpc = w.principal("dpc")
    sha = records.list_attachments(w.store, dpc, "item", w.ids["A1-001"])[0].sha256
    for guess in (sha, sha[:12], "../../etc/passwd", f"files/{sha[:2]}/{sha[2:4]}/{sha}"):
        with pytest.raises(InputError):
            records.open_attachment(w.store, dpc, guess)          # ids only: a hash or a path is refused
    with pytest.raises(StoreError):
        blob_path(files_root(w.path), "../../../etc/passwd")
    root = files_root(w.path)
    assert (root / sha[:2] / sha[2:4] / sha).is_file()
    assert not root.is_relative_to(ROOT / "static")              # never in the folder Streamlit serves


def test_who_may_attach_what(filed):
    w, _, event = filed
    jpg = [records.Upload("a.jpg", F.jpeg())]
    with pytest.raises(NotFound):
        records.attach(w.store, w.principal("explorer_b"), "item", w.ids["A1-001"], "photo", jpg)
    with pytest.raises(NotFound):
        records.attach(w.store, w.principal("explorer_b"), "deadline_event", event, "report",
                       [records.Upload("r.pdf", F.pdf())])
    with pytest.raises(AccessDenied):
        records.attach(w.store, w.principal("commission"), "item", w.ids["A1-001"], "photo", jpg)
    with pytest.raises(AccessDenied):
        records.attach(w.store, w.principal("explorer_a"), "contract", w.ids["A-1"], "authorisation",
                       [records.Upload("a.pdf", F.pdf())])
    with pytest.raises(AccessDenied):
        records.attach(w.store, w.principal("explorer_a"), "wreck", w.ids["w1"], "document",
                       [records.Upload("a.pdf", F.pdf())])
    with pytest.raises(InputError, match="não cabe"):
        records.attach(w.store, w.principal("dpc"), "item", w.ids["A1-001"], "report", jpg)


def test_every_upload_and_download_is_audited(filed):
    w, ids, _ = filed
    before = w.store.scalar("SELECT count(*) FROM audit_log WHERE action = 'attachment_download'")
    records.open_attachment(w.store, w.principal("commission"), ids["photo"], "thumb")
    row = w.store.fetch_one("SELECT actor, entity, entity_id, after_json FROM audit_log "
                            "WHERE action = 'attachment_download' ORDER BY id DESC LIMIT 1")
    assert w.store.scalar("SELECT count(*) FROM audit_log WHERE action = 'attachment_download'") == before + 1
    assert (row["actor"], row["entity"], row["entity_id"]) == ("com.navy", "attachment", str(ids["photo"]))
    assert '"variant":"thumb"' in row["after_json"]
    uploads = w.store.fetch("SELECT actor, entity FROM audit_log WHERE action = 'attachment_upload' ORDER BY id")
    assert [(u["actor"], u["entity"]) for u in uploads] == [("exp.alfa", "item"), ("exp.alfa", "deadline_event"),
                                                            ("exp.alfa", "contract"), ("dpc.silva", "wreck")]


def test_a_refused_upload_writes_nothing(small_world):
    w = small_world
    files_before = {p for p in files_root(w.path).rglob("*") if p.is_file()} if files_root(w.path).exists() else set()
    with pytest.raises(InputError) as exc:
        records.attach(w.store, w.principal("dpc"), "item", w.ids["A1-001"], "photo",
                       [records.Upload("boa.jpg", F.jpeg()), records.Upload("ruim.jpg", F.exe())])
    assert "ruim.jpg" in problems(exc) and "boa.jpg" not in problems(exc)
    assert w.store.scalar("SELECT count(*) FROM attachments") == 0
    after = {p for p in files_root(w.path).rglob("*") if p.is_file()} if files_root(w.path).exists() else set()
    assert after == files_before


# -- append-only ---------------------------------------------------------------------------------
def test_replace_and_withdraw_add_versions_and_keep_the_old_ones(small_world):
    w = small_world
    dpc, item = w.principal("dpc"), w.ids["A1-003"]
    first, second = records.attach(w.store, dpc, "item", item, "photo",
                                   [records.Upload("1.jpg", F.jpeg()),
                                    records.Upload("2.jpg", F.jpeg(colour=(1, 2, 3)))])
    records.set_principal(w.store, dpc, second)
    new = records.replace(w.store, dpc, second, records.Upload("2b.jpg", F.jpeg(colour=(9, 9, 9))), "foto refeita")
    listed = records.list_attachments(w.store, dpc, "item", item)
    assert [(a.id, a.version, a.principal) for a in listed] == [(new, 2, True), (first, 1, False)]
    assert records.open_attachment(w.store, dpc, second).data                # the old version stays readable
    records.withdraw(w.store, dpc, first, "enviada por engano")
    assert [a.id for a in records.list_attachments(w.store, dpc, "item", item)] == [new]
    assert w.store.scalar("SELECT count(*) FROM attachments") == 4          # nothing updated, nothing deleted
    with pytest.raises(InputError):
        records.withdraw(w.store, dpc, new, "x")                              # a reason is required
    with pytest.raises(NotFound):
        records.withdraw(w.store, w.principal("explorer_b"), new, "não é meu, mas tento")


# -- bulk ZIP ------------------------------------------------------------------------------------
def test_a_zip_of_photos_attaches_them_to_the_contracts_items(small_world):
    w = small_world
    archive = F.zip_of([("fotos/A1-001.jpg", F.jpeg()), ("fotos/A1-001_2.jpg", F.jpeg(colour=(5, 5, 5))),
                        ("a1-002.JPG", F.jpeg(colour=(7, 7, 7))), ("A1-003 (2).png", F.png_with_metadata()),
                        ("__MACOSX/._A1-001.jpg", b"junk"), (".DS_Store", b"junk")])
    res = bulk.attach_photo_zip(w.store, w.principal("explorer_a"), "A-1", archive, "fotos.zip")
    assert (res.attached, res.items, res.new_principals) == (4, 3, 3)
    assert set(res.skipped) == {"__MACOSX/._A1-001.jpg", ".DS_Store"}
    photos = records.list_attachments(w.store, w.principal("commission"), "item", w.ids["A1-001"])
    assert [(a.name, a.principal) for a in photos] == [("A1-001.jpg", True), ("A1-001_2.jpg", False)]
    for a in photos:
        _no_metadata(records.open_attachment(w.store, w.principal("dpc"), a.id).data)


@pytest.mark.parametrize("entries, words", [
    ([("A1-001.jpg", F.jpeg()), ("A9-999.jpg", F.jpeg()), ("B1-001.jpg", F.jpeg())],
     ("A9-999.jpg: nenhum item do contrato A-1", "B1-001.jpg: nenhum item do contrato A-1")),   # B1: other contract
    ([("A1-001.jpg", F.jpeg()), ("../A1-002.jpg", F.jpeg())], ("caminho inválido",)),
    ([("A1-001.jpg", F.jpeg()), ("/etc/A1-002.jpg", F.jpeg())], ("caminho inválido",)),
    ([("A1-001.jpg", F.jpeg()), ("A1-002.jpg", F.exe())], ("A1-002.jpg", "programa executável")),
    ([("A1-001.jpg", F.jpeg()), ("A1-002.png", F.png_header_only(20_000, 20_000))], ("megapixels",)),
])
def test_a_bad_zip_attaches_nothing_and_says_why(small_world, entries, words):
    w = small_world
    audit = w.store.scalar("SELECT count(*) FROM audit_log")
    with pytest.raises(InputError) as exc:
        bulk.attach_photo_zip(w.store, w.principal("explorer_a"), "A-1", F.zip_of(entries), "fotos.zip")
    for word in words:
        assert word in problems(exc)
    assert w.store.scalar("SELECT count(*) FROM attachments") == 0
    assert w.store.scalar("SELECT count(*) FROM audit_log") == audit
    root = files_root(w.path)
    assert not root.exists() or not [p for p in root.rglob("*") if p.is_file()]


def test_zip_bombs_and_other_companies_contracts_are_refused(small_world):
    w = small_world
    with pytest.raises(InputError, match="suspeito"):
        bulk.attach_photo_zip(w.store, w.principal("explorer_a"), "A-1", F.zip_bomb_entry(), "bomba.zip")
    with pytest.raises(InputError, match="não é um arquivo ZIP"):
        bulk.attach_photo_zip(w.store, w.principal("explorer_a"), "A-1", F.jpeg(), "fotos.zip")
    with pytest.raises(NotFound):
        bulk.attach_photo_zip(w.store, w.principal("explorer_b"), "A-1", F.zip_of([("A1-001.jpg", F.jpeg())]), "z.zip")
    with pytest.raises(AccessDenied):
        bulk.attach_photo_zip(w.store, w.principal("commission"), "A-1", F.zip_of([("A1-001.jpg", F.jpeg())]), "z.zip")


def test_file_names_match_item_codes_with_slashes(small_world):
    codes = {bulk.code_key(c): c for c in ("DPC-EX-2015/01-00001", "A1-001")}
    matched, unmatched = bulk.match_codes(["DPC-EX-2015-01-00001.jpg", "dpc-ex-2015-01-00001_3.jpg",
                                           "A1-001 (2).jpg", "A1-0011.jpg"], codes)
    assert matched == ["DPC-EX-2015/01-00001", "DPC-EX-2015/01-00001", "A1-001", None]
    assert unmatched == ["A1-0011.jpg"]


def test_the_files_are_content_addressed_and_checked_on_read(small_world):
    w = small_world
    dpc = w.principal("dpc")
    data = F.pdf()
    a, b = records.attach(w.store, dpc, "contract", w.ids["A-1"], "edital",
                          [records.Upload("edital.pdf", data), records.Upload("copia.pdf", data)])
    sha = hashlib.sha256(data).hexdigest()
    path = files_root(w.path) / sha[:2] / sha[2:4] / sha
    assert path.read_bytes() == data                                  # one file for the same bytes
    path.write_bytes(data.replace(b"Catalog", b"Catalof"))
    with pytest.raises(StoreError, match="alterado no disco"):
        records.open_attachment(w.store, dpc, a)
    assert BlobStore(files_root(w.path)).check(sha) == "altered"


# -- photo sheets (the minutes' and statements' appendix) -----------------------------------------
def _images_in(pdf: bytes) -> int:
    """The photos of a photo sheet: every image but each page's verification QR (issue 27)."""
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(pdf)).pages
    assert all("Código de verificação" in page.extract_text() and len(page.images) >= 1 for page in pages)
    return sum(len(page.images) - 1 for page in pages)


def test_the_minutes_get_a_photo_appendix_within_a_size_budget(small_world):
    from tests.support.commission import run_round
    from valuation.attachments.photo_sheet import round_photo_sheet
    from valuation.core.errors import ConflictError

    w = small_world
    exp = w.principal("explorer_a")
    for k, code in enumerate(("A1-001", "A1-002", "A1-004")):
        records.attach(w.store, exp, "item", w.ids[code], "photo",
                       [records.Upload(f"{code}.jpg", F.jpeg((640, 480), colour=(40 * k, 90, 120)))])
    panel, rid = run_round(w, until="open")
    with pytest.raises(ConflictError):
        round_photo_sheet(w.store, panel["navy1"], rid)                 # no minutes while the round is open
    cm_close(w, panel, rid)
    pdf = round_photo_sheet(w.store, panel["navy1"], rid)
    assert _images_in(pdf) == 3                                      # the three items with a photo
    thumbs = sorted(BlobStore(files_root(w.path)).path(r["thumb_sha256"]).stat().st_size
                    for r in w.store.fetch("SELECT thumb_sha256 FROM attachments"))
    small = round_photo_sheet(w.store, panel["navy1"], rid, budget=thumbs[0] + thumbs[1] - 1)
    assert _images_in(small) == 1                                    # the budget holds one thumbnail, not two
    with pytest.raises(AccessDenied):
        round_photo_sheet(w.store, w.principal("explorer_a"), rid)
    row = w.store.fetch_one("SELECT actor, entity, after_json FROM audit_log WHERE action = 'attachment_photo_sheet' "
                            "ORDER BY id DESC LIMIT 1")
    assert row["actor"] == "com.navy" and row["entity"] == "assessment_round"


def cm_close(w, panel, rid):
    from valuation.commission.rounds import close_round

    close_round(w.store, panel["pres"], rid)


def test_the_statement_appendix_shows_the_adjudicated_items_to_whoever_reads_the_statement(small_world):
    from tests.support.partition import issued_a1, prepare
    from valuation.attachments.photo_sheet import statement_photo_sheet

    w = small_world
    prepare(w)
    doc = issued_a1(w)
    adjudicated = w.store.fetch("SELECT i.item_code FROM statement_items si JOIN items i ON i.id = si.item_id "
                                "WHERE si.statement_id = ?", [doc.id])
    assert adjudicated
    for k, r in enumerate(adjudicated):
        records.attach(w.store, w.principal("dpc"), "item", w.ids[r["item_code"]], "photo",
                       [records.Upload("f.jpg", F.jpeg((400, 300), colour=(30 * k, 60, 90)))])
    assert _images_in(statement_photo_sheet(w.store, w.principal("explorer_a"), doc.id)) == len(adjudicated)
    with pytest.raises(NotFound):
        statement_photo_sheet(w.store, w.principal("explorer_b"), doc.id)
