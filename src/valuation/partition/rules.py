"""Partition of what a contract pays the concessionaire (rules.md §3–§5; cli.md `partition`).

- Historical items (Lei 7.542 art. 20): they stay in the União's domain; the
  contract may pay a reward R_h = round(p_h × V_h), p_h ≤ 0.40 (art. 20 §2), paid
  in cash, by adjudicating items the União chooses (art. 20 §4, `valuation.partition.selection`)
  leaving an unpaid residual, or by adjudication with the residual paid in cash.
- Other recovered items (art. 21, wording of Lei 10.166/2000): modality I a fixed
  sum; II round(p_n × V_n), p_n ≤ 0.70; III adjudication of non-historical items
  worth at most round(p_n × V_n) (selection stage 1 only); IV the amount fixed by
  the salvage-award rules, entered as `salvage_award`, which may not exceed V_n (those
  rules apply "no que couber": a salvage reward never exceeds the value saved).
- gross = adjudicated value + cash balance + other payment; the survey-cost
  deduction (`valuation.partition.survey_costs`, NORMAM-10 0303 c 2 I) applies when the winner
  is not the surveyor; net = gross − deduction.

Cancellation (Lei 7.542 art. 22 sole paragraph; NORMAM-10 0305). Design choice:
`ContractTerms.cancelled = True` means no payment is due — no reward for the
historical items and no payment under the modality — except a compensation out of
the recovered non-historical items, which may be below the contracted proportion:

- `compensation_share` (default none → no compensation) is the proportion the
  Authority grants; it may not exceed what the contract provided: the contracted
  `other_share` for modalities II and III; for I and IV (no share in the contract)
  it is at most 1 and the compensation is further capped at the contracted amount
  (`fixed_amount` / `salvage_award`);
- `compensation_form`: "adjudication" (default) adjudicates non-historical items
  worth at most round(compensation_share × V_n), chosen like modality III and
  listed in `other_adjudicated`; "sale_proceeds" pays
  round(compensation_share × sale_proceeds) in money, `sale_proceeds` being what
  the sale of those items yielded.

The compensation fields are ignored when the contract is not cancelled. Every
computed amount is rounded once, to the cent, half-up (`money.to_cents`).

The law of the contract's date (rules.md §4; cli.md `contract.signed_on`): the text in force on
the day the contract or authorisation act was signed applies. Signed before 28/12/2000 (Lei
10.166/2000 in force), the original arts. 20–21: the historical items stay with the União with no
reward (`historical_share` null or 0; no reward, nothing adjudicated, no cash balance), and
modalities II and III have no 70 % cap (a share up to 1). No `signed_on` (unknown, or not signed
yet): the text in force, as amended. `law_text` says which text applied ("original" | "amended");
the choice is `valuation.partition.contract_law`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from valuation.core.errors import InputError, Problem
from valuation.core.law import HISTORICAL_REWARD_CAP, L7203_CEILING, L7542, OTHER_SHARE_CAP, SALVAGE_AWARD_CEILING
from valuation.core.money import to_cents
from valuation.partition.contract_law import ORIGINAL_HISTORICAL_REASON, ORIGINAL_OTHER_REASON, law_text_of
from valuation.partition.selection import (
    EXACT_LIMIT,
    TIME_LIMIT_S,
    SelectionResult,
    SelItem,
    select_items,
)
from valuation.partition.survey_costs import (
    CostLine,
    SurveyDeduction,
    SurveyLine,
    survey_deduction,
)

HISTORICAL_PAYMENTS: tuple[str, ...] = ("cash", "adjudication", "adjudication_with_cash_balance")
MODALITIES: tuple[str, ...] = ("I", "II", "III", "IV")
COMPENSATION_FORMS: tuple[str, ...] = ("adjudication", "sale_proceeds")
DEFAULT_TOLERANCE = Decimal("0.01")  # policy `selection_tolerance` (valuation.policies.defaults)

HISTORICAL_CAP_REASON = "Lei 7.542 art. 20 §2"
OTHER_CAP_REASON = "Lei 7.542 art. 21 II e III"
CANCEL_REASON = "Lei 7.542 art. 22 parágrafo único"
SALVAGE_REASON = SALVAGE_AWARD_CEILING

_L = L7542
ART = {
    "historical_total": f"{_L} art. 20 §3 (valores atribuídos pela Comissão de peritos)",
    "historical_reward": f"{_L} art. 20 §2 (recompensa de até 40 % do valor total atribuído)",
    "adjudicated": f"{_L} art. 20 §4 (escolha da União dos bens adjudicados)",
    "cash_balance": f"{_L} art. 20 §2; forma de pagamento prevista no contrato",
    "unpaid_residual": f"{_L} art. 20 §2; contrato sem saldo em dinheiro",
    "other_total": f"{_L} art. 21 §2 (valor de mercado das coisas e bens recuperados)",
    "I": f"{_L} art. 21 I (soma em dinheiro)",
    "II": f"{_L} art. 21 II (proporcional ao valor de mercado, até 70 %) e §1",
    "III": f"{_L} art. 21 III (adjudicação de parte dos bens, até 70 %) e §1",
    "IV": f"{_L} art. 21 IV (regras de assistência e salvamento, no que couber); {L7203_CEILING}",
    "cancelled": f"{_L} art. 22 parágrafo único; NORMAM-10 (ed. 2002) 0305 (cancelamento: nenhum pagamento, "
                 "salvo compensação com bens sem valor histórico ou o produto de sua venda)",
    "gross": f"{_L} arts. 20 §2 e 21 (total devido ao concessionário)",
    "original_gross": f"{_L} art. 21, redação original (total devido ao concessionário)",
    "original": f"{_L} arts. 20 e 21, redação original: contrato ou ato de autorização assinado antes de "
                "28/12/2000, quando entrou em vigor a Lei 10.166/2000",
    "amended": f"{_L} arts. 20 e 21, redação da Lei 10.166/2000 (em vigor desde 28/12/2000)",
    "original_reward": f"{_L} art. 20, redação original (os bens de valor histórico permanecem no domínio da "
                       "União; o contrato anterior à Lei 10.166/2000 não prevê recompensa por eles)",
    "original_II": f"{_L} art. 21 II, redação original (soma proporcional ao valor dos bens recuperados, sem o "
                   "limite de 70 %)",
    "original_III": f"{_L} art. 21 III, redação original (adjudicação de parte dos bens recuperados, sem o "
                    "limite de 70 %)",
    "net": "NORMAM-10 (ed. 2002) 0303 c 2 I (valor líquido em favor do vencedor, após a dedução)",
}


@dataclass(frozen=True)
class ContractTerms:
    id: str
    historical_share: Decimal
    historical_payment: str                  # cash | adjudication | adjudication_with_cash_balance
    modality: str                            # I | II | III | IV
    other_share: Decimal | None = None       # II, III
    fixed_amount: Decimal | None = None      # I
    salvage_award: Decimal | None = None     # IV
    winner_is_surveyor: bool = False
    survey_costs: tuple[CostLine, ...] = ()
    tolerance: Decimal = DEFAULT_TOLERANCE   # selection stage 2 (policy)
    cancelled: bool = False
    compensation_share: Decimal | None = None
    compensation_form: str = "adjudication"  # adjudication | sale_proceeds
    sale_proceeds: Decimal | None = None
    signed_on: date | None = None            # the law of the contract's date (None: the amended text)

    @property
    def law_text(self) -> str:
        """'original' (signed before 28/12/2000) or 'amended' (`law_text_of`)."""
        return law_text_of(self.signed_on)


@dataclass(frozen=True)
class PartitionItem:
    id: str
    historical: bool
    value: Decimal
    significance: int = 1
    must_keep: bool = False
    lock: str | None = None


@dataclass(frozen=True)
class BasisLine:
    field: str
    article: str


@dataclass(frozen=True)
class PartitionResult:
    contract_id: str
    historical_total: Decimal
    historical_reward: Decimal
    adjudicated: tuple[str, ...]
    adjudicated_value: Decimal
    adjudicated_significance: int
    cash_balance: Decimal
    unpaid_residual: Decimal
    historical_status: str              # optimal | feasible | not_applicable
    historical_gap: Decimal
    other_total: Decimal
    other_target: Decimal | None        # III and compensation by adjudication
    other_payment: Decimal
    other_adjudicated: tuple[str, ...]
    other_status: str                   # optimal | feasible | not_applicable
    other_gap: Decimal
    gross: Decimal
    survey_lines: tuple[SurveyLine, ...]
    survey_accepted_total: Decimal
    survey_deduction: Decimal
    survey_uncovered: Decimal
    net: Decimal
    cancelled: bool
    basis: tuple[BasisLine, ...]
    messages: tuple[str, ...] = ()
    law_text: str = "amended"                       # original | amended (`law_text_of`)
    survey: SurveyDeduction | None = None           # the full statement (with `applies`)
    historical_selection: SelectionResult | None = None
    other_selection: SelectionResult | None = None


# ---------------------------------------------------------------------------------
def terms_problems(terms: ContractTerms, items: Sequence[PartitionItem]) -> list[Problem]:
    """Every rule the terms break, by JSON path (contract.…, items[i].…)."""
    probs: list[Problem] = []
    hcap: Decimal = HISTORICAL_REWARD_CAP.value
    ocap: Decimal = OTHER_SHARE_CAP.value
    if terms.historical_payment not in HISTORICAL_PAYMENTS:
        probs.append(Problem("contract.historical_payment", "must be one of " + ", ".join(HISTORICAL_PAYMENTS)))
    if terms.modality not in MODALITIES:
        probs.append(Problem("contract.modality", "must be one of " + ", ".join(MODALITIES)))
    if terms.compensation_form not in COMPENSATION_FORMS:
        probs.append(Problem("contract.compensation_form", "must be one of " + ", ".join(COMPENSATION_FORMS)))
    for name in ("historical_share", "other_share", "fixed_amount", "salvage_award", "tolerance",
                 "compensation_share", "sale_proceeds"):
        v = getattr(terms, name)
        if v is not None and (not isinstance(v, Decimal) or not v.is_finite() or v < 0):
            probs.append(Problem(f"contract.{name}", "must be a non-negative decimal"))
    if probs:
        return probs
    if terms.law_text == "original":
        if terms.historical_share > 0:
            probs.append(Problem("contract.historical_share", f"must be null or 0 ({ORIGINAL_HISTORICAL_REASON})"))
        if terms.other_share is not None and terms.other_share > 1:
            probs.append(Problem("contract.other_share", f"must not exceed 1 ({ORIGINAL_OTHER_REASON})"))
    else:
        if terms.historical_share > hcap:
            probs.append(Problem("contract.historical_share", f"must not exceed {hcap} ({HISTORICAL_CAP_REASON})"))
        if terms.other_share is not None and terms.other_share > ocap:
            probs.append(Problem("contract.other_share", f"must not exceed {ocap} ({OTHER_CAP_REASON})"))
    if terms.tolerance > 1:
        probs.append(Problem("contract.tolerance", "must not exceed 1"))
    required = {"I": "fixed_amount", "II": "other_share", "III": "other_share", "IV": "salvage_award"}[terms.modality]
    if getattr(terms, required) is None:
        probs.append(Problem(f"contract.{required}", f"is required for modality {terms.modality}"))
    if terms.cancelled and terms.compensation_share is not None and not probs:
        limit = terms.other_share if terms.modality in ("II", "III") else Decimal(1)
        assert limit is not None
        if terms.compensation_share > limit:
            what = f"the contracted share {limit}" if terms.modality in ("II", "III") else "1"
            probs.append(Problem("contract.compensation_share", f"must not exceed {what} ({CANCEL_REASON})"))
        if terms.compensation_form == "sale_proceeds" and terms.sale_proceeds is None \
                and terms.compensation_share > 0:
            probs.append(Problem("contract.sale_proceeds", "is required when compensation_form is sale_proceeds"))
    item_probs_from = len(probs)
    seen: dict[str, int] = {}
    for i, it in enumerate(items):
        if it.id in seen:
            probs.append(Problem(f"items[{i}].id", f"duplicate id {it.id!r} (also items[{seen[it.id]}])"))
        else:
            seen[it.id] = i
        if not isinstance(it.value, Decimal) or not it.value.is_finite() or it.value < 0:
            probs.append(Problem(f"items[{i}].value", "must be a non-negative decimal"))
        if isinstance(it.significance, bool) or not isinstance(it.significance, int) \
                or not 0 <= it.significance <= 5:
            probs.append(Problem(f"items[{i}].significance", "must be an integer 0–5"))
        if it.lock not in (None, "give", "keep"):
            probs.append(Problem(f"items[{i}].lock", "must be null, give or keep"))
    if len(probs) == item_probs_from and terms.modality == "IV" and terms.salvage_award is not None:
        probs += salvage_ceiling_problems(terms.salvage_award, items)
    return probs


def salvage_ceiling_problems(award: Decimal, items: Sequence[PartitionItem]) -> list[Problem]:
    """Modality IV: the salvage award may not exceed the value of the recovered
    non-historical items (`other_total`): Lei 7.542 art. 21 IV applies the salvage rules
    "no que couber", and Lei 7.203/1984 art. 10 §1 caps the remuneration at the value saved."""
    other_total = to_cents(sum((it.value for it in items if not it.historical), Decimal(0)))
    if to_cents(award) <= other_total:
        return []
    return [Problem("contract.salvage_award", f"must not exceed other_total {other_total} "
                                              f"(a salvage reward never exceeds the value saved: {SALVAGE_REASON})")]


@dataclass
class _Part:
    """What one group of items (historical or other) contributes to the result."""

    total: Decimal
    adjudicated: tuple[str, ...] = ()
    adjudicated_value: Decimal = Decimal("0.00")
    status: str = "not_applicable"
    gap: Decimal = Decimal(0)
    selection: SelectionResult | None = None
    reward: Decimal = Decimal("0.00")          # historical: the reward of art. 20 §2
    adjudicated_sig: int = 0                   # historical: significance handed over
    cash_balance: Decimal = Decimal("0.00")    # historical: paid in cash
    unpaid: Decimal = Decimal("0.00")          # historical: residual not paid
    target: Decimal | None = None              # other: what the adjudication aims at
    payment: Decimal = Decimal("0.00")         # other: what the concessionaire receives

    def chose(self, sel: SelectionResult) -> None:
        self.selection, self.adjudicated = sel, sel.selected
        self.adjudicated_value = to_cents(sel.selected_value)
        self.status, self.gap = sel.status, sel.gap


def _historical_part(terms: ContractTerms, hist: list[tuple[int, PartitionItem]], basis: list[BasisLine],
                     messages: list[str], exact_limit: int, time_limit_s: float) -> _Part:
    """The historical items (art. 20): the reward, paid in cash or by the União's choice."""
    part = _Part(total=to_cents(sum((it.value for _, it in hist), Decimal(0))))
    basis.append(BasisLine("historical_total", ART["historical_total"]))
    if terms.law_text == "original":
        basis.append(BasisLine("historical_reward", ART["original_reward"]))
        messages.append("redação original do art. 20 (contrato anterior à Lei 10.166/2000): os bens históricos "
                        "permanecem com a União, sem recompensa nem adjudicação")
        return part
    if terms.cancelled:
        basis.append(BasisLine("historical_reward", ART["cancelled"]))
        messages.append("contrato cancelado: nenhuma recompensa pelos bens históricos (Lei 7.542 art. 22 p.u.)")
        return part
    part.reward = to_cents(terms.historical_share * part.total)
    basis.append(BasisLine("historical_reward", ART["historical_reward"]))
    if terms.historical_payment == "cash":
        part.cash_balance = part.reward
        basis.append(BasisLine("cash_balance", ART["cash_balance"] + " (pagamento em dinheiro)"))
        return part
    h_sel = _select(hist, part.reward, terms.tolerance, True, exact_limit, time_limit_s, "historical reward")
    part.chose(h_sel)
    part.adjudicated_sig = h_sel.significance_handed
    basis.append(BasisLine("adjudicated", ART["adjudicated"]))
    if terms.historical_payment == "adjudication_with_cash_balance":
        part.cash_balance = part.reward - part.adjudicated_value
        basis.append(BasisLine("cash_balance", ART["cash_balance"] + " (saldo em dinheiro)"))
    else:
        part.unpaid = part.reward - part.adjudicated_value
        basis.append(BasisLine("unpaid_residual", ART["unpaid_residual"]))
    if h_sel.status != "optimal":
        messages.append(f"escolha dos bens históricos: {h_sel.message}")
    return part


