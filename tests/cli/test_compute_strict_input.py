"""Issue 15.9 — strict inputs of `python -m valuation compute KIND` (cli.md, the input rules at the top):
every field shown is required unless said nullable, enumerations take only their listed values,
numbers use ASCII digits, an amount beyond DECIMAL(18,2) is bad input naming the field (exit 2,
never an internal error), '-0.00' is never echoed as negative; and the panel's composition
(NORMAM-10 0303 c 1 I) and the salvage ceiling (Lei 7.542 art. 21 IV) as bad input.

Runs `valuation.cli.main` in-process (the same code path as the command, exit status and
streams included); a few cases also go through a real subprocess.
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from valuation.cli.main import main

EXAMPLES = Path("/work/shared/spec/examples")
pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="public examples not available")

BIG = "10000000000000000.00"        # 17 integer digits: one more than DECIMAL(18,2) holds
TOP = "9999999999999999.99"         # the largest DECIMAL(18,2)


def example(stem: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / f"{stem}.json").read_text(encoding="utf-8"))["input"]


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, doc: Any) -> tuple[int, str, str]:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    code = main(["compute", kind, "--input", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def edit(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A copy of `doc` with the value at `path` replaced (value "<absent>": removed)."""
    d = copy.deepcopy(doc)
    target = d
    for key in path[:-1]:
        target = target[key]
    if value == "<absent>":
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return d


def panel(navy: int, culture: int, president: str | None = "n1") -> list[dict[str, Any]]:
    members = [{"id": f"n{i}", "body": "navy"} for i in range(1, navy + 1)]
    members += [{"id": f"c{i}", "body": "culture"} for i in range(1, culture + 1)]
    for m in members:
        if m["id"] == president:
            m["president"] = True
    return members


