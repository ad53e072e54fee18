"""Issue 24, item 8 — the work of one upload is bounded, and done off the page script.

Reproduction (failed before the fix): a ZIP of 100 single-colour 50-megapixel WebP photos (8.9 MB) took
226 s of CPU at 1.4 GB — every photo was within the per-file bound, and the 50 MB upload limit let ~560 of
them through (~20 minutes of a core). Now every image of an upload is sniffed and measured on its header
first, and the upload is refused before any pixel is decoded when its images add up to more than
`budget.MAX_UPLOAD_PIXELS`, or, with what the same user decoded in the last hour, more than
`budget.MAX_HOURLY_PIXELS`; the page hands the work to a bounded worker (`attachments.worker`: one job
running, three waiting, one per user) and draws its progress.

The issue's ZIP is built for real (one 49-megapixel WebP, 130 KB, repeated 100 times); the tests that
decode use small images and lower bounds (monkeypatch), never the product's own.
"""
from __future__ import annotations

import io
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

pytest.register_assert_rewrite("tests.support.fuzz_report")
from tests.support.attachments import jpeg, png_header_only  # noqa: E402
from tests.support.fuzz_report import FIGURES, UPLOADS  # noqa: E402
from valuation.attachments import budget, bulk, images, records, worker  # noqa: E402
from valuation.core.errors import ConflictError, InputError  # noqa: E402

pytest_plugins = ["tests.support.fuzz_report"]
CODES = ["A1-001", "A1-002", "A1-003", "A1-004", "A1-005", "A1-006"]


@pytest.fixture(autouse=True)
def _fresh_ledger() -> Any:
    budget.LEDGER.clear()
    yield
    budget.LEDGER.clear()


class _Decodes:
    """Counts the images decoded (and how many at once) through images.clean_image."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, pause: float = 0.0) -> None:
        self.n = self.running = self.peak = 0
        self._lock = threading.Lock()
        real = images.clean_image

        def spy(*a: Any, **k: Any) -> Any:
            with self._lock:
                self.n += 1
                self.running += 1
                self.peak = max(self.peak, self.running)
            try:
                time.sleep(pause)
                return real(*a, **k)
            finally:
                with self._lock:
                    self.running -= 1
        monkeypatch.setattr(records, "clean_image", spy)


def _zip(entries: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return out.getvalue()


@pytest.fixture(scope="module")
def issue_zip() -> bytes:
    """The issue's ZIP: 100 single-colour WebP photos of 7 000 × 7 000 pixels (49 MP each)."""
    buf = io.BytesIO()
    Image.new("RGB", (7000, 7000), (40, 90, 150)).save(buf, "WEBP", quality=80, method=0)
    photo = buf.getvalue()
    return _zip([(f"{CODES[k % 6]}_{k + 1}.webp", photo) for k in range(100)])


