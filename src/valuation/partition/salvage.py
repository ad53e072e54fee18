"""The salvage award of modality IV, entered with the factors the Naval Authority recorded (Lei 7.542 art.
21 IV; Lei 7.203/1984 art. 10).

Art. 21 IV pays the concessionaire "conforme as regras estabelecidas para fixação de pagamento por
assistência e salvamento, no que couber". Brazil's rules are Lei 7.203/1984, whose art. 10 says: the
remuneration is agreed between the parties (caput; else arbitration or the competent court, §3); every act
of assistance and salvage with a useful result gives the right to an equitable remuneration, which may not
exceed the value of the vessel, things or goods saved (§1); without a useful result, when damage to third
parties or the environment was avoided, the salvor is always reimbursed its expenses, losses and damages
included (§2). The law names no factors of equity; the Authority weighs those of the family the 1910
Brussels Convention (art. 8) and the 1989 Convention (art. 13) list — success, skill and efforts, danger,
time, expenses and losses, risk, equipment, damage avoided — and records each (README "Decisions").

- `award_problems` (pure): the award against art. 10 §§1–2 and the factors present;
- `record_salvage_assessment`: the store path (append-only; also writes `contracts.salvage_award`, the
  amount the partition pays, in the same transaction; audited); `current_assessment` reads it back;
  `factor_rows` is what the statement prints (its terms snapshot carries the assessment).

Access: `manage_terms` (dpc), as the rest of the contract's terms.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from valuation.core.errors import ConflictError, Problem
from valuation.core.forms import Form
from valuation.core.money import MAX_AMOUNT, format_brl, format_date_br, parse_amount
from valuation.db.access import Principal, require
from valuation.partition.pools import aggregates
from valuation.partition.terms import contract_for

if TYPE_CHECKING:
    from valuation.db.store import Store, Tx

L7203 = "Lei 7.203/1984 art. 10"
BASIS = (f"Lei 7.542/1986 art. 21 IV; {L7203} (remuneração eqüitativa, que não excede o valor das coisas salvas, "
         "§1; sem resultado útil, reembolso das despesas quando evitados danos a terceiros ou ao meio ambiente, §2)")
# the factors the Authority records (stored column → what the form and the statement call it)
FACTORS: dict[str, str] = {
    "success": "Êxito obtido (resultado útil)",
    "efforts": "Esforços e habilidade dos salvadores",
    "danger": "Perigo a que estavam expostas as coisas",
    "time_spent": "Tempo empregado",
    "risk": "Riscos corridos pelos salvadores",
    "equipment": "Equipamento empregado e seu valor",
    "damage_avoided": "Danos evitados a terceiros e ao meio ambiente",
}
LABELS: dict[str, str] = {
    "award": "Remuneração por assistência e salvamento (R$)", "useful_result": "Houve resultado útil",
    "expenses": "Despesas e prejuízos dos salvadores (R$)", "act": "Ato da Autoridade Naval",
    "assessed_on": "Data da fixação", **FACTORS,
}
FIELDS: tuple[str, ...] = tuple(LABELS)
MAX_FACTOR_TEXT = 1000


def award_problems(award: Decimal, useful_result: bool, value_saved: Decimal | None, expenses: Decimal,
                   factors: Mapping[str, str | None]) -> list[Problem]:
    """What is wrong with a salvage award (Lei 7.203/1984 art. 10), as pt-BR problems naming the field:
    every factor recorded; with a useful result, at most the value of the things saved (§1; `value_saved`
    None: not yet valued, checked again by the statement); without one, at most the expenses and losses
    (§2), and only when damage to third parties or the environment was avoided."""
    out = [Problem(key, f"{label}: informe o que a Autoridade Naval registrou ({L7203}).")
           for key, label in FACTORS.items() if not (factors.get(key) or "").strip()]
    if useful_result and value_saved is not None and award > value_saved:
        out.append(Problem("award", f"{LABELS['award']}: {format_brl(award)} excede o valor das coisas salvas, "
                                    f"{format_brl(value_saved)} (a remuneração não excede esse valor; {L7203} §1)."))
    if not useful_result and award > expenses:
        out.append(Problem("award", f"{LABELS['award']}: sem resultado útil cabe só o reembolso das despesas e "
                                    f"prejuízos, {format_brl(expenses)} ({L7203} §2)."))
    return out


def factor_rows(assessment: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The assessment as the statement prints it: (label, text) rows, the award and its basis first."""
    if not assessment:
        return []
    rows = [("Remuneração fixada pela Autoridade Naval",
             f"{format_brl(Decimal(str(assessment['award'])))} — {assessment['act']}, "
             f"{format_date_br(date.fromisoformat(str(assessment['assessed_on'])))} ({L7203})"),
            ("Resultado útil", "sim" if assessment["useful_result"] else "não (art. 10 §2: reembolso de despesas)")]
    if assessment.get("value_saved") is not None:
        rows.append(("Valor das coisas salvas (teto, art. 10 §1)", format_brl(Decimal(str(assessment["value_saved"])))))
    rows.append((LABELS["expenses"].removesuffix(" (R$)"), format_brl(Decimal(str(assessment["expenses"])))))
    rows += [(label, str(assessment[key])) for key, label in FACTORS.items()]
    return rows


