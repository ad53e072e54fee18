"""Removal orders: the Naval Authority orders the owner to remove or demolish (Lei 7.542 arts. 5, 9, 10).

- Art. 5: the Authority, at its discretion, may order the owner to remove or demolish things
  that are or may become a danger, an obstacle to navigation or a threat to third parties or the
  environment; sole paragraph: it fixes the start and end of the removal, and may change them.
- Art. 9: the order is notified personally (I: an owner whose whereabouts in the country are
  known) or by edital (II: unknown, abroad, evading notice; §1 a foreign owner always by
  edital); §2: the edital runs 15 days (`valuation.deadlines.rules.removal_edital`).
- Art. 10: when the owner does not act within the periods, the Authority may take the operations
  over on the owner's account (`record_takeover`); what the things fetch then goes first to the
  União's costs (art. 13 II) and the balance is held for the owner (`owner_balances`, art. 13 §2).
- Art. 6 sole paragraph II: while the order runs the five years of art. 6 are suspended. The
  order's running period is recorded automatically as a `wreck_suspensions` row of ground II
  pointing at the order, open (no end) until the order ends (`end_order`), so the registry and the
  deadline engine count it as every other suspension.

Every function is DPC's (the owner is a person's data); every write is validated and audited.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core import law
from valuation.core.errors import ConflictError, NotFound
from valuation.core.forms import Form, excerpt
from valuation.core.law import years_text
from valuation.core.money import format_date_br
from valuation.db.access import Principal, office_scope, require
from valuation.process import numbers
from valuation.registry.parties import responsible_name

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

ORDER_KINDS: tuple[str, ...] = ("remoção", "demolição")
NOTICE_LABELS: dict[str, str] = law.REMOVAL_NOTICE_LABELS   # art. 9 I and II (core: the deadline engine reads it)
NOTICES: tuple[str, ...] = tuple(NOTICE_LABELS)
END_KINDS: tuple[str, ...] = ("concluída", "revogada")
END_LABELS: dict[str, str] = {"concluída": "remoção concluída", "revogada": "determinação revogada"}
ORDER_FIELDS: tuple[str, ...] = ("wreck_code", "kind", "act", "ordered_on", "notice", "notified_on", "published_on",
                                 "starts_by", "ends_by", "reason")
LABELS: dict[str, str] = {
    "wreck_code": "Naufrágio", "kind": "Providência", "act": "Ato da determinação",
    "ordered_on": "Data da determinação",
    "notice": "Forma de intimação", "notified_on": "Data da intimação pessoal", "published_on": "Publicação do edital",
    "starts_by": "Início fixado", "ends_by": "Término fixado", "reason": "Motivo (art. 5)",
    "order_id": "Determinação", "day": "Data", "end_kind": "Como terminou",
    "outlet": "Veículo da publicação", "reference": "Edição e página",
}
OUTLET_LABELS: dict[str, str] = law.EDITAL_OUTLETS   # art. 9 §2
OUTLETS: tuple[str, ...] = tuple(OUTLET_LABELS)
SUSPENSION_REASON = ("Determinação de remoção {act} (art. 5); prazo de " + years_text(law.LAPSE_YEARS.value)
                     + " suspenso enquanto vigora (art. 6 parágrafo único II).")


def _wreck(store: Store, f: Form) -> dict[str, Any] | None:
    code = f.text("wreck_code", LABELS["wreck_code"], max_len=40)
    if code is None:
        return None
    row = store.fetch_one("SELECT w.id, w.code, w.owner_id, ow.whereabouts_known, ow.nationality FROM wrecks w "
                          "LEFT JOIN owners ow ON ow.id = w.owner_id WHERE w.code = ?", [code])
    if row is None:
        f.fail("wreck_code", f"{LABELS['wreck_code']}: não encontrado ({excerpt(code)}).")
    return row


def _check_notice(f: Form, wreck: Mapping[str, Any] | None, notice: str | None, ordered_on: date | None,
                  notified_on: date | None, published_on: date | None) -> None:
    """Art. 9: personal notice only to an owner whose whereabouts in the country are known (a
    foreign or unknown owner by edital, §1); the dates not before the order."""
    if wreck is not None and notice == "pessoal":
        foreign = (wreck["nationality"] or "").strip().lower() not in ("", "brasileira", "brasileiro", "brasil")
        if wreck["owner_id"] is None or not wreck["whereabouts_known"] or foreign:
            f.fail("notice", f"{LABELS['notice']}: responsável desconhecido, de paradeiro ignorado ou estrangeiro: "
                             "intimação por edital (Lei 7.542 art. 9 II e §1).")
    for key, day in (("notified_on", notified_on), ("published_on", published_on)):
        if day is not None and ordered_on is not None and day < ordered_on:
            f.fail(key, f"{LABELS[key]}: anterior à determinação.")
    if notice == "pessoal" and published_on is not None:
        f.fail("published_on", f"{LABELS['published_on']}: não se aplica à intimação pessoal.")
    if notice == "edital" and notified_on is not None:
        f.fail("notified_on", f"{LABELS['notified_on']}: não se aplica à intimação por edital.")


def _validate(store: Store, data: Mapping[str, Any]) -> dict[str, Any]:
    f = Form(data, allowed=ORDER_FIELDS)
    wreck = _wreck(store, f)
    rec: dict[str, Any] = {"kind": f.choice("kind", LABELS["kind"], ORDER_KINDS),
                           "act": f.text("act", LABELS["act"], max_len=200),
                           "ordered_on": f.date("ordered_on", LABELS["ordered_on"]),
                           "notice": f.choice("notice", LABELS["notice"], NOTICES),
                           "notified_on": f.date("notified_on", LABELS["notified_on"], required=False),
                           "published_on": f.date("published_on", LABELS["published_on"], required=False),
                           "starts_by": f.date("starts_by", LABELS["starts_by"]),
                           "ends_by": f.date("ends_by", LABELS["ends_by"]),
                           "reason": f.text("reason", LABELS["reason"], max_len=1000)}
    if wreck is not None and rec["ordered_on"] is not None:   # notice to the cessionário of a communicated
        # cession (Lei 7.542 art. 8 §2)
        holder = responsible_name(store, int(wreck["id"]), rec["ordered_on"])
        wreck = {**wreck, "owner_id": holder["id"] if holder else None,
                 "whereabouts_known": holder["whereabouts_known"] if holder else None,
                 "nationality": holder["nationality"] if holder else None}
    today = store.today()
    for key in ("ordered_on", "notified_on", "published_on"):
        if rec[key] is not None and rec[key] > today:
            f.fail(key, f"{LABELS[key]}: não pode estar no futuro.")
    if rec["ordered_on"] and rec["starts_by"] and rec["starts_by"] < rec["ordered_on"]:
        f.fail("starts_by", f"{LABELS['starts_by']}: anterior à determinação.")
    if rec["starts_by"] and rec["ends_by"] and rec["ends_by"] < rec["starts_by"]:
        f.fail("ends_by", f"{LABELS['ends_by']}: anterior ao início fixado.")
    _check_notice(f, wreck, rec["notice"], rec["ordered_on"], rec["notified_on"], rec["published_on"])
    f.done()
    assert wreck is not None
    return {"wreck_id": int(wreck["id"]), "wreck_code": wreck["code"], **rec}


def record_removal_order(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """Record a removal or demolition order (art. 5) with its notice (art. 9) and the dates it fixes;
    opens the suspension of the five years (art. 6 sole paragraph II) from the order's date. Returns
    the order's id. dpc only; InputError names every bad field, nothing written."""
    require(user, "manage_removal_orders")
    rec = _validate(store, data)

    def write(tx: Tx) -> int:
        cols = ("wreck_id", "kind", "act", "ordered_on", "notice", "notified_on", "published_on", "starts_by",
                "ends_by", "reason")
        new_id = int(tx.scalar(
            f"INSERT INTO removal_orders ({', '.join(cols)}, recorded_by, recorded_at) VALUES "
            f"({', '.join('?' for _ in cols)}, ?, ?) RETURNING id", [rec[c] for c in cols] + [user.username,
                                                                                         store.now()]))
        tx.execute("INSERT INTO wreck_suspensions (wreck_id, ground, starts_on, ends_on, reason, removal_order_id) "
                   "VALUES (?, 'II', ?, NULL, ?, ?)",
                   [rec["wreck_id"], rec["ordered_on"], SUSPENSION_REASON.format(act=rec["act"]), new_id])
        tx.audit("record_removal_order", "removal_order", new_id, None, rec)
        office = str(tx.scalar("SELECT office_code FROM wrecks WHERE id = ?", [rec["wreck_id"]]))
        numbers.assign(tx, "removal_order", new_id, office, rec["ordered_on"])   # its NUP (Portaria 11/2019)
        return new_id

    return store.write(user.username, write)


