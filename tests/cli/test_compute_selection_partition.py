"""`python -m valuation compute selection|partition` end to end (cli.md)."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from decimal import Decimal as D
from pathlib import Path

import pytest

EXAMPLES = Path("/work/shared/spec/examples")
AMOUNT = re.compile(r"^-?\d+\.\d{2}$")


def run_cli(tmp_path: Path, kind: str, doc, *, stdin: bool = False) -> subprocess.CompletedProcess:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    if stdin:
        return subprocess.run([sys.executable, "-m", "valuation", "compute", kind, "--input", "-"],
                              input=text, capture_output=True, text=True, timeout=120)
    path = tmp_path / "case.json"
    path.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "valuation", "compute", kind, "--input", str(path)],
                          capture_output=True, text=True, timeout=120)


def ok(p: subprocess.CompletedProcess) -> dict:
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    return json.loads(p.stdout)


def bad(p: subprocess.CompletedProcess) -> list[str]:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    return p.stderr.strip().splitlines()


SELECTION = {"target": "1000.00", "tolerance": "0.01", "items": [
    {"id": "B-1", "value": "600.00", "significance": 5, "must_keep": False, "lock": None},
    {"id": "B-2", "value": "400.00", "significance": 1, "must_keep": False, "lock": None},
    {"id": "B-3", "value": "395.00", "significance": 1, "must_keep": False, "lock": None},
    {"id": "B-4", "value": "205.00", "significance": 1, "must_keep": False, "lock": None},
    {"id": "B-5", "value": "990.00", "significance": 2, "must_keep": True, "lock": None}]}

PARTITION = {"contract": {"id": "C-1", "historical_share": "0.40",
                          "historical_payment": "adjudication_with_cash_balance", "modality": "II",
                          "other_share": "0.55", "fixed_amount": None, "salvage_award": None,
                          "winner_is_surveyor": False,
                          "survey_costs": [{"line": "vessel", "planned": "10000.00", "actual": "12000.00",
                                            "approved_overrun": "500.00"},
                                           {"line": "sonar", "planned": "3000.00", "actual": "2500.00",
                                            "approved_overrun": "0"}],
                          "tolerance": "0.01"},
             "items": [{"id": "H-1", "historical": True, "value": "50000.00", "significance": 5,
                        "must_keep": False, "lock": None},
                       {"id": "H-2", "historical": True, "value": "30000.00", "significance": 2,
                        "must_keep": False, "lock": None},
                       {"id": "H-3", "historical": True, "value": "20000.00", "significance": 1,
                        "must_keep": False, "lock": None},
                       {"id": "O-1", "historical": False, "value": "8000.00", "significance": 0,
                        "must_keep": False, "lock": None},
                       {"id": "O-2", "historical": False, "value": "2000.55", "significance": 0,
                        "must_keep": False, "lock": None}]}


def test_selection_output_contract(tmp_path):
    out = ok(run_cli(tmp_path, "selection", SELECTION))
    assert sorted(out["selected"]) == ["B-2", "B-3", "B-4"]
    assert out["selected_value"] == "1000.00" and out["residual"] == "0.00"
    assert out["significance_handed"] == 3 and out["status"] == "optimal"
    assert isinstance(out["gap"], (int, float)) and out["gap"] == 0
    assert out["basis"]


def test_selection_from_stdin_and_residual(tmp_path):
    doc = copy.deepcopy(SELECTION)
    doc["target"] = "999.99"
    out = ok(run_cli(tmp_path, "selection", doc, stdin=True))
    assert D(out["selected_value"]) <= D("999.99")
    assert D(out["residual"]) == D("999.99") - D(out["selected_value"])
    assert AMOUNT.match(out["selected_value"]) and AMOUNT.match(out["residual"])


def test_selection_infeasible_locks(tmp_path):
    doc = copy.deepcopy(SELECTION)
    doc["items"][0]["lock"] = "give"
    doc["items"][1]["lock"] = "give"
    doc["items"][3]["lock"] = "give"     # 1 205 locked in > 1 000
    out = ok(run_cli(tmp_path, "selection", doc))
    assert out["status"] == "infeasible" and out["selected"] == []
    doc = copy.deepcopy(SELECTION)
    doc["items"][4]["lock"] = "give"     # must keep and locked give
    out = ok(run_cli(tmp_path, "selection", doc))
    assert out["status"] == "infeasible" and "B-5" in out["message"]


def test_selection_bad_input_names_every_problem(tmp_path):
    doc = copy.deepcopy(SELECTION)
    doc["items"][0]["x"] = 1
    doc["items"][1]["value"] = "-1.00"
    doc["items"][2]["significance"] = 6
    doc["items"][3]["lock"] = "maybe"
    doc["items"][4]["value"] = "1.005"
    doc["extra"] = True
    del doc["target"]
    assert set(bad(run_cli(tmp_path, "selection", doc))) == {
        "items[0].x: unknown field",
        "items[1].value: must be a non-negative decimal",
        "items[2].significance: must be at most 5",
        "items[3].lock: must be one of give, keep",
        "items[4].value: must have at most 2 decimal places",
        "extra: unknown field",
        "target: is required",
    }


def test_selection_duplicate_ids_and_types(tmp_path):
    doc = copy.deepcopy(SELECTION)
    doc["items"][3]["id"] = "B-1"
    doc["items"][2]["significance"] = "3"
    doc["tolerance"] = 0.01
    assert set(bad(run_cli(tmp_path, "selection", doc))) == {
        "items[3].id: duplicate id 'B-1' (also items[0])",
        "items[2].significance: must be an integer",
        "tolerance: must be a non-negative decimal",
    }


def test_partition_output_contract(tmp_path):
    out = ok(run_cli(tmp_path, "partition", PARTITION))
    for key in ("historical_total", "historical_reward", "adjudicated_value", "cash_balance", "unpaid_residual",
                "other_total", "other_payment", "gross", "survey_deduction", "survey_uncovered", "net",
                "survey_accepted_total"):
        assert AMOUNT.match(out[key]), key
    assert out["historical_reward"] == "40000.00" and out["other_payment"] == "5500.30"
    assert out["adjudicated"] == ["H-2"] and out["cash_balance"] == "10000.00"
    assert out["survey_accepted_total"] == "13000.00"
    assert [ln["accepted"] for ln in out["survey_lines"]] == ["10500.00", "2500.00"]
    assert [ln["variance"] for ln in out["survey_lines"]] == ["2000.00", "-500.00"]
    assert out["net"] == "32500.30"
    assert out["other_adjudicated"] == []
    assert out["basis"] and all(b["article"] for b in out["basis"])


def test_partition_modality_III_and_cancellation(tmp_path):
    doc = copy.deepcopy(PARTITION)
    doc["contract"]["modality"] = "III"
    out = ok(run_cli(tmp_path, "partition", doc))
    assert out["other_adjudicated"] == ["O-2"] and out["other_payment"] == "2000.55"   # best ≤ 5 500.30
    doc["contract"].update(cancelled=True, compensation_share="0.25")
    out = ok(run_cli(tmp_path, "partition", doc))
    assert out["historical_reward"] == "0.00" and out["adjudicated"] == []
    assert out["other_adjudicated"] == ["O-2"] and out["gross"] == "2000.55"
    assert out["cancelled"] is True


def test_partition_public_error_example(tmp_path):
    case = json.loads((EXAMPLES / "error-share-over-cap.json").read_text()) \
        if (EXAMPLES / "error-share-over-cap.json").exists() else None
    doc = case["input"] if case else {"contract": {"id": "C-2", "historical_share": "0.41",
                                                   "historical_payment": "cash", "modality": "I",
                                                   "fixed_amount": "100.00"}, "items": []}
    assert bad(run_cli(tmp_path, "partition", doc)) == [
        "contract.historical_share: must not exceed 0.40 (Lei 7.542 art. 20 §2)"]


@pytest.mark.parametrize("contract,line", [
    ({"other_share": "0.71", "color": "red", "historical_share": 0.4},
     {"contract.other_share: must not exceed 0.70 (Lei 7.542 art. 21 II e III)",
      "contract.color: unknown field", "contract.historical_share: must be a non-negative decimal"}),
    ({"modality": "III", "other_share": None}, {"contract.other_share: is required for modality III"}),
    ({"modality": "I"}, {"contract.fixed_amount: is required for modality I"}),
    ({"modality": "IV"}, {"contract.salvage_award: is required for modality IV"}),
])
def test_partition_bad_contract(tmp_path, contract, line):
    doc = copy.deepcopy(PARTITION)
    doc["contract"].update(contract)
    assert set(bad(run_cli(tmp_path, "partition", doc))) == line


def test_partition_bad_items(tmp_path):
    doc = copy.deepcopy(PARTITION)
    doc["items"][4]["id"] = "O-1"
    doc["items"][0]["significance"] = 1.5
    del doc["items"][1]["historical"]
    lines = bad(run_cli(tmp_path, "partition", doc))
    assert "items[4].id: duplicate id 'O-1' (also items[3])" in lines
    assert "items[0].significance: must be an integer" in lines
    assert "items[1].historical: is required" in lines


def test_partition_locks_exceeding_reward(tmp_path):
    doc = copy.deepcopy(PARTITION)
    doc["items"][0]["lock"] = "give"
    lines = bad(run_cli(tmp_path, "partition", doc))
    assert lines and lines[0].startswith("items[0].lock: items locked give exceed the historical reward")


def test_malformed_json(tmp_path):
    assert bad(run_cli(tmp_path, "partition", "{not json"))
