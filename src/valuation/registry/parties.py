"""A wreck's responsible parties in the registry: cessions of the owner's rights (Lei 7.542 art. 8), the
cargo and its responsible (arts. 13 §1 and 14), and the requests each party files.

The rules are `valuation.core.responsible` (who answers on a day, whose request counts, who may ask for the
cargo's removal); this module records the facts and reads them back:

- `record_cession` / `record_cession_communicated`: a cession of the vessel's or the cargo's rights, and the
  day it was communicated to the Naval Authority (until then void against it, art. 8 §2);
- `record_cargo`: the cargo, its responsible and its declaration of loss (art. 3 I);
- `record_licence_request`: a request filed by a named party for the vessel or the cargo (arts. 4, 14 I–II);
- `responsible_parties`: the parties of a wreck on a day, each with its role and the article it answers
  under; `facts` / `responsible_name`: the same facts for the other readers of the registry (domain status,
  removal orders' notices, owner's balances).

Every function is DPC's (the owner is a person's data); every write is validated and audited.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import nup
from valuation.core import responsible as rp
from valuation.core.errors import ConflictError, NotFound
from valuation.core.forms import Form, excerpt
from valuation.core.money import format_date_br as fmt
from valuation.core.responsible import WreckParties
from valuation.db.access import Principal, office_match, require
from valuation.process import numbers

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

LABELS: dict[str, str] = {
    "wreck_code": "Naufrágio", "part": "Direitos sobre", "cedent_id": "Cedente", "cessionary_id": "Cessionário",
    "ceded_on": "Data da cessão", "communicated_on": "Comunicada à Autoridade Naval em", "act": "Instrumento da cessão",
    "day": "Data da comunicação", "description": "Carga", "owner_id": "Responsável pela carga",
    "declared_lost": "Declaração de perda da carga (art. 3 I)", "requester_id": "Quem pede",
    "requested_on": "Data do pedido", "note": "Observação",
}
CESSION_FIELDS = ("wreck_code", "part", "cedent_id", "cessionary_id", "ceded_on", "communicated_on", "act")
CARGO_FIELDS = ("wreck_code", "description", "owner_id", "declared_lost")
REQUEST_FIELDS = ("wreck_code", "part", "requester_id", "requested_on", "note")


def facts(db: Store | Tx, wreck_ids: list[int] | None = None) -> dict[int, WreckParties]:
    """Every wreck's parties (or those of `wreck_ids`), by wreck id; the caller has checked access."""
    where, params = ("WHERE id IN (SELECT UNNEST(?))", [wreck_ids]) if wreck_ids is not None else ("", [])
    out = {int(r["id"]): WreckParties(r["owner_id"]) for r in db.fetch(f"SELECT id, owner_id FROM wrecks {where}",
                                                                        params)}
    for r in db.fetch("SELECT * FROM wreck_cargoes"):
        if r["wreck_id"] in out:
            out[r["wreck_id"]].cargo = r
    for r in db.fetch("SELECT * FROM cessions ORDER BY id"):
        if r["wreck_id"] in out:
            out[r["wreck_id"]].cessions.append(rp.Cession(r["part"], r["cedent_id"], r["cessionary_id"], r["ceded_on"],
                                                          r["communicated_on"]))
    for r in db.fetch("SELECT * FROM licence_requests ORDER BY requested_on, id"):
        if r["wreck_id"] in out:
            out[r["wreck_id"]].requests.append(rp.Request(r["part"], r["requester_id"], r["requested_on"]))
    return out


def responsible_name(db: Store | Tx, wreck_id: int, day: date, part: str = rp.VESSEL) -> dict[str, Any] | None:
    """The owners row of the vessel's (or cargo's) responsible the Authority deals with on `day` (art. 8 §2:
    the cessionário of a communicated cession), or None when unknown."""
    parties = facts(db, [wreck_id]).get(wreck_id)
    owner = parties.responsible(part, day) if parties is not None else None
    return db.fetch_one("SELECT * FROM owners WHERE id = ?", [owner]) if owner is not None else None


def _wreck(store: Store, user: Principal, f: Form) -> dict[str, Any] | None:
    code = f.text("wreck_code", LABELS["wreck_code"], max_len=40)
    office, params = office_match(user, "office_code")     # an office officer: its office's wrecks
    row = store.fetch_one(f"SELECT id, code, owner_id FROM wrecks WHERE code = ? AND {office}",
                          [code, *params]) if code else None
    if code and row is None:
        f.fail("wreck_code", f"{LABELS['wreck_code']}: não encontrado ({excerpt(code)}).")
    return row


