"""The contract's valuation date: the store path (Lei 7.542/1986 art. 21 §3; the rule is
`valuation.core.valuation_date`).

The contract may fix the value of the things before the start or after the end of the operations
(`contracts.value_fixed`); `set_valuation_date` records the day that value refers to, which the
Commission's entries then use to convert every foreign price (`valuation.commission.entries`). It is
refused once a member entered a value for the contract's items in any round: those values were converted
already and the trail is never rewritten (the DPC clears nothing behind the Commission's back).

Access: `manage_terms` (dpc), as the rest of the contract's terms; `contract_valuation` reads it for any
reader of the contract.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core.errors import ConflictError
from valuation.core.forms import Form
from valuation.core.money import format_date_br
from valuation.core.valuation_date import LABEL, Conversion, conversion_rule, valuation_date_problems
from valuation.db.access import Principal, require
from valuation.partition.terms import contract_for

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

FIELDS = ("valuation_date",)
LABELS = {"valuation_date": LABEL, "value_fixed": "Valor fixado (art. 21 §3)"}
_ENTRIES_SQL = ("SELECT count(*) FROM assessment_log l JOIN assessment_rounds r ON r.id = l.round_id "
                "WHERE r.contract_id = ? AND l.amount IS NOT NULL")


def contract_valuation(store: Store, user: Principal, code: str) -> tuple[date | None, Conversion]:
    """The contract's valuation date (or None) and the conversion rule it gives (art. 21 §3)."""
    c = contract_for(store, user, code)
    day = store.scalar("SELECT valuation_date FROM contracts WHERE id = ?", [c["id"]])
    return day, conversion_rule(day, c["value_fixed"])


def set_valuation_date(store: Store, user: Principal, code: str, data: Mapping[str, Any], *,
                       today: date) -> date | None:
    """Record (or clear, with None) the contract's valuation date (art. 21 §3): before the start of the
    operations or after their end, as the contract's `value_fixed` says, never after `today` (the office's
    day). Refused (ConflictError) once the contract's items have values entered by the Commission.
    InputError names the field; nothing written; audited before → after. Returns the date stored."""
    require(user, "manage_terms")
    f = Form(data, allowed=FIELDS)
    day = f.date("valuation_date", LABEL, required=False)
    c = contract_for(store, user, code)
    f.problems.extend(valuation_date_problems(day, c["value_fixed"], c["starts_on"], c["work_ended_on"],
                                              today=today))
    f.done()

    def run(tx: Tx) -> date | None:
        before = tx.scalar("SELECT valuation_date FROM contracts WHERE id = ?", [c["id"]])
        if before == day:
            return day
        entered = int(tx.scalar(_ENTRIES_SQL, [c["id"]]))
        if entered:
            shown = format_date_br(before) if before else "nenhuma"
            raise ConflictError(f"Contrato {c['code']}: a Comissão já registrou {entered} valor(es) dos bens deste "
                                f"contrato, convertidos pela regra em vigor (data de avaliação: {shown}); a data de "
                                "avaliação não pode mais mudar (Lei 7.542/1986, art. 21 §3).")
        tx.execute("UPDATE contracts SET valuation_date = ? WHERE id = ?", [day, c["id"]])
        tx.audit("valuation_date_set", "contract", c["code"], {"valuation_date": before}, {"valuation_date": day})
        return day

    return store.write(user.username, run)