def _cancelled_other(terms: ContractTerms, other: list[tuple[int, PartitionItem]], part: _Part,
                     basis: list[BasisLine], messages: list[str], exact_limit: int, time_limit_s: float) -> None:
    """The other items of a cancelled contract: the compensation of art. 22 sole paragraph."""
    contracted = {"I": terms.fixed_amount, "IV": terms.salvage_award}.get(terms.modality)
    share = terms.compensation_share or Decimal(0)
    basis.append(BasisLine("other_payment", ART["cancelled"]))
    if terms.compensation_form == "sale_proceeds":
        amount = to_cents(share * (terms.sale_proceeds or Decimal(0)))
        part.payment = amount if contracted is None else min(amount, to_cents(contracted))
        if share > 0:
            messages.append("compensação pelo produto da venda dos bens sem valor histórico")
        return
    target = to_cents(share * part.total)
    part.target = target if contracted is None else min(target, to_cents(contracted))
    part.chose(_select(other, part.target, Decimal(0), False, exact_limit, time_limit_s, "compensation"))
    part.payment = part.adjudicated_value
    basis.append(BasisLine("other_adjudicated", ART["cancelled"]))


def _other_part(terms: ContractTerms, other: list[tuple[int, PartitionItem]], basis: list[BasisLine],
                messages: list[str], exact_limit: int, time_limit_s: float) -> _Part:
    """The other recovered items (art. 21 I–IV; art. 22 on cancellation)."""
    part = _Part(total=to_cents(sum((it.value for _, it in other), Decimal(0))))
    basis.append(BasisLine("other_total", ART["other_total"]))
    if terms.cancelled:
        _cancelled_other(terms, other, part, basis, messages, exact_limit, time_limit_s)
    elif terms.modality == "I":
        assert terms.fixed_amount is not None
        part.payment = to_cents(terms.fixed_amount)
        basis.append(BasisLine("other_payment", ART["I"]))
    elif terms.modality == "II":
        assert terms.other_share is not None
        part.payment = to_cents(terms.other_share * part.total)
        basis.append(BasisLine("other_payment", ART["original_II" if terms.law_text == "original" else "II"]))
    elif terms.modality == "III":
        assert terms.other_share is not None
        part.target = to_cents(terms.other_share * part.total)
        part.chose(_select(other, part.target, Decimal(0), False, exact_limit, time_limit_s, "modality III"))
        part.payment = part.adjudicated_value
        art = ART["original_III" if terms.law_text == "original" else "III"]
        basis.append(BasisLine("other_payment", art))
        basis.append(BasisLine("other_adjudicated", art))
    else:
        assert terms.salvage_award is not None
        part.payment = to_cents(terms.salvage_award)
        basis.append(BasisLine("other_payment", ART["IV"]))
    if part.selection is not None and part.selection.status != "optimal":
        messages.append(f"escolha dos demais bens: {part.selection.message}")
    return part