def _owner(store: Store, f: Form, key: str, *, required: bool = True) -> int | None:
    owner = f.integer(key, LABELS[key], required=required, minimum=1)
    if owner is not None and not store.scalar("SELECT count(*) FROM owners WHERE id = ?", [owner]):
        f.fail(key, f"{LABELS[key]}: responsável desconhecido ({owner}).")
    return owner


def _past(store: Store, f: Form, key: str, day: date | None) -> None:
    if day is not None and day > store.today():
        f.fail(key, f"{LABELS[key]}: não pode estar no futuro.")


def record_cession(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """Record a cession of the rights over the vessel or the cargo (art. 8): the cedente must be the
    responsible for that part or the cessionário of an earlier cession of it; `communicated_on` optional
    (art. 8 §2). Returns the cession's id. dpc only; InputError names every bad field; audited."""
    require(user, "manage_cessions")
    f = Form(data, allowed=CESSION_FIELDS)
    wreck = _wreck(store, user, f)
    part = f.choice("part", LABELS["part"], rp.PARTS)
    rec: dict[str, Any] = {"part": part, "cedent_id": _owner(store, f, "cedent_id"),
                           "cessionary_id": _owner(store, f, "cessionary_id"),
                           "ceded_on": f.date("ceded_on", LABELS["ceded_on"]),
                           "communicated_on": f.date("communicated_on", LABELS["communicated_on"], required=False),
                           "act": f.text("act", LABELS["act"], max_len=200)}
    for key in ("ceded_on", "communicated_on"):
        _past(store, f, key, rec[key])
    if rec["ceded_on"] and rec["communicated_on"] and rec["communicated_on"] < rec["ceded_on"]:
        f.fail("communicated_on", f"{LABELS['communicated_on']}: anterior à cessão.")
    if rec["cedent_id"] is not None and rec["cedent_id"] == rec["cessionary_id"]:
        f.fail("cessionary_id", f"{LABELS['cessionary_id']}: o mesmo que o cedente.")
    if wreck is not None and part is not None and rec["cedent_id"] is not None:
        parties = facts(store, [int(wreck["id"])])[int(wreck["id"])]
        holders = {parties.original(part), *(c.cessionary for c in parties.cessions if c.part == part)}
        if part == rp.CARGO and parties.cargo is None:
            f.fail("part", f"{LABELS['part']}: o naufrágio não tem carga registrada (arts. 13 §1 e 14).")
        elif rec["cedent_id"] not in holders:
            f.fail("cedent_id", f"{LABELS['cedent_id']}: não é o responsável pela {rp.PART_LABELS[part]} nem "
                                "cessionário dela (art. 8).")
    f.done()
    assert wreck is not None

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO cessions (wreck_id, part, cedent_id, cessionary_id, ceded_on, communicated_on, act, "
            "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [wreck["id"], *rec.values(), user.username, store.now()]))
        tx.audit("record_cession", "cession", new_id, None, {"wreck_code": wreck["code"], **rec})
        return new_id

    return store.write(user.username, write)


def record_cession_communicated(store: Store, user: Principal, cession_id: int, data: Mapping[str, Any]) -> None:
    """The cession was communicated to the Naval Authority on `day` (art. 8 §2): from then on it binds it.
    dpc only; audited."""
    require(user, "manage_cessions")
    office, params = office_match(user, "w.office_code")      # an office officer: its office's wrecks alone
    row = store.fetch_one(f"SELECT s.* FROM cessions s JOIN wrecks w ON w.id = s.wreck_id WHERE s.id = ? AND {office}",
                          [cession_id, *params]) \
        if isinstance(cession_id, int) and not isinstance(cession_id, bool) else None
    if row is None:
        raise NotFound(f"Cessão {excerpt(cession_id)} não encontrada.", what="cession", key=cession_id)
    f = Form(data, allowed=("day",))
    day = f.date("day", LABELS["day"])
    _past(store, f, "day", day)
    if day is not None and day < row["ceded_on"]:
        f.fail("day", f"{LABELS['day']}: anterior à cessão ({fmt(row['ceded_on'])}).")
    f.done()

    def write(tx: Tx) -> None:
        if tx.scalar("SELECT communicated_on FROM cessions WHERE id = ?", [cession_id]) is not None:
            raise ConflictError(f"A cessão {cession_id} já foi comunicada à Autoridade Naval.")
        tx.execute("UPDATE cessions SET communicated_on = ? WHERE id = ?", [day, cession_id])
        tx.audit("record_cession_communicated", "cession", cession_id, {"communicated_on": None},
                 {"communicated_on": day})

    store.write(user.username, write)


def record_cargo(store: Store, user: Principal, data: Mapping[str, Any]) -> None:
    """Record the wreck's cargo and its responsible (arts. 13 §1 and 14), with the cargo responsible's
    declaration of loss (art. 3 I) when made. One per wreck. dpc only; audited."""
    require(user, "manage_cargo")
    f = Form(data, allowed=CARGO_FIELDS)
    wreck = _wreck(store, user, f)
    rec: dict[str, Any] = {"description": f.text("description", LABELS["description"], max_len=500),
                           "owner_id": _owner(store, f, "owner_id", required=False),
                           "declared_lost": f.date("declared_lost", LABELS["declared_lost"], required=False)}
    _past(store, f, "declared_lost", rec["declared_lost"])
    if rec["declared_lost"] is not None and rec["owner_id"] is None:
        f.fail("declared_lost", f"{LABELS['declared_lost']}: só o responsável pela carga a declara perdida.")
    f.done()
    assert wreck is not None

    def write(tx: Tx) -> None:
        if tx.scalar("SELECT count(*) FROM wreck_cargoes WHERE wreck_id = ?", [wreck["id"]]):
            raise ConflictError(f"O naufrágio {wreck['code']} já tem carga registrada.")
        tx.execute("INSERT INTO wreck_cargoes (wreck_id, description, owner_id, declared_lost, recorded_by, "
                   "recorded_at) VALUES (?, ?, ?, ?, ?, ?)", [wreck["id"], *rec.values(), user.username, store.now()])
        tx.audit("record_cargo", "wreck_cargo", wreck["id"], None, {"wreck_code": wreck["code"], **rec})

    store.write(user.username, write)


def record_licence_request(store: Store, user: Principal, data: Mapping[str, Any], *,
                           adopted: nup.Nup | None = None) -> int:
    """A request filed by a named party (requester_id) for the vessel or the cargo (arts. 4, 6; art. 14 I–II).
    For the cargo, only its responsible or — while the cargo's has shown no interest — the vessel's
    (art. 14). Whether it counts for the five years is read, not decided here (art. 8 §2: a request of the
    cessionário of an uncommunicated cession is recorded and shown as not counting). dpc only; audited."""
    require(user, "manage_cessions")
    f = Form(data, allowed=REQUEST_FIELDS)
    wreck = _wreck(store, user, f)
    part = f.choice("part", LABELS["part"], rp.PARTS)
    requester = _owner(store, f, "requester_id")
    day = f.date("requested_on", LABELS["requested_on"])
    note = f.text("note", LABELS["note"], required=False, max_len=1000)
    _past(store, f, "requested_on", day)
    if wreck is not None and part == rp.CARGO and requester is not None and day is not None:
        parties = facts(store, [int(wreck["id"])])[int(wreck["id"])]
        if parties.cargo is None:
            f.fail("part", f"{LABELS['part']}: o naufrágio não tem carga registrada (arts. 13 §1 e 14).")
        else:
            cargo_owner = parties.responsible(rp.CARGO, day)
            interest = any(r.part == rp.CARGO and r.requester == cargo_owner and r.day <= day
                           for r in parties.requests)
            problem = rp.cargo_request_problem(requester, parties.responsible(rp.VESSEL, day), cargo_owner, interest)
            if problem:
                f.fail("requester_id", f"{LABELS['requester_id']}: {problem}.")
    f.done()
    assert wreck is not None

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO licence_requests (wreck_id, part, requester_id, requested_on, note, recorded_by, recorded_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id", [wreck["id"], part, requester, day, note, user.username,
                                                          store.now()]))
        tx.audit("record_licence_request", "licence_request", new_id, None,
                 {"wreck_code": wreck["code"], "part": part, "requester_id": requester, "requested_on": day,
                  "note": note})
        office = str(tx.scalar("SELECT office_code FROM wrecks WHERE id = ?", [wreck["id"]]))
        if adopted is not None:     # the NUP the protocol system gave the case (issue 42 item 2)
            numbers.adopt(tx, "licence_request", new_id, office, day or store.today(), adopted)
        else:
            numbers.assign(tx, "licence_request", new_id, office, day or store.today())   # its NUP (Portaria 11/2019)
        return new_id

    return store.write(user.username, write)