def _order(db: Store | Tx, order_id: object) -> dict[str, Any]:
    row = db.fetch_one("SELECT * FROM removal_orders WHERE id = ?", [order_id]) \
        if isinstance(order_id, int) and not isinstance(order_id, bool) else None
    if row is None:
        raise NotFound(f"Determinação de remoção {excerpt(order_id)} não encontrada.", what="removal_order",
                       key=order_id)
    return row


def _day(f: Form, key: str, order: Mapping[str, Any], today: date) -> date | None:
    day = f.date(key, LABELS[key])
    if day is not None and day > today:
        f.fail(key, f"{LABELS[key]}: não pode estar no futuro.")
    elif day is not None and day < order["ordered_on"]:
        f.fail(key, f"{LABELS[key]}: anterior à determinação ({format_date_br(order['ordered_on'])}).")
    return day


def _update(store: Store, user: Principal, order: Mapping[str, Any], changes: dict[str, Any], action: str,
            *, close_suspension: date | None = None) -> None:
    def write(tx: Tx) -> None:
        current = tx.fetch_one("SELECT ended_on FROM removal_orders WHERE id = ?", [order["id"]])
        if current is not None and current["ended_on"] is not None:
            raise ConflictError(f"A determinação {order['act']} já terminou em "
                                f"{format_date_br(current['ended_on'])}.")
        sets = ", ".join(f"{k} = ?" for k in changes)
        tx.execute(f"UPDATE removal_orders SET {sets} WHERE id = ?", [*changes.values(), order["id"]])
        if close_suspension is not None:
            tx.execute("UPDATE wreck_suspensions SET ends_on = ? WHERE removal_order_id = ?",
                       [close_suspension, order["id"]])
        tx.audit(action, "removal_order", order["id"], {k: order[k] for k in changes}, changes)

    store.write(user.username, write)