# (name, kind, example, path, value, the stderr line it must start with)
BAD = [
    # every field shown is required
    ("selection item without must_keep", "selection", "selection-basic", ("items", 0, "must_keep"), "<absent>",
     "items[0].must_keep: is required"),
    ("selection item without significance", "selection", "selection-basic", ("items", 1, "significance"),
     "<absent>", "items[1].significance: is required"),
    ("selection item without lock (it may be null, not absent)", "selection", "selection-basic",
     ("items", 0, "lock"), "<absent>", "items[0].lock: is required"),
    ("partition without winner_is_surveyor", "partition", "partition-basic", ("contract", "winner_is_surveyor"),
     "<absent>", "contract.winner_is_surveyor: is required"),
    ("partition without survey_costs", "partition", "partition-basic", ("contract", "survey_costs"), "<absent>",
     "contract.survey_costs: is required"),
    ("partition without salvage_award (it may be null, not absent)", "partition", "partition-basic",
     ("contract", "salvage_award"), "<absent>", "contract.salvage_award: is required"),
    ("cost line without approved_overrun", "partition", "partition-basic",
     ("contract", "survey_costs", 0, "approved_overrun"), "<absent>",
     "contract.survey_costs[0].approved_overrun: is required"),
    ("partition item without historical", "partition", "partition-basic", ("items", 0, "historical"), "<absent>",
     "items[0].historical: is required"),
    ("consensus without rates", "consensus", "consensus-basic", ("rates",), "<absent>", "rates: is required"),
    ("reclaim without expenses_paid", "reclaim", "reclaim-basic", ("expenses_paid",), "<absent>",
     "expenses_paid: is required"),
    ("reclaim without insured_value (it may be null, not absent)", "reclaim", "reclaim-basic", ("insured_value",),
     "<absent>", "insured_value: is required"),
    ("reclaim with a null market value", "reclaim", "reclaim-basic", ("market_value",), None,
     "market_value: must not be null"),
    ("reclaim without expenses", "reclaim", "reclaim-basic", ("expenses",), "<absent>", "expenses: is required"),
    ("domain-status without suspensions", "domain-status", "domain-wooden-hull", ("suspensions",), "<absent>",
     "suspensions: is required"),
    # enumerations
    ("hull timber", "domain-status", "domain-wooden-hull", ("hull",), "timber",
     "hull: must be one of wood, steel, other"),
    ("hull in Portuguese", "domain-status", "domain-wooden-hull", ("hull",), "madeira",
     "hull: must be one of wood, steel, other"),
    ("lock in capitals", "selection", "selection-basic", ("items", 0, "lock"), "GIVE", "items[0].lock: must be one of"),
    # ASCII digits only
    ("full-width digits in an amount", "selection", "selection-basic", ("items", 0, "value"), "１２３.00",
     "items[0].value: must be a non-negative decimal"),
    ("Arabic-Indic digits in an amount", "selection", "selection-basic", ("target",), "١٢٣",
     "target: must be a non-negative decimal"),
    ("full-width digits in a date", "reclaim", "reclaim-basic", ("recovered",), "２０２５-03-10",
     "recovered: must be a date YYYY-MM-DD"),
    ("Arabic-Indic digits in a month", "deadline", "deadline-monthly-report", ("period",), "٢٠٢٥-03",
     "period: must be a month YYYY-MM"),
    ("full-width digits in a rate", "consensus", "consensus-basic", ("rates", 0, "brl"), "５.78",
     "rates[0].brl: must be a non-negative decimal"),
    ("a share with a trailing newline", "partition", "partition-basic", ("contract", "historical_share"), "0.40\n",
     "contract.historical_share: must be a non-negative decimal"),
    # beyond DECIMAL(18,2)
    ("selection target beyond DECIMAL(18,2)", "selection", "selection-basic", ("target",), BIG,
     "target: is too large"),
    ("item value beyond DECIMAL(18,2)", "partition", "partition-basic", ("items", 0, "value"), BIG,
     "items[0].value: is too large"),
    ("fixed amount beyond DECIMAL(18,2)", "partition", "partition-basic", ("contract", "fixed_amount"),
     "123456789012345678901234567890.12", "contract.fixed_amount: is too large"),
    ("planned cost beyond DECIMAL(18,2)", "partition", "partition-basic", ("contract", "survey_costs", 0, "planned"),
     BIG, "contract.survey_costs[0].planned: is too large"),
    ("member's value beyond DECIMAL(18,2)", "consensus", "consensus-basic", ("items", 0, "values", 0, "amount"), BIG,
     "items[0].values[0].amount: is too large"),
    ("reclaim expenses beyond DECIMAL(18,2)", "reclaim", "reclaim-basic", ("expenses",), BIG,
     "expenses: is too large"),
    ("a 5000-digit share", "partition", "partition-basic", ("contract", "other_share"), "0." + "1" * 5000,
     "contract.other_share: is out of range"),
    # panel composition (NORMAM-10 0303 c 1 I)
    ("four navy members", "consensus", "consensus-basic", ("members",), panel(4, 2),
     "members[3].body: more than 3 members of body navy"),
    ("four culture members", "consensus", "consensus-basic", ("members",), panel(2, 4),
     "members[5].body: more than 3 members of body culture"),
    ("a culture president", "consensus", "consensus-basic", ("members",), panel(3, 3, "c1"),
     "members[3].president: the president must be a navy member"),
    ("quorum above the members", "consensus", "consensus-basic", ("policy", "quorum"), 7,
     "policy.quorum: must not exceed the number of members (6)"),
    ("quorum below 1", "consensus", "consensus-basic", ("policy", "quorum"), 0, "policy.quorum: must be at least 1"),
    # modality IV (Lei 7.542 art. 21 IV)
    ("salvage award above other_total", "partition", "partition-basic", ("contract",),
     {**example("partition-basic")["contract"], "modality": "IV", "other_share": None, "salvage_award": "10000.56"},
     "contract.salvage_award: must not exceed other_total 10000.55"),
]


@pytest.mark.parametrize("name, kind, stem, path, value, message", BAD, ids=[c[0] for c in BAD])
def test_bad_input_is_exit_2_naming_the_field(tmp_path, capsys, name, kind, stem, path, value, message):
    code, out, err = run(tmp_path, capsys, kind, edit(example(stem), path, value))
    assert code == 2, (name, out, err)
    assert out == "" and "Traceback" not in err and "internal error" not in err
    assert any(line.startswith(message) for line in err.splitlines()), err


