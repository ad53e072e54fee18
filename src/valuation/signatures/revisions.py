"""What the incremental updates of a signed file may change in the registered document (issue 27 §2).

pyHanko's difference analysis (`StandardDiffPolicy`) vets the revisions that come *after* a signed
revision, and `verify` runs it for every signature. It cannot vet the update that *introduces* the first
signature: its form rule compares the /AcroForm of the two revisions, and the registered document (an
fpdf2 report) has none. That one update is vetted here, on pyHanko's revision history
(`reader.xrefs`, `reader.get_historical_resolver`), with a short list of what a signer may touch:

- the catalog: only /AcroForm (the new signature field), /Version, /Extensions, /Metadata may be
  added or changed; /Pages, /OpenAction, /Names… must stay as they were;
- the document information dictionary and the old XMP metadata stream (never drawn);
- a page: only its /Annots, and only by appending signature widgets (/FT /Sig, /Subtype /Widget);
  its /Contents, /Resources, /MediaBox… stay as they were;
- nothing may be freed, and the trailer keeps the same catalog.

Every other object of the registered document that the update redefines makes it a content change.
New objects are free: they are reachable only through the keys above (the field, its widget and its
appearance). What a visible signature's appearance draws on the page is not judged here (SECURITY.md).
"""
from __future__ import annotations

from typing import Any

CATALOG_KEYS = frozenset({"/AcroForm", "/Version", "/Extensions", "/Metadata"})
PAGE_KEYS = frozenset({"/Annots"})


def _changed_keys(old: Any, new: Any) -> set[str]:
    keys = set(old.keys()) | set(new.keys())
    return {k for k in keys if k not in old or k not in new or old.raw_get(k) != new.raw_get(k)}


def _is_signature_widget(obj: Any) -> bool:
    try:
        widget = obj.get_object()
        field = widget.get("/Parent", widget).get_object() if "/FT" not in widget else widget
        return widget.get("/Subtype") == "/Widget" and field.get("/FT") == "/Sig"
    except Exception:  # noqa: BLE001 - anything unreadable is not a signature widget
        return False


def _is_array(obj: Any) -> bool:
    from pyhanko.pdf_utils.generic import ArrayObject

    return isinstance(obj, ArrayObject)


def _annots_only_grow(old_page: Any, new_page: Any) -> bool:
    try:
        old = list(old_page.raw_get("/Annots").get_object()) if "/Annots" in old_page else []
        new = list(new_page.raw_get("/Annots").get_object()) if "/Annots" in new_page else []
    except Exception:  # noqa: BLE001
        return False
    return new[:len(old)] == old and all(_is_signature_widget(a) for a in new[len(old):])


def first_update_problem(reader: Any, base: int) -> str | None:
    """Why revision `base + 1` of `reader` changes more than a signer may in revision `base`; None if not."""
    xrefs = reader.xrefs
    rev = base + 1
    if xrefs.refs_freed_in_revision(rev):
        return "objects freed"
    old = reader.get_historical_resolver(base)
    new = reader.get_historical_resolver(rev)
    old_root = old.root
    root_ref = old.trailer_view.raw_get("/Root").reference
    if new.trailer_view.raw_get("/Root").reference != root_ref:
        return "another catalog"
    info = old.trailer_view.raw_get("/Info") if "/Info" in old.trailer_view else None
    metadata = old_root.raw_get("/Metadata") if "/Metadata" in old_root else None
    free_refs = {getattr(info, "reference", None), getattr(metadata, "reference", None)} - {None}
    for ref in xrefs.explicit_refs_in_revision(rev):
        if xrefs.get_historical_ref(ref, base) is None or ref in free_refs:
            continue                                   # a new object, or metadata
        before, after = old(ref), new(ref)
        if ref == root_ref:
            if _changed_keys(before, after) - CATALOG_KEYS:
                return "catalog changed"
            continue
        if getattr(before, "get", lambda *_: None)("/Type") == "/Page":
            if _changed_keys(before, after) - PAGE_KEYS or not _annots_only_grow(before, after):
                return f"page {ref.idnum} changed"
            continue
        if _is_array(before) and _is_array(after) and list(after)[:len(before)] == list(before) \
                and all(_is_signature_widget(a) for a in list(after)[len(before):]):
            continue                                   # an indirect /Annots array, grown by widgets
        if before != after:
            return f"object {ref.idnum} redefined"
    return None