def change_removal_dates(store: Store, user: Principal, order_id: int, data: Mapping[str, Any]) -> None:
    """Change the start and end the order fixed (art. 5 sole paragraph: "que poderão ser alterados, a seu
    critério"): data starts_by, ends_by. dpc only; audited with the dates before."""
    require(user, "manage_removal_orders")
    order = _order(store, order_id)
    f = Form(data, allowed=("starts_by", "ends_by"))
    starts, ends = f.date("starts_by", LABELS["starts_by"]), f.date("ends_by", LABELS["ends_by"])
    if starts is not None and starts < order["ordered_on"]:
        f.fail("starts_by", f"{LABELS['starts_by']}: anterior à determinação.")
    if starts is not None and ends is not None and ends < starts:
        f.fail("ends_by", f"{LABELS['ends_by']}: anterior ao início fixado.")
    f.done()
    _update(store, user, order, {"starts_by": starts, "ends_by": ends}, "change_removal_dates")


def record_removal_start(store: Store, user: Principal, order_id: int, data: Mapping[str, Any]) -> None:
    """The owner started the removal (data: day). dpc only; audited."""
    require(user, "manage_removal_orders")
    order = _order(store, order_id)
    f = Form(data, allowed=("day",))
    day = _day(f, "day", order, store.today())
    f.done()
    _update(store, user, order, {"started_on": day}, "record_removal_start")