def _names(store: Store, parties: WreckParties) -> dict[int, str]:
    ids = {parties.owner_id, (parties.cargo or {}).get("owner_id"), *(c.cedent for c in parties.cessions),
           *(c.cessionary for c in parties.cessions), *(r.requester for r in parties.requests)} - {None}
    return {int(r["id"]): r["name"] for r in store.fetch("SELECT id, name FROM owners WHERE id IN (SELECT UNNEST(?))",
                                                         [sorted(ids)])} if ids else {}


def _part_rows(parties: WreckParties, part: str, names: dict[int, str], as_of: date) -> list[dict[str, Any]]:
    original = parties.original(part)
    current = parties.responsible(part, as_of)
    liable = set(rp.liable_on(original, parties.cessions, part, as_of))
    label = rp.PART_LABELS[part]

    def row(owner: int | None, role: str, basis: str) -> dict[str, Any]:
        return {"part": label, "owner_id": owner, "name": names.get(owner, "desconhecido") if owner else "desconhecido",
                "role": role, "basis": basis, "responsible": owner is not None and owner == current}

    first = (f"responsável pela {label}" if original == current
             else f"cedente — responde solidariamente ({rp.JOINT_CESSION})")
    basis = "Lei 7.542/1986 arts. 3–9" if part == rp.VESSEL else "Lei 7.542/1986 arts. 13 §1 e 14"
    rows = [row(original, first, basis)]
    for c in sorted((c for c in parties.cessions if c.part == part), key=lambda c: c.ceded_on):
        if c.counts_on(as_of) and c.cessionary in liable:
            role = (f"cessionário desde {fmt(c.communicated_on)} — o responsável perante a Autoridade Naval"
                    if c.cessionary == current else f"cessionário e depois cedente — responde solidariamente "
                                                    f"({rp.JOINT_CESSION})")
            rows.append(row(c.cessionary, role + f" (cessão de {fmt(c.ceded_on)})", rp.JOINT_CESSION))
        elif (c.communicated_on is None or c.communicated_on > as_of) and c.ceded_on <= as_of:
            joint = (f"responde solidariamente desde a cessão ({rp.JOINT_CESSION}); " if c.cessionary in liable
                     else "")
            rows.append(row(c.cessionary, f"cessionário de {fmt(c.ceded_on)} — {joint}{rp.VOID_CESSION}",
                            "Lei 7.542/1986 art. 8 §§1–2"))
    if part == rp.CARGO:
        vessel = parties.responsible(rp.VESSEL, as_of)
        rows.append(row(vessel, "responsável pela embarcação — responde solidariamente pelos danos que a carga "
                                "possa provocar", rp.JOINT_CARGO))
        rows[-1]["responsible"] = False
    return rows