def partition(terms: ContractTerms, items: Sequence[PartitionItem], *,
              exact_limit: int = EXACT_LIMIT, time_limit_s: float = TIME_LIMIT_S) -> PartitionResult:
    """What the contract pays the concessionaire (Lei 7.542 arts. 20–22; NORMAM-10
    0303 c 2 I and 0305). Raises InputError (paths as in cli.md) for bad terms,
    or when the items locked for hand-over exceed what may be handed over."""
    probs = terms_problems(terms, items)
    if probs:
        raise InputError(probs)
    basis: list[BasisLine] = [BasisLine("law_text", ART[terms.law_text])]
    messages: list[str] = []
    h = _historical_part(terms, [(i, it) for i, it in enumerate(items) if it.historical], basis, messages,
                         exact_limit, time_limit_s)
    o = _other_part(terms, [(i, it) for i, it in enumerate(items) if not it.historical], basis, messages,
                    exact_limit, time_limit_s)
    # ---- gross, survey deduction, net -----------------------------------------------------
    gross = h.adjudicated_value + h.cash_balance + o.payment
    basis.append(BasisLine("gross", ART["original_gross" if terms.law_text == "original" else "gross"]))
    survey = survey_deduction(terms.survey_costs, gross, terms.winner_is_surveyor)
    basis.append(BasisLine("survey_deduction", survey.basis[0]))
    basis.append(BasisLine("survey_lines", survey.basis[1]))
    if survey.uncovered > 0:
        messages.append(f"gastos do pesquisador não cobertos pelo valor bruto: {survey.uncovered}")
    net = gross - survey.deduction
    basis.append(BasisLine("net", ART["net"]))
    return PartitionResult(
        contract_id=terms.id, historical_total=h.total, historical_reward=h.reward,
        adjudicated=h.adjudicated, adjudicated_value=h.adjudicated_value, adjudicated_significance=h.adjudicated_sig,
        cash_balance=h.cash_balance, unpaid_residual=h.unpaid, historical_status=h.status, historical_gap=h.gap,
        other_total=o.total, other_target=o.target, other_payment=o.payment,
        other_adjudicated=o.adjudicated, other_status=o.status, other_gap=o.gap, gross=gross,
        survey_lines=survey.lines, survey_accepted_total=survey.accepted_total, survey_deduction=survey.deduction,
        survey_uncovered=survey.uncovered, net=net, survey=survey, cancelled=terms.cancelled, basis=tuple(basis),
        messages=tuple(messages), historical_selection=h.selection, other_selection=o.selection,
        law_text=terms.law_text)


def _select(group: list[tuple[int, PartitionItem]], target: Decimal, tolerance: Decimal, minimise: bool,
            exact_limit: int, time_limit_s: float, what: str) -> SelectionResult:
    sel = select_items([SelItem(it.id, it.value, it.significance, it.must_keep, it.lock) for _, it in group],
                       target, tolerance, minimise_significance=minimise,
                       exact_limit=exact_limit, time_limit_s=time_limit_s)
    if sel.status == "infeasible":
        probs = []
        for i, it in group:
            if it.lock == "give" and it.must_keep:
                probs.append(Problem(f"items[{i}].lock",
                                     "an item the commission marked must_keep cannot be locked give"))
        if not probs:
            probs = [Problem(f"items[{i}].lock", f"items locked give exceed the {what} {target}")
                     for i, it in group if it.lock == "give"]
        raise InputError(probs)
    return sel
