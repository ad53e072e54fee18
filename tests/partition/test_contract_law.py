"""Issue 25, rule 1 — the law of the contract's date (Lei 7.542/1986 arts. 20–21; rules.md §4; cli.md
partition `contract.signed_on`): signed before 28/12/2000 (Lei 10.166/2000 in force), the original text —
historical items stay with the União with no reward, no 70 % cap on the shares of modalities II and III;
otherwise (or not signed yet) the amended text. In the pure rule, the CLI, the store (terms and
statement) and the terms page.
"""
from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.support.ui import first_user, page_as
from valuation.cli.main import main
from valuation.core.errors import InputError
from valuation.partition import statements, terms
from valuation.partition.contract_law import law_text_line, law_text_of, share_caps
from valuation.partition.rules import ContractTerms, PartitionItem, partition
from valuation.registry import contracts

D = date
ITEMS = [PartitionItem("h1", True, Decimal("50000.00"), 2), PartitionItem("o1", False, Decimal("10000.00"), 0)]

# (name, signed_on, law text, caps (historical, other))
TEXT_CASES = [
    ("signed in 1990", D(1990, 5, 10), "original", (Decimal(0), Decimal(1))),
    ("the day before Lei 10.166/2000 was published", D(2000, 12, 27), "original", (Decimal(0), Decimal(1))),
    ("the day it came into force", D(2000, 12, 28), "amended", (Decimal("0.40"), Decimal("0.70"))),
    ("not signed yet: the text in force", None, "amended", (Decimal("0.40"), Decimal("0.70"))),
]


@pytest.mark.parametrize("name, signed, text, caps", TEXT_CASES, ids=[c[0] for c in TEXT_CASES])
def test_which_text_governs(name, signed, text, caps):
    assert law_text_of(signed) == text and share_caps(signed) == caps
    assert ("Redação original" in law_text_line(signed)) == (text == "original")


# (name, signed_on, modality, historical_share, other_share, reward, other_payment, or the refused field)
PARTITION_CASES = [
    ("original, II at 85 %: no reward, no 70 % cap", D(1998, 6, 15), "II", "0", "0.85", "0.00", "8500.00", None),
    ("original, III at 100 %", D(1998, 6, 15), "III", "0", "1", "0.00", "10000.00", None),
    ("original, a reward asked", D(1998, 6, 15), "II", "0.10", "0.50", None, None, "contract.historical_share"),
    ("original, a share above 100 %", D(1998, 6, 15), "II", "0", "1.01", None, None, "contract.other_share"),
    ("amended, 40 % and 70 %", D(2001, 1, 2), "II", "0.40", "0.70", "20000.00", "7000.00", None),
    ("amended, II at 85 %", D(2001, 1, 2), "II", "0.40", "0.85", None, None, "contract.other_share"),
    ("unsigned, 45 % reward", None, "II", "0.45", "0.50", None, None, "contract.historical_share"),
]


@pytest.mark.parametrize("name, signed, modality, hshare, oshare, reward, other, refused", PARTITION_CASES,
                         ids=[c[0] for c in PARTITION_CASES])
def test_partition_follows_the_contracts_text(name, signed, modality, hshare, oshare, reward, other, refused):
    t = ContractTerms("C-1", Decimal(hshare), "cash", modality, other_share=Decimal(oshare), signed_on=signed)
    if refused:
        with pytest.raises(InputError) as err:
            partition(t, ITEMS)
        assert [p.path for p in err.value.problems] == [refused]
        return
    res = partition(t, ITEMS)
    assert (res.historical_reward, res.other_payment) == (Decimal(reward), Decimal(other))
    assert res.law_text == law_text_of(signed)
    law = next(b.article for b in res.basis if b.field == "law_text")
    assert ("redação original" in law) == (res.law_text == "original")
    if res.law_text == "original":
        assert (res.cash_balance, res.adjudicated, res.adjudicated_value) == (Decimal(0), (), Decimal(0))


# -- the CLI (cli.md: `contract.signed_on`) -----------------------------------------------------------------------
def _doc(signed: Any, hshare: Any, oshare: str) -> dict[str, Any]:
    return {"contract": {"id": "C-7", "signed_on": signed, "historical_share": hshare,
                         "historical_payment": "cash", "modality": "II", "other_share": oshare,
                         "fixed_amount": None, "salvage_award": None, "winner_is_surveyor": True,
                         "survey_costs": [], "tolerance": "0.01"},
            "items": [{"id": "A-1", "historical": True, "value": "50000.00", "significance": 2, "must_keep": False,
                       "lock": None},
                      {"id": "B-1", "historical": False, "value": "10000.00", "significance": 0, "must_keep": False,
                       "lock": None}]}