def record_takeover(store: Store, user: Principal, order_id: int, data: Mapping[str, Any]) -> None:
    """The Authority took the operations over on the owner's account (art. 10; data: day): allowed
    once the start or the end it fixed passed without the owner complying. dpc only; audited."""
    require(user, "manage_removal_orders")
    order = _order(store, order_id)
    f = Form(data, allowed=("day",))
    day = _day(f, "day", order, store.today())
    if day is not None and order["started_on"] is not None and day <= order["ends_by"]:
        f.fail("day", f"{LABELS['day']}: o responsável iniciou a remoção e o término fixado "
                      f"({format_date_br(order['ends_by'])}) ainda não passou (art. 10).")
    elif day is not None and order["started_on"] is None and day <= order["starts_by"]:
        f.fail("day", f"{LABELS['day']}: o início fixado ({format_date_br(order['starts_by'])}) ainda não passou "
                      "(art. 10: só quando o responsável não providencia no prazo).")
    f.done()
    _update(store, user, order, {"taken_over_on": day}, "record_removal_takeover")


def end_order(store: Store, user: Principal, order_id: int, data: Mapping[str, Any]) -> None:
    """The order ends (data: day, end_kind 'concluída' | 'revogada'): the suspension of the five years
    it recorded ends that day (art. 6 sole paragraph II). dpc only; audited."""
    require(user, "manage_removal_orders")
    order = _order(store, order_id)
    f = Form(data, allowed=("day", "end_kind"))
    day = _day(f, "day", order, store.today())
    kind = f.choice("end_kind", LABELS["end_kind"], END_KINDS)
    f.done()
    _update(store, user, order, {"ended_on": day, "end_kind": kind}, "end_removal_order", close_suspension=day)


def revoke_in(tx: Tx, order_id: int, day: date, cause: str) -> None:
    """Inside a write that decided it (an appeal granted, Lei 9.784/1999 art. 64): the order is revoked on `day`
    and the suspension of the five years it recorded ends then (art. 6 sole paragraph II); audited naming the
    `cause`. An order already ended keeps its end."""
    order = tx.fetch_one("SELECT id, ended_on, end_kind FROM removal_orders WHERE id = ?", [order_id])
    if order is None or order["ended_on"] is not None:
        return
    tx.execute("UPDATE removal_orders SET ended_on = ?, end_kind = 'revogada' WHERE id = ?", [day, order_id])
    tx.execute("UPDATE wreck_suspensions SET ends_on = ? WHERE removal_order_id = ?", [day, order_id])
    tx.audit("end_removal_order", "removal_order", order_id, {"ended_on": None, "end_kind": None},
             {"ended_on": day, "end_kind": "revogada", "cause": cause})


def list_removal_orders(store: Store, user: Principal, *, wreck_id: int | None = None) -> pd.DataFrame:
    """Every removal order (newest first) with its wreck: id, wreck_id, wreck_code, wreck_name, office_code,
    kind, act, ordered_on, notice, notified_on, published_on, starts_by, ends_by, started_on, taken_over_on,
    ended_on, end_kind, reason, state_pt, nup (its process number, '—' when it has none; dpc only)."""
    require(user, "read_removal_orders")
    where, params = office_scope(user, "w")          # an office officer: its office's wrecks alone
    if wreck_id is not None:
        where += " AND r.wreck_id = ?"
        params.append(wreck_id)
    df = store.fetch_df("SELECT r.*, w.code AS wreck_code, w.name AS wreck_name, w.office_code FROM removal_orders r "
                        f"JOIN wrecks w ON w.id = r.wreck_id WHERE {where} ORDER BY r.ordered_on DESC, r.id DESC",
                        params)
    df["state_pt"] = [order_state(r, store.today()) for r in df.to_dict("records")]
    given = numbers.nups(store, "removal_order", [int(i) for i in df["id"]])
    df["nup"] = [given.get(int(i), "—") for i in df["id"]]
    return df