def test_the_two_presidents_are_named(tmp_path, capsys):
    members = panel(3, 3)
    members[1]["president"] = True
    code, _, err = run(tmp_path, capsys, "consensus", edit(example("consensus-basic"), ("members",), members))
    assert code == 2 and "members[1].president: at most one member may be president (already members[0])" in err


def test_default_quorum_above_a_small_panel(tmp_path, capsys):
    doc = edit(example("consensus-basic"), ("policy",), "<absent>")
    doc["members"] = panel(1, 1)
    for item in doc["items"]:
        item["votes"] = {k: v for k, v in item["votes"].items() if k in ("n1", "c1")}
        item["values"] = [v for v in item["values"] if v["member"] in ("n1", "c1")]
    code, _, err = run(tmp_path, capsys, "consensus", doc)
    assert code == 2 and "policy.quorum: must not exceed the number of members (2); the default quorum is 4" in err
    doc["policy"] = {"quorum": 2}
    code, out, _ = run(tmp_path, capsys, "consensus", doc)
    assert code == 0 and json.loads(out)["items"]


@pytest.mark.parametrize("kind, stem, path, value", [
    ("reclaim", "reclaim-basic", ("expenses",), TOP),
    ("partition", "partition-basic", ("contract", "fixed_amount"), TOP),
])
def test_the_largest_decimal_18_2_is_accepted(tmp_path, capsys, kind, stem, path, value):
    code, out, err = run(tmp_path, capsys, kind, edit(example(stem), path, value))
    assert code == 0, err
    assert json.loads(out)


def test_a_selection_beyond_the_exact_solver_is_refused_plainly(tmp_path, capsys):
    """The exact selection works in whole cents below 2**53 (about R$ 90 trillion in all): a
    target of 9999999999999999.99 is a valid amount but refused as bad input, never an error."""
    code, out, err = run(tmp_path, capsys, "selection", edit(example("selection-basic"), ("target",), TOP))
    assert (code, out) == (2, "") and err.startswith("items: amounts too large for exact selection")


def test_nullable_fields_take_null(tmp_path, capsys):
    doc = edit(example("reclaim-basic"), ("invoice_value",), None)
    code, out, _ = run(tmp_path, capsys, "reclaim", doc)
    assert code == 0 and json.loads(out)["value_basis"] == "market"
    code, out, _ = run(tmp_path, capsys, "selection", edit(example("selection-basic"), ("tolerance",), "<absent>"))
    assert code == 0  # a policy setting takes its default when absent


def test_negative_zero_is_never_echoed(tmp_path, capsys):
    doc = {"target": "-0.00", "tolerance": "0.01",
           "items": [{"id": "Z", "value": "-0.00", "significance": 1, "must_keep": False, "lock": None}]}
    code, out, err = run(tmp_path, capsys, "selection", doc)
    assert code == 0, err
    got = json.loads(out)
    assert (got["target"], got["selected_value"], got["residual"]) == ("0.00", "0.00", "0.00")
    assert '"-0' not in out
    doc = edit(example("reclaim-basic"), ("expenses",), "-0.00")
    doc["market_value"] = "-0.00"
    doc["invoice_value"] = None
    code, out, err = run(tmp_path, capsys, "reclaim", doc)
    assert code == 0, err
    assert '"-0' not in out and json.loads(out)["price"] == "0.00"


def test_through_the_real_command():
    """A bad amount and a full-width digit through a real process: exit 2, plain stderr."""
    doc = edit(example("selection-basic"), ("items", 0, "value"), BIG)
    doc["items"][1]["value"] = "１２３.00"
    p = subprocess.run([sys.executable, "-m", "valuation", "compute", "selection", "--input", "-"],
                       input=json.dumps(doc, ensure_ascii=False), capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.splitlines() == ["items[0].value: is too large (at most 9999999999999999.99, DECIMAL(18,2))",
                                     "items[1].value: must be a non-negative decimal"]
