"""Partition of what a contract pays (rules.md §3–§5; cli.md `partition`;
Lei 7.542 arts. 20–22; NORMAM-10 0303 c 2 I and 0305)."""
from __future__ import annotations

import itertools
from dataclasses import replace
from decimal import Decimal as D

import pytest

from valuation.core.errors import InputError
from valuation.partition.rules import ContractTerms, PartitionItem, partition
from valuation.partition.survey_costs import CostLine

SHEET = (CostLine("vessel", D("10000.00"), D("12000.00"), D("500.00")),
         CostLine("sonar", D("3000.00"), D("2500.00"), D("0")))


def terms(**kw) -> ContractTerms:
    base = dict(id="C-1", historical_share=D("0.40"), historical_payment="adjudication_with_cash_balance",
                modality="II", other_share=D("0.55"), winner_is_surveyor=False, survey_costs=SHEET)
    base.update(kw)
    return ContractTerms(**base)


def items() -> list[PartitionItem]:
    return [PartitionItem("H-1", True, D("50000.00"), 5), PartitionItem("H-2", True, D("30000.00"), 2),
            PartitionItem("H-3", True, D("20000.00"), 1), PartitionItem("O-1", False, D("8000.00"), 0),
            PartitionItem("O-2", False, D("2000.55"), 0)]


def problems(exc: pytest.ExceptionInfo) -> list[str]:
    return [str(p) for p in exc.value.problems]


def test_basic_case_worked_by_hand():
    r = partition(terms(), items())
    assert r.historical_total == D("100000.00")
    assert r.historical_reward == D("40000.00")              # 0.40 × 100 000
    assert r.adjudicated == ("H-2",)                         # 30 000 is the best ≤ 40 000
    assert r.adjudicated_value == D("30000.00") and r.adjudicated_significance == 2
    assert r.cash_balance == D("10000.00") and r.unpaid_residual == 0
    assert r.other_total == D("10000.55")
    assert r.other_payment == D("5500.30")                   # 0.55 × 10 000.55 = 5 500.3025
    assert r.gross == D("45500.30")
    assert r.survey_accepted_total == D("13000.00")          # 10 500 + 2 500
    assert r.survey_deduction == D("13000.00") and r.survey_uncovered == 0
    assert r.net == D("32500.30")
    assert r.historical_status == "optimal"


@pytest.mark.parametrize("share,value,expected", [
    ("0.55", "10000.55", "5500.30"),    # 5500.3025 → down
    ("0.50", "10.01", "5.01"),          # 5.005 → half-up (not half-even 5.00)
    ("0.70", "0.05", "0.04"),           # 0.035 → 0.04
    ("0.30", "33.35", "10.01"),         # 10.005 → 10.01
])
def test_modality_II_rounds_once_half_up(share, value, expected):
    r = partition(terms(other_share=D(share), survey_costs=()), [PartitionItem("O", False, D(value), 0)])
    assert r.other_payment == D(expected)


def test_historical_reward_rounds_half_up():
    r = partition(terms(historical_payment="cash", historical_share=D("0.35"), survey_costs=()),
                  [PartitionItem("H", True, D("10.03"), 1)])
    assert r.historical_reward == D("3.51")                  # 3.5105
    r = partition(terms(historical_payment="cash", historical_share=D("0.25"), survey_costs=()),
                  [PartitionItem("H", True, D("0.10"), 1)])
    assert r.historical_reward == D("0.03")                  # 0.025 → 0.03


@pytest.mark.parametrize("payment,adjudicated,cash,unpaid", [
    ("cash", (), "40000.00", "0.00"),
    ("adjudication", ("H-2",), "0.00", "10000.00"),
    ("adjudication_with_cash_balance", ("H-2",), "10000.00", "0.00"),
])
def test_each_payment_form(payment, adjudicated, cash, unpaid):
    r = partition(terms(historical_payment=payment), items())
    assert r.adjudicated == adjudicated
    assert r.cash_balance == D(cash) and r.unpaid_residual == D(unpaid)
    assert r.gross == r.adjudicated_value + r.cash_balance + r.other_payment
    assert r.net == r.gross - r.survey_deduction
    if payment == "cash":
        assert r.adjudicated_value == 0 and r.historical_status == "not_applicable"


