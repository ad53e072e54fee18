"""Archaeological sites in the registry (Constituição Federal art. 20 X; Lei 3.924/1961 arts. 1º and 27).

A wreck site registered as an archaeological site is the União's whatever the five years of Lei 7.542
art. 6 (the pure rule: `valuation.core.archaeology`); the registry records the registration — the
heritage authority (IPHAN keeps the register, Lei 3.924 art. 27), its number and the day — and the
domain status (`valuation.registry.domain`) and the deadline engine's five years read it.

The registration is not confidential (no position): every reader of the wreck sees it; only DPC
records it, once per wreck (validated, audited).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from valuation.core.archaeology import SiteRegistration
from valuation.core.errors import ConflictError
from valuation.core.forms import Form, excerpt
from valuation.db.access import Principal, require

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

SITE_FIELDS: tuple[str, ...] = ("wreck_code", "authority", "number", "registered_on", "note")
LABELS: dict[str, str] = {"wreck_code": "Naufrágio", "authority": "Órgão que registrou (p. ex. IPHAN)",
                          "number": "Número do registro", "registered_on": "Data do registro",
                          "note": "Observação"}


def record_site(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """Record that a wreck site is registered as an archaeological site: wreck_code, authority, number,
    registered_on (not in the future, not before the casualty's year), optional note. One per wreck.
    Returns the wreck's id. dpc only; InputError names every bad field, nothing written; audited."""
    require(user, "manage_archaeological_sites")
    f = Form(data, allowed=SITE_FIELDS)
    code = f.text("wreck_code", LABELS["wreck_code"], max_len=40)
    day = f.date("registered_on", LABELS["registered_on"])
    rec: dict[str, Any] = {"authority": f.text("authority", LABELS["authority"], max_len=200),
                           "number": f.text("number", LABELS["number"], max_len=60), "registered_on": day,
                           "note": f.text("note", LABELS["note"], required=False, max_len=1000)}
    wreck = store.fetch_one("SELECT id, code, casualty_year FROM wrecks WHERE code = ?", [code]) if code else None
    if code and wreck is None:
        f.fail("wreck_code", f"{LABELS['wreck_code']}: não encontrado ({excerpt(code)}).")
    if day is not None and day > store.today():
        f.fail("registered_on", f"{LABELS['registered_on']}: não pode estar no futuro.")
    elif day is not None and wreck is not None and day.year < wreck["casualty_year"]:
        f.fail("registered_on", f"{LABELS['registered_on']}: anterior ao sinistro.")
    f.done()
    assert wreck is not None
    wreck_id = int(wreck["id"])

    def write(tx: Tx) -> int:
        if tx.scalar("SELECT count(*) FROM archaeological_sites WHERE wreck_id = ?", [wreck_id]):
            raise ConflictError(f"O naufrágio {wreck['code']} já tem registro como sítio arqueológico.")
        tx.execute("INSERT INTO archaeological_sites (wreck_id, authority, number, registered_on, note, recorded_by, "
                   "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [wreck_id, *rec.values(), user.username, store.now()])
        tx.audit("record_archaeological_site", "archaeological_site", wreck_id, None,
                 {"wreck_code": wreck["code"], **rec})
        return wreck_id

    return store.write(user.username, write)


def site_of(store: Store, user: Principal, wreck_id: int) -> dict[str, Any] | None:
    """The wreck's registration as an archaeological site (authority, number, registered_on, note, text), or
    None. Every reader of wrecks."""
    require(user, "read_wrecks")
    row = store.fetch_one("SELECT authority, number, registered_on, note FROM archaeological_sites "
                          "WHERE wreck_id = ?", [wreck_id]) \
        if isinstance(wreck_id, int) and not isinstance(wreck_id, bool) else None
    if row is None:
        return None
    row["text"] = SiteRegistration(row["authority"], row["number"], row["registered_on"]).text()
    return row


def registrations(db: Store | Tx) -> dict[int, SiteRegistration]:
    """Every registration by wreck id (for the domain status; the caller has checked access)."""
    return {int(r["wreck_id"]): SiteRegistration(r["authority"], r["number"], r["registered_on"])
            for r in db.fetch("SELECT wreck_id, authority, number, registered_on FROM archaeological_sites")}


def site_caption(site: Mapping[str, Any]) -> str:
    """What a person reads under the registration (pt-BR, with its basis)."""
    return (f"Sítio arqueológico: {site['text']}. Bem da União (Constituição Federal art. 20 X; Lei 3.924/1961), "
            "qualquer que seja o prazo de 5 anos do art. 6 da Lei 7.542/1986.")