# (name, doc, exit, law_text or the field named on stderr)
CLI_CASES = [
    ("1999, null reward, 85 %", _doc("1999-03-01", None, "0.85"), 0, "original"),
    ("1999, reward 0, 85 %", _doc("1999-03-01", "0", "0.85"), 0, "original"),
    ("1999, reward 10 %", _doc("1999-03-01", "0.10", "0.50"), 2, "contract.historical_share"),
    ("2000-12-28, 85 %", _doc("2000-12-28", "0.40", "0.85"), 2, "contract.other_share"),
    ("absent: amended", {**_doc(None, "0.40", "0.70"),
                         "contract": {k: v for k, v in _doc(None, "0.40", "0.70")["contract"].items()
                                      if k != "signed_on"}}, 0, "amended"),
    ("a bad date", _doc("1999-02-30", None, "0.50"), 2, "contract.signed_on"),
]


@pytest.mark.parametrize("name, doc, code, word", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli(name, doc, code, word, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "case.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["compute", "partition", "--input", str(path)]) == code
    out, err = capsys.readouterr()
    if code:
        assert out == "" and err.startswith(f"{word}: ") and "Traceback" not in err
        return
    got = json.loads(out)
    assert got["law_text"] == word and got["signed_on"] == doc["contract"].get("signed_on")
    if word == "original":
        assert (got["historical_reward"], got["cash_balance"], got["other_payment"]) == ("0.00", "0.00", "8500.00")


# -- the store: the terms' caps and the statement -----------------------------------------------------------------
def _sign(world: Any, code: str, day: date) -> None:
    world.store.write("test", lambda tx: tx.execute("UPDATE contracts SET signed_on = ? WHERE code = ?", [day, code]))


def test_store_caps_and_statement_follow_the_contracts_date(small_world):
    dpc = small_world.principal("dpc")
    _sign(small_world, "A-1", D(1998, 6, 15))
    with pytest.raises(InputError) as err:   # the original art. 20 pays no reward
        terms.set_contract_terms(small_world.store, dpc, "A-1", {"modality": "II", "historical_share": "0.10",
                                                                 "historical_payment": "cash", "other_share": "0.80"})
    assert [p.path for p in err.value.problems] == ["historical_share"]
    assert "redação original do art. 20" in str(err.value)
    terms.set_contract_terms(small_world.store, dpc, "A-1", {"modality": "II", "other_share": "0.80"})
    c = contracts.get_contract(small_world.store, dpc, "A-1")
    assert (c["other_share"], c["historical_share"]) == (Decimal("0.8000"), None)
    assert small_world.store.fetch_one("SELECT other_share, other_share_original FROM contracts WHERE code = 'A-1'") \
        == {"other_share": None, "other_share_original": Decimal("0.8000")}
    data = statements.compute_statement(small_world.store, dpc, "A-1", as_of=D(2026, 11, 30))
    assert data.result.law_text == "original" and data.terms["law_text"] == "original"
    assert "15/06/1998" in data.terms["law_text_line"]
    reward = next(ln for ln in data.lines if ln.key == "historical_reward")
    assert reward.amount == Decimal("0.00") and "redação original" in reward.basis
    # the same contract signed after Lei 10.166/2000: 80 % is over the cap
    _sign(small_world, "A-1", D(2001, 3, 1))
    with pytest.raises(InputError) as err:
        terms.set_contract_terms(small_world.store, dpc, "A-1", {"modality": "II", "other_share": "0.75"})
    assert [p.path for p in err.value.problems] == ["other_share"]


def test_terms_page_states_the_contracts_text(full_demo_db):
    at = page_as(full_demo_db, first_user(full_demo_db, "dpc"), "contract_terms")
    next(s for s in at.selectbox if s.label == "Contrato").set_value("DPC-EX-1998/02").run()
    captions = " ".join(str(c.value) for c in at.caption)
    assert "Redação original dos arts. 20 e 21" in captions and "15/06/1998" in captions
    assert "80,00 %" in " ".join(str(m.value) for m in at.metric)
    modality = next(s for s in at.selectbox if s.label == terms.FIELD_LABELS["modality"])
    assert "II — soma proporcional ao valor dos bens (redação original, sem o limite de 70 %)" in modality.options
    next(s for s in at.selectbox if s.label == "Contrato").set_value("DPC-EX-2021/02").run()
    assert "redação da Lei 10.166/2000" in " ".join(str(c.value) for c in at.caption)