def responsible_parties(store: Store, user: Principal, wreck_id: int, as_of: date) -> dict[str, Any]:
    """A wreck's parties on `as_of`: `rows` (part, name, role, basis, responsible — the one the Authority
    deals with for that part), `cessions` (id, part, cedent, cessionary, ceded_on, communicated_on, act,
    state) and `requests` (nup, part, requester, requested_on, counts). dpc only (a person's data)."""
    require(user, "read_owners")
    ok = isinstance(wreck_id, int) and not isinstance(wreck_id, bool)
    parties = facts(store, [wreck_id]).get(wreck_id) if ok else None
    if parties is None:
        raise NotFound(f"Naufrágio {excerpt(wreck_id)} não encontrado.", what="wreck", key=wreck_id)
    names = _names(store, parties)
    rows = _part_rows(parties, rp.VESSEL, names, as_of)
    if parties.cargo is not None:
        rows += _part_rows(parties, rp.CARGO, names, as_of)
    cessions = [{**r, "cedent": names.get(r["cedent_id"], "?"), "cessionary": names.get(r["cessionary_id"], "?"),
                 "state": (f"comunicada em {fmt(r['communicated_on'])}" if r["communicated_on"] is not None
                           and r["communicated_on"] <= as_of else rp.VOID_CESSION)}
                for r in store.fetch("SELECT id, part, cedent_id, cessionary_id, ceded_on, communicated_on, act "
                                     "FROM cessions WHERE wreck_id = ? ORDER BY ceded_on, id", [wreck_id])]
    requests = []
    ids = [int(r["id"]) for r in store.fetch("SELECT id FROM licence_requests WHERE wreck_id = ? "
                                             "ORDER BY requested_on, id", [wreck_id])]   # the order of `facts`
    given = numbers.nups(store, "licence_request", ids)
    for request_id, r in zip(ids, parties.requests):
        counts = r.requester == parties.responsible(r.part, r.day)
        requests.append({"nup": given.get(request_id, "—"), "part": rp.PART_LABELS[r.part],
                         "requester": names.get(r.requester, "?"), "requested_on": r.day,
                         "counts": "conta (o responsável nesse dia)" if counts else
                         ("não conta: pedido de remoção da carga pelo responsável pela embarcação (art. 14 I)"
                          if r.part == rp.CARGO and r.requester == parties.responsible(rp.VESSEL, r.day)
                          else "não conta: não era o responsável perante a Autoridade Naval (art. 8 §2)")})
    return {"rows": rows, "cessions": cessions, "requests": requests, "cargo": parties.cargo}