def order_state(order: Mapping[str, Any], as_of: date) -> str:
    """How an order stands on `as_of`, in pt-BR."""
    def given(key: str) -> date | None:
        v = order.get(key)
        return v if isinstance(v, date) and v <= as_of else None

    if given("ended_on"):
        return f"{END_LABELS.get(order['end_kind'], 'encerrada')} em {format_date_br(order['ended_on'])}"
    if given("taken_over_on"):
        return f"assumida pela Autoridade Naval em {format_date_br(order['taken_over_on'])} ({law.REMOVAL_TAKEOVER})"
    if given("started_on"):
        return f"em execução pelo responsável desde {format_date_br(order['started_on'])}"
    return "aguardando o início pelo responsável"


def record_edital_publication(store: Store, user: Principal, order_id: int, data: Mapping[str, Any]) -> int:
    """One publication of an order's edital (art. 9 §2: once in each outlet; data: outlet, published_on,
    reference). The order's `published_on` becomes the last publication, from which the edital's 15 days
    run (`valuation.deadlines.edital`). dpc only; InputError names the field; audited."""
    require(user, "manage_removal_orders")
    order = _order(store, order_id)
    if order["notice"] != "edital":
        raise ConflictError(f"A determinação {order['act']} foi intimada pessoalmente (art. 9 I): não há edital.")
    f = Form(data, allowed=("outlet", "published_on", "reference"))
    outlet = f.choice("outlet", LABELS["outlet"], OUTLETS)
    day = _day(f, "published_on", order, store.today())
    reference = f.text("reference", LABELS["reference"], max_len=200)
    done = store.fetch_one("SELECT published_on FROM edital_publications WHERE removal_order_id = ? AND outlet = ?",
                           [order["id"], outlet])
    if done is not None:
        f.fail("outlet", f"{LABELS['outlet']}: já publicado em {format_date_br(done['published_on'])} (o edital é "
                         "publicado uma vez em cada veículo, Lei 7.542 art. 9 §2).")
    f.done()

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO edital_publications (removal_order_id, outlet, published_on, reference, recorded_by, "
            "recorded_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            [order["id"], outlet, day, reference, user.username, store.now()]))
        last = tx.scalar("SELECT max(published_on) FROM edital_publications WHERE removal_order_id = ?", [order["id"]])
        tx.execute("UPDATE removal_orders SET published_on = ? WHERE id = ?", [last, order["id"]])
        tx.audit("record_edital_publication", "removal_order", order["id"], {"published_on": order["published_on"]},
                 {"outlet": outlet, "published_on": day, "reference": reference, "last_publication": last})
        return new_id

    return store.write(user.username, write)


def list_edital_publications(store: Store, user: Principal, order_id: int | None = None) -> list[dict[str, Any]]:
    """The publications of the editais (art. 9 §2), per order in the order they came out: id,
    removal_order_id, outlet, outlet_pt, published_on, reference (dpc only)."""
    require(user, "read_removal_orders")
    where, params = office_scope(user, "w")
    if order_id is not None:
        where += " AND p.removal_order_id = ?"
        params.append(order_id)
    rows = store.fetch("SELECT p.id, p.removal_order_id, p.outlet, p.published_on, p.reference "
                       "FROM edital_publications p JOIN removal_orders r ON r.id = p.removal_order_id "
                       "JOIN wrecks w ON w.id = r.wreck_id "
                       f"WHERE {where} ORDER BY p.removal_order_id, p.published_on, p.id", params)
    return [{**r, "outlet_pt": OUTLET_LABELS[r["outlet"]]} for r in rows]