def test_the_issues_zip_is_refused_before_any_photo_is_decoded(small_world: Any, issue_zip: bytes,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    s, explorer = small_world.store, small_world.principal("explorer_a")
    decodes = _Decodes(monkeypatch)
    started = time.process_time()
    with pytest.raises(InputError, match="por envio") as refused:
        bulk.attach_photo_zip(s, explorer, "A-1", issue_zip, "fotos.zip")
    cpu = time.process_time() - started
    FIGURES.record("photo ZIP of 100 × 49 MP WebP (the issue's): refused before decoding, CPU s, photos decoded",
                   f"{cpu:.2f}, {decodes.n} (before: 226 s, 100)")
    UPLOADS.count("upload_budget:issue_zip", outcome="refused")
    assert decodes.n == 0 and "4.900 megapixels" in str(refused.value)
    assert s.scalar("SELECT count(*) FROM attachments") == 0


def test_a_zip_of_declared_giants_is_refused_on_the_headers(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Headers that declare 49 MP each (no pixel data at all): refused on the sum, nothing decoded."""
    s, explorer = small_world.store, small_world.principal("explorer_a")
    decodes = _Decodes(monkeypatch)
    giants = [(f"{CODES[k % 6]}_{k + 1}.png", png_header_only(7000, 7000)) for k in range(25)]
    with pytest.raises(InputError, match="1.225 megapixels"):
        bulk.attach_photo_zip(s, explorer, "A-1", _zip(giants), "fotos.zip")
    assert decodes.n == 0
    UPLOADS.count("upload_budget:declared_giants", outcome="refused")


def test_the_upload_form_has_the_same_bound(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    s, explorer = small_world.store, small_world.principal("explorer_a")
    monkeypatch.setattr(budget, "MAX_UPLOAD_PIXELS", 10_000)
    decodes = _Decodes(monkeypatch)
    uploads = [records.Upload(f"foto{k}.jpg", jpeg((80, 60), gps=False)) for k in range(3)]     # 14 400 pixels
    with pytest.raises(InputError, match="por envio"):
        records.attach(s, explorer, "item", small_world.ids["A1-001"], "photo", uploads)
    assert decodes.n == 0
    assert len(records.attach(s, explorer, "item", small_world.ids["A1-001"], "photo", uploads[:2])) == 2
    UPLOADS.count("upload_budget:form", outcome="refused")
    UPLOADS.count("upload_budget:form", outcome="accepted")


def test_an_explorer_has_a_budget_per_hour(small_world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    s, explorer, other = small_world.store, small_world.principal("explorer_a"), small_world.principal("explorer_b")
    now = [1000.0]
    monkeypatch.setattr(budget.LEDGER, "clock", lambda: now[0])
    monkeypatch.setattr(budget, "MAX_HOURLY_PIXELS", 3 * 4_800)
    photo = jpeg((80, 60), gps=False)                                                     # 4 800 pixels
    for k in range(3):
        records.attach(s, explorer, "item", small_world.ids["A1-001"], "photo", [records.Upload(f"f{k}.jpg", photo)])
        now[0] += 600
    decodes = _Decodes(monkeypatch)
    with pytest.raises(InputError, match="nesta hora"):
        records.attach(s, explorer, "item", small_world.ids["A1-001"], "photo", [records.Upload("f4.jpg", photo)])
    assert decodes.n == 0
    records.attach(s, other, "item", small_world.ids["B1-001"], "photo", [records.Upload("b.jpg", photo)])   # not hers
    now[0] = 1000.0 + 3600 + 1                                                            # the first has aged out
    records.attach(s, explorer, "item", small_world.ids["A1-001"], "photo", [records.Upload("f5.jpg", photo)])
    UPLOADS.count("upload_budget:hourly", outcome="refused")


def test_a_file_made_to_fail_after_decoding_still_costs_its_sender(small_world: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Valid headers and a corrupt body: the photos before it are decoded, then the upload refused — the
    decoding was spent all the same, so repeating it runs into the hour's budget."""
    s, explorer = small_world.store, small_world.principal("explorer_a")
    monkeypatch.setattr(budget, "MAX_HOURLY_PIXELS", 2 * 4_800 + 7000 * 7000)
    entries = [("A1-001.jpg", jpeg((80, 60), gps=False)), ("A1-002.png", png_header_only(7000, 7000))]
    for _ in range(1):
        with pytest.raises(InputError, match="corrompida"):
            bulk.attach_photo_zip(s, explorer, "A-1", _zip(entries), "fotos.zip")
    with pytest.raises(InputError, match="nesta hora"):
        bulk.attach_photo_zip(s, explorer, "A-1", _zip(entries), "fotos.zip")
    UPLOADS.count("upload_budget:fail_after_decoding", outcome="refused")


def test_the_worker_runs_one_job_at_a_time_and_bounds_its_queue(small_world: Any,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    s = small_world.store
    decodes = _Decodes(monkeypatch, pause=0.2)
    pool = worker.Worker(running=1, waiting=2)
    users = ["explorer_a", "explorer_b", "dpc", "commission"]
    jobs, refused = [], []
    for k, key in enumerate(users):
        who = small_world.principal(key)
        try:
            jobs.append(pool.submit(who.username, "Fotos", records.attach, s, small_world.principal("dpc"), "item",
                                    small_world.ids[CODES[k]], "photo",
                                    [records.Upload(f"p{k}_{n}.jpg", jpeg((40, 30), gps=False)) for n in range(2)]))
        except ConflictError as exc:
            refused.append(str(exc))
    with pytest.raises(ConflictError, match="já tem um envio"):
        pool.submit(small_world.username("explorer_a"), "Fotos", lambda progress: None)
    seen: list[float] = []
    while not all(j.done() for j in jobs):
        seen.append(jobs[0].progress()[0])
        time.sleep(0.05)
    assert [len(j.result()) for j in jobs] == [2, 2, 2] and len(refused) == 1 and "alguns minutos" in refused[0]
    assert decodes.peak == 1                                           # one photo decoded at a time, process-wide
    assert jobs[0].progress() == (1.0, "2 arquivo(s) processado(s)") and 0 < max(seen[:-1] or [0.5]) <= 1
    FIGURES.record("upload worker: photos decoded at once / jobs refused when full",
                   f"{decodes.peak} / {len(refused)} of {len(users)}")
    UPLOADS.count("upload_budget:worker", outcome="accepted")


def test_the_page_processes_the_zip_in_the_worker(small_world: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.ui import page_as

    small_world.store.close()
    submitted: list[str] = []
    real = worker.WORKER.submit
    monkeypatch.setattr(worker.WORKER, "submit", lambda owner, label, fn, *a, **k: submitted.append(label)
                        or real(owner, label, fn, *a, **k))
    data = _zip([("A1-001.jpg", jpeg((60, 40), gps=False)), ("A1-002.jpg", jpeg((60, 40), gps=False))])
    at = page_as(small_world.path, small_world.principal("explorer_a"), "documents")
    from tests.support.ui import open_tab

    open_tab(at, "documents", "Fotos em lote")
    at.file_uploader(key="bulk_zip_file").set_value(("fotos.zip", data, "application/zip"))
    next(b for b in at.button if "Anexar fotos" in b.label).click().run()
    assert not at.exception, at.exception
    assert submitted == ["Fotos do ZIP"], ([b.label for b in at.button], [w.value for w in at.warning],
                                           [e.value for e in at.error], [s.value for s in at.success])
    assert any("2 foto(s) anexada(s)" in s.value for s in at.success)


def test_a_decoding_budget_path_exists_for_every_upload_entry_point() -> None:
    """Every store function that decodes images goes through records.finish_all (the budget's door)."""
    src = Path(records.__file__).parent
    callers = [p.name for p in src.glob("*.py") if "clean_image(" in p.read_text(encoding="utf-8")]
    assert sorted(callers) == ["images.py", "records.py"]