def _read(store: Store, data: Mapping[str, Any]) -> tuple[dict[str, Any], Form]:
    f = Form(data, allowed=FIELDS)
    for key in ("award", "expenses"):   # typed the pt-BR way ('84.300,00'): read exactly, never guessed
        amount = parse_amount(f.data.get(key))
        if amount is not None:
            f.data[key] = amount
    rec: dict[str, Any] = {
        "award": f.decimal("award", LABELS["award"], minimum=Decimal(0), maximum=MAX_AMOUNT),
        "useful_result": f.boolean("useful_result", LABELS["useful_result"]),
        "expenses": f.decimal("expenses", LABELS["expenses"], minimum=Decimal(0), maximum=MAX_AMOUNT),
        **{key: f.text(key, label, required=False, max_len=MAX_FACTOR_TEXT) for key, label in FACTORS.items()},
        "act": f.text("act", LABELS["act"], max_len=200),
        "assessed_on": f.date("assessed_on", LABELS["assessed_on"]),
    }
    if rec["assessed_on"] is not None and rec["assessed_on"] > store.today():
        f.fail("assessed_on", f"{LABELS['assessed_on']}: não pode estar no futuro.")
    return rec, f


def record_salvage_assessment(store: Store, user: Principal, code: str, data: Mapping[str, Any]) -> int:
    """Record the award of a modality IV contract with the factors the Authority weighed (Lei 7.203/1984
    art. 10) and make it the contract's `salvage_award`. The value saved is the value of the recovered
    non-historical items decided so far (the ceiling of §1). Returns the assessment's id. dpc only;
    InputError names every bad field, nothing written; audited."""
    require(user, "manage_terms")
    c = contract_for(store, user, code)
    rec, f = _read(store, data)
    if c["modality"] != "IV":
        f.fail("award", f"Contrato {c['code']}: a remuneração por assistência e salvamento é da modalidade IV "
                        "(art. 21 IV); grave antes os termos.")
    agg = aggregates(store, int(c["id"]))
    value_saved = agg.o_total if agg.o_n else None
    if rec["award"] is not None and rec["expenses"] is not None:
        f.problems.extend(award_problems(rec["award"], rec["useful_result"], value_saved, rec["expenses"], rec))
    f.done()
    row = {**rec, "value_saved": value_saved}

    def write(tx: Tx) -> int:
        if tx.scalar("SELECT modality FROM contracts WHERE id = ?", [c["id"]]) != "IV":
            raise ConflictError(f"Os termos do contrato {c['code']} mudaram: já não é da modalidade IV.")
        cols = list(row)
        new_id = int(tx.scalar(
            f"INSERT INTO salvage_assessments (contract_id, {', '.join(cols)}, recorded_by, recorded_at) VALUES "
            f"(?, {', '.join('?' for _ in cols)}, ?, ?) RETURNING id",
            [c["id"], *row.values(), user.username, store.now()]))
        tx.execute("UPDATE contracts SET salvage_award = ? WHERE id = ?", [rec["award"], c["id"]])
        tx.audit("salvage_assessed", "contract", c["code"], {"salvage_award": c["salvage_award"]},
                 {"salvage_award": rec["award"], "assessment": new_id, **{k: row[k] for k in FACTORS}})
        return new_id

    return store.write(user.username, write)


def current_assessment(db: Any, contract_id: int) -> dict[str, Any] | None:
    """The assessment in force of a contract (the latest), JSON-ready (amounts and dates as text), or None.
    No access check: the caller read the contract."""
    row = db.fetch_one("SELECT * FROM salvage_assessments WHERE contract_id = ? ORDER BY id DESC LIMIT 1",
                       [contract_id])
    if row is None:
        return None
    out = {k: row[k] for k in ("useful_result", *FACTORS, "act")}
    out.update({k: (None if row[k] is None else str(row[k])) for k in ("award", "value_saved", "expenses",
                                                                      "assessed_on")})
    return out


def contract_assessment(store: Store, user: Principal, code: str) -> dict[str, Any] | None:
    """The assessment in force of the contract `code` (dpc)."""
    require(user, "manage_terms")
    return current_assessment(store, int(contract_for(store, user, code)["id"]))


__all__ = ["BASIS", "FACTORS", "LABELS", "award_problems", "contract_assessment", "current_assessment",
           "factor_rows", "record_salvage_assessment"]
