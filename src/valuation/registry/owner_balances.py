"""The owner's balance (Lei 7.542 art. 13 §2): what is left for the owner after the Authority
disposed of the recovered things on the owner's account.

When the Authority acted on the owner's account (art. 10, art. 11 §2) and disposed of the things
(sold them, art. 12 §2), the proceeds first reimburse or indemnify the União (art. 13 II); "no caso
de haver saldo a favor do responsável ... o saldo será mantido pela Autoridade Naval, à disposição
do interessado, até 5 (cinco) anos a contar da data do sinistro, depois do que será considerado
como receita da União". `record_owner_balance` stores that balance (proceeds − the União's costs,
exact to the cent); the deadline engine shows it, with the day it becomes União revenue
(`valuation.deadlines.rules.owner_balance`: casualty + 5 years, date to date, moved to a business
day), until it is handed to the owner (`record_balance_paid`) or that day passes.

DPC only (the owner is a person's data); validated and audited.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from valuation.core.errors import ConflictError, NotFound
from valuation.core.forms import Form, excerpt
from valuation.core.money import format_date_br
from valuation.db.access import Principal, require
from valuation.registry.parties import responsible_name

if TYPE_CHECKING:
    import pandas as pd

    from valuation.db.store import Store, Tx

BALANCE_FIELDS: tuple[str, ...] = ("wreck_code", "removal_order_id", "disposed_on", "proceeds", "union_costs", "note")
LABELS: dict[str, str] = {"wreck_code": "Naufrágio", "removal_order_id": "Determinação de remoção",
                          "disposed_on": "Data da alienação", "proceeds": "Produto da alienação (R$)",
                          "union_costs": "Despesas da União a reembolsar (R$, art. 13 II)", "note": "Observação",
                          "day": "Data da entrega ao responsável"}


def record_owner_balance(store: Store, user: Principal, data: Mapping[str, Any]) -> int:
    """Record the balance of a disposal on the owner's account (art. 13 §2): wreck_code, disposed_on,
    proceeds, union_costs (what reimburses the União, art. 13 II), optional removal_order_id (the
    order whose takeover led to it) and note. Refused when nothing is left for the owner. Returns
    the balance's id. dpc only; audited."""
    require(user, "manage_owner_balances")
    f = Form(data, allowed=BALANCE_FIELDS)
    code = f.text("wreck_code", LABELS["wreck_code"], max_len=40)
    disposed = f.date("disposed_on", LABELS["disposed_on"])
    # typed the pt-BR way ('84.300,00'): the one parser (core.money.parse_brl) reads it exactly, never guesses
    proceeds = f.money("proceeds", LABELS["proceeds"])
    costs = f.money("union_costs", LABELS["union_costs"])
    order = f.integer("removal_order_id", LABELS["removal_order_id"], required=False, minimum=1)
    note = f.text("note", LABELS["note"], required=False, max_len=1000)
    wreck = store.fetch_one("SELECT id, code FROM wrecks WHERE code = ?", [code]) if code else None
    if code and wreck is None:
        f.fail("wreck_code", f"{LABELS['wreck_code']}: não encontrado ({excerpt(code)}).")
    if order is not None and wreck is not None and not store.scalar(
            "SELECT count(*) FROM removal_orders WHERE id = ? AND wreck_id = ?", [order, wreck["id"]]):
        f.fail("removal_order_id", f"{LABELS['removal_order_id']}: não encontrada neste naufrágio.")
    if disposed is not None and disposed > store.today():
        f.fail("disposed_on", f"{LABELS['disposed_on']}: não pode estar no futuro.")
    if proceeds is not None and costs is not None and proceeds - costs <= 0:
        f.fail("proceeds", f"{LABELS['proceeds']}: não há saldo a favor do responsável (o produto não excede as "
                           "despesas da União; art. 13 §2).")
    f.done()
    assert wreck is not None and proceeds is not None and costs is not None
    row = {"wreck_id": int(wreck["id"]), "removal_order_id": order, "disposed_on": disposed, "proceeds": proceeds,
           "union_costs": costs, "balance": proceeds - costs, "note": note}

    def write(tx: Tx) -> int:
        new_id = int(tx.scalar(
            "INSERT INTO owner_balances (wreck_id, removal_order_id, disposed_on, proceeds, "
            "union_costs, balance, note, "
            "recorded_by, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            [*row.values(), user.username, store.now()]))
        tx.audit("record_owner_balance", "owner_balance", new_id, None, row)
        return new_id

    return store.write(user.username, write)


def record_balance_paid(store: Store, user: Principal, balance_id: int, data: Mapping[str, Any]) -> None:
    """The balance was handed to the owner (data: day): only before it became União revenue — the
    engine's due date — and not before the disposal. dpc only; audited."""
    require(user, "manage_owner_balances")
    row = store.fetch_one("SELECT * FROM owner_balances WHERE id = ?", [balance_id]) \
        if isinstance(balance_id, int) and not isinstance(balance_id, bool) else None
    if row is None:
        raise NotFound(f"Saldo {excerpt(balance_id)} não encontrado.", what="owner_balance", key=balance_id)
    f = Form(data, allowed=("day",))
    day = f.date("day", LABELS["day"])
    if day is not None and (day > store.today() or day < row["disposed_on"]):
        f.fail("day", f"{LABELS['day']}: entre a alienação ({format_date_br(row['disposed_on'])}) e hoje.")
    due = balance_due(store, row)
    if day is not None and due is not None and day > due:
        f.fail("day", f"{LABELS['day']}: o saldo passou a receita da União depois de {format_date_br(due)} "
                      "(art. 13 §2).")
    f.done()

    def write(tx: Tx) -> None:
        if tx.scalar("SELECT paid_on FROM owner_balances WHERE id = ?", [balance_id]) is not None:
            raise ConflictError(f"O saldo {balance_id} já foi entregue ao responsável.")
        tx.execute("UPDATE owner_balances SET paid_on = ? WHERE id = ?", [day, balance_id])
        tx.audit("record_balance_paid", "owner_balance", balance_id, {"paid_on": None}, {"paid_on": day})

    store.write(user.username, write)


def balance_due(store: Store, balance: Mapping[str, Any]) -> Any:
    """The last day the balance is held for the owner (casualty + 5 years; None for an incomplete casualty date)."""
    from valuation.core.casualty import casualty_bounds
    from valuation.deadlines.calendars import office_calendar
    from valuation.deadlines.rules import owner_balance

    w = store.fetch_one("SELECT office_code, casualty_year, casualty_month, casualty_day, casualty_precision "
                        "FROM wrecks WHERE id = ?", [balance["wreck_id"]])
    if w is None:
        return None
    try:
        _, latest = casualty_bounds(w["casualty_year"], w["casualty_month"], w["casualty_day"],
                                    w["casualty_precision"])
    except (TypeError, ValueError):
        return None
    return owner_balance(latest, office_calendar(store, w["office_code"], on=latest)).due


def list_owner_balances(store: Store, user: Principal, *, wreck_id: int | None = None) -> pd.DataFrame:
    """The balances held or handed (newest first): id, wreck_id, wreck_code, wreck_name, owner_name, disposed_on,
    proceeds, union_costs, balance, paid_on, note (dpc only)."""
    require(user, "manage_owner_balances")
    where, params = ("WHERE b.wreck_id = ?", [wreck_id]) if wreck_id is not None else ("", [])
    df = store.fetch_df(
        "SELECT b.id, b.wreck_id, w.code AS wreck_code, w.name AS wreck_name, ow.name AS owner_name, b.disposed_on, "
        "b.proceeds, b.union_costs, b.balance, b.paid_on, b.note FROM owner_balances b JOIN "
        "wrecks w ON w.id = b.wreck_id "
        f"LEFT JOIN owners ow ON ow.id = w.owner_id {where} ORDER BY b.disposed_on DESC, b.id DESC", params)
    if len(df):   # held for the responsible the Authority deals with: a communicated cession's cessionário (art. 8)
        today = store.today()
        holders = [responsible_name(store, int(w), today) for w in df["wreck_id"]]
        df["owner_name"] = [h["name"] if h else n for h, n in zip(holders, df["owner_name"])]
    return df