@pytest.mark.parametrize("modality,extra,expected", [
    ("I", {"fixed_amount": D("1234.56"), "other_share": None}, D("1234.56")),
    ("II", {}, D("5500.30")),
    ("IV", {"salvage_award": D("777.77"), "other_share": None}, D("777.77")),
])
def test_money_modalities(modality, extra, expected):
    r = partition(terms(modality=modality, **extra), items())
    assert r.other_payment == expected and r.other_adjudicated == ()
    assert any(b.field == "other_payment" and f"art. 21 {modality} " in b.article for b in r.basis)


def brute_best(values: list[D], target: D) -> D:
    return max(s for k in range(len(values) + 1) for c in itertools.combinations(values, k)
               if (s := sum(c, D(0))) <= target)


def test_modality_III_adjudicates_the_best_set_under_the_target():
    others = [PartitionItem("O-1", False, D("4000.00"), 0), PartitionItem("O-2", False, D("3500.00"), 0),
              PartitionItem("O-3", False, D("2600.00"), 0), PartitionItem("O-4", False, D("2100.00"), 0),
              PartitionItem("O-5", False, D("900.00"), 0, must_keep=True)]
    r = partition(terms(modality="III", other_share=D("0.50")), items()[:3] + others)
    total = D("13100.00")
    assert r.other_total == total
    assert r.other_target == D("6550.00")
    chosen = [o for o in others if o.id in r.other_adjudicated]
    assert "O-5" not in r.other_adjudicated
    assert r.other_payment == sum((o.value for o in chosen), D(0)) <= r.other_target
    assert r.other_payment == brute_best([o.value for o in others if not o.must_keep], r.other_target)
    assert r.other_status == "optimal"
    assert r.gross == r.adjudicated_value + r.cash_balance + r.other_payment


def test_cancellation_without_compensation_pays_nothing():
    r = partition(terms(cancelled=True), items())
    assert r.cancelled
    assert r.historical_reward == 0 and r.adjudicated == () and r.cash_balance == 0 and r.unpaid_residual == 0
    assert r.other_payment == 0 and r.gross == 0 and r.net == 0
    assert r.survey_deduction == 0 and r.survey_uncovered == D("13000.00")
    assert any("art. 22" in b.article for b in r.basis)


def test_cancellation_compensation_by_adjudication_below_the_contracted_share():
    r = partition(terms(cancelled=True, compensation_share=D("0.30"), survey_costs=()), items())
    assert r.historical_reward == 0 and r.adjudicated == ()
    assert r.other_target == D("3000.17")                    # 0.30 × 10 000.55 = 3000.165
    assert r.other_adjudicated == ("O-2",) and r.other_payment == D("2000.55")
    assert r.gross == D("2000.55")


def test_cancellation_compensation_by_sale_proceeds():
    r = partition(terms(cancelled=True, compensation_share=D("0.50"), compensation_form="sale_proceeds",
                        sale_proceeds=D("9000.01"), survey_costs=()), items())
    assert r.other_payment == D("4500.01")                   # 4500.005 → half-up
    assert r.other_adjudicated == ()


def test_cancellation_compensation_for_fixed_sum_is_capped_by_the_contract():
    r = partition(terms(cancelled=True, modality="I", other_share=None, fixed_amount=D("2500.00"),
                        compensation_share=D("1"), survey_costs=()), items())
    assert r.other_target == D("2500.00")
    assert r.other_payment == D("2000.55")                   # the best set not above 2 500


def test_cancellation_compensation_above_contracted_share_is_an_error():
    with pytest.raises(InputError) as exc:
        partition(terms(cancelled=True, compensation_share=D("0.56")), items())
    assert problems(exc) == [
        "contract.compensation_share: must not exceed the contracted share 0.55 (Lei 7.542 art. 22 parágrafo único)"]


def test_survey_deduction_and_uncovered_remainder():
    small = [PartitionItem("O", False, D("1000.00"), 0)]
    r = partition(terms(historical_payment="cash"), small)
    assert r.gross == D("550.00")
    assert r.survey_deduction == D("550.00") and r.survey_uncovered == D("12450.00") and r.net == 0
    r2 = partition(terms(historical_payment="cash", winner_is_surveyor=True), small)
    assert r2.survey_deduction == 0 and r2.net == D("550.00")


@pytest.mark.parametrize("kw,message", [
    ({"historical_share": D("0.41")}, "contract.historical_share: must not exceed 0.40 (Lei 7.542 art. 20 §2)"),
    ({"other_share": D("0.71")}, "contract.other_share: must not exceed 0.70 (Lei 7.542 art. 21 II e III)"),
    ({"other_share": None}, "contract.other_share: is required for modality II"),
    ({"modality": "III", "other_share": None}, "contract.other_share: is required for modality III"),
    ({"modality": "I"}, "contract.fixed_amount: is required for modality I"),
    ({"modality": "IV"}, "contract.salvage_award: is required for modality IV"),
    ({"modality": "V"}, "contract.modality: must be one of I, II, III, IV"),
    ({"historical_payment": "barter"},
     "contract.historical_payment: must be one of cash, adjudication, adjudication_with_cash_balance"),
])
def test_bad_terms(kw, message):
    with pytest.raises(InputError) as exc:
        partition(terms(**kw), items())
    assert message in problems(exc)


def test_caps_at_the_limit_are_allowed():
    r = partition(terms(historical_share=D("0.40"), other_share=D("0.70")), items())
    assert r.other_payment == D("7000.39")                   # 7000.385 → half-up


def test_duplicate_ids_and_bad_items():
    bad = items() + [PartitionItem("H-1", True, D("1.00"), 7)]
    with pytest.raises(InputError) as exc:
        partition(terms(), bad)
    msgs = problems(exc)
    assert any(m.startswith("items[5].id: duplicate id") for m in msgs)
    assert "items[5].significance: must be an integer 0–5" in msgs


def test_locked_items_exceeding_the_reward_are_an_error():
    its = items()
    its[0] = replace(its[0], lock="give")
    its[1] = replace(its[1], lock="give")    # 80 000 locked in > 40 000 reward
    with pytest.raises(InputError) as exc:
        partition(terms(), its)
    assert [m.split(":")[0] for m in problems(exc)] == ["items[0].lock", "items[1].lock"]
    its = items()
    its[2] = replace(its[2], must_keep=True, lock="give")
    with pytest.raises(InputError) as exc:
        partition(terms(), its)
    assert problems(exc)[0].startswith("items[2].lock")


def test_locks_respected_in_the_historical_choice():
    its = items()
    its[1] = replace(its[1], lock="keep")                # H-2 not offered
    r = partition(terms(), its)
    assert r.adjudicated == ("H-3",) and r.cash_balance == D("20000.00")
    its = items()
    its[0] = replace(its[0], must_keep=True)
    its[2] = replace(its[2], lock="give")
    r = partition(terms(), its)
    assert "H-1" not in r.adjudicated and "H-3" in r.adjudicated


def test_every_line_has_a_basis():
    for payment in ("cash", "adjudication", "adjudication_with_cash_balance"):
        r = partition(terms(historical_payment=payment), items())
        fields = {b.field for b in r.basis}
        assert {"historical_total", "historical_reward", "other_total", "other_payment", "gross",
                "survey_deduction", "net"} <= fields
        assert all(b.article for b in r.basis)
