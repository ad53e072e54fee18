"""`python -m valuation compute consensus` end to end (cli.md, consensus)."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

EXAMPLE = Path("/work/shared/spec/examples/consensus-basic.json")


def run_cli(tmp_path: Path, doc) -> subprocess.CompletedProcess:
    path = tmp_path / "case.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "valuation", "compute", "consensus", "--input", str(path)],
                          capture_output=True, text=True, timeout=60)


def base_case() -> dict:
    return {
        "members": [{"id": "n1", "body": "navy", "president": True}, {"id": "n2", "body": "navy"},
                    {"id": "n3", "body": "navy"}, {"id": "c1", "body": "culture"},
                    {"id": "c2", "body": "culture"}, {"id": "c3", "body": "culture"}],
        "rates": [{"currency": "USD", "date": "2025-03-10", "brl": "5.0000"},
                  {"currency": "USD", "date": "2025-03-14", "brl": "6.0000"}],
        "items": [{"id": "A-1",
                   "votes": {"n1": True, "n2": False, "n3": None, "c1": True, "c2": False, "c3": False},
                   "values": [{"member": "n1", "amount": "100.00", "currency": "USD", "date": "2025-03-12"},
                              {"member": "c1", "amount": "400.00", "currency": "BRL", "date": "2025-03-12"},
                              {"member": "c2", "amount": "900.00", "currency": "BRL", "date": "2025-03-12"}]}],
    }


@pytest.mark.skipif(not EXAMPLE.exists(), reason="public example not available")
def test_public_example(tmp_path):
    case = json.loads(EXAMPLE.read_text())
    p = run_cli(tmp_path, case["input"])
    assert p.returncode == 0, p.stderr
    got = {i["id"]: i for i in json.loads(p.stdout)["items"]}
    for want in case["expect"]["items"]:
        g = got[want["id"]]
        for k in ("historical", "decided_by", "votes_for", "votes_against", "quorum_met", "flagged", "value_brl"):
            assert g[k] == want[k], k
        assert g["spread"] == pytest.approx(want["spread"], abs=1e-9)


def test_output_shape_defaults_and_rates(tmp_path):
    p = run_cli(tmp_path, base_case())  # no policy: median, quorum 4, threshold 0.5
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["basis"] and out["policy"] == {"method": "median", "quorum": 4, "spread_threshold": "0.5"}
    [it] = out["items"]
    # 2–3 with the president outvoted; 100 USD at the 03-10 rate (5.00), never 03-14's
    assert (it["historical"], it["decided_by"], it["votes_for"], it["votes_against"]) == (False, "majority", 2, 3)
    assert it["quorum_met"] is True
    assert it["value_brl"] == "500.00"          # median of 500, 400, 900
    assert it["spread"] == pytest.approx(1.0)   # (900 − 400) / 500
    assert it["flagged"] is True
    assert it["rates_used"] == [{"currency": "USD", "date": "2025-03-10", "brl": "5.0000"}]
    assert all(isinstance(b, str) and b for b in it["basis"])


@pytest.mark.parametrize("method, value", [("mean", "600.00"), ("trimmed_mean", "500.00")])
def test_policy_method(tmp_path, method, value):
    doc = base_case()
    doc["policy"] = {"method": method}
    p = run_cli(tmp_path, doc)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["items"][0]["value_brl"] == value


def test_no_quorum_still_values(tmp_path):
    doc = base_case()
    doc["policy"] = {"quorum": 6}
    p = run_cli(tmp_path, doc)
    it = json.loads(p.stdout)["items"][0]
    assert (it["historical"], it["decided_by"], it["quorum_met"]) == (None, "undecided", False)
    assert it["value_brl"] == "500.00"


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


def _edit(*path, value):
    return lambda d: _set(d, list(path), value)


def _append(*path, value):
    def f(d):
        target = d
        for key in path:
            target = target[key]
        target.append(value)
        return d
    return f


BAD_CASES = [
    ("price before any rate", _edit("items", 0, "values", 0, "date", value="2025-03-09"),
     "items[0].values[0].date: no USD rate on or before 2025-03-09"),
    ("unknown currency", _edit("items", 0, "values", 0, "currency", value="EUR"),
     "items[0].values[0].currency: unknown currency EUR"),
    ("lower-case currency", _edit("items", 0, "values", 0, "currency", value="usd"),
     "items[0].values[0].currency: must be a currency code"),
    ("impossible date", _edit("items", 0, "values", 1, "date", value="2025-02-29"),
     "items[0].values[1].date: is not a real date"),
    ("negative amount", _edit("items", 0, "values", 1, "amount", value="-1.00"),
     "items[0].values[1].amount: must be a non-negative decimal"),
    ("amount as a JSON number", _edit("items", 0, "values", 1, "amount", value=1.5),
     "items[0].values[1].amount: must be a non-negative decimal"),
    ("vote of an unknown member", _edit("items", 0, "votes", "x9", value=True),
     'items[0].votes.x9: unknown member "x9"'),
    ("value of an unknown member", _edit("items", 0, "values", 0, "member", value="x9"),
     'items[0].values[0].member: unknown member "x9"'),
    ("two values of one member", _edit("items", 0, "values", 2, "member", value="c1"),
     'items[0].values[2].member: duplicate value of member "c1"'),
    ("vote not a boolean", _edit("items", 0, "votes", "n2", value="no"),
     "items[0].votes.n2: must be true, false or null"),
    ("unknown field", _edit("items", 0, "weight", value=1), "items[0].weight: unknown field"),
    ("unknown policy field", _edit("policy", value={"method": "median", "rounds": 2}), "policy.rounds: unknown field"),
    ("unknown method", _edit("policy", value={"method": "mode"}), "policy.method: must be one of"),
    ("quorum zero", _edit("policy", value={"quorum": 0}), "policy.quorum: must be at least 1"),
    ("duplicate member id", _edit("members", 1, "id", value="n1"), 'members[1].id: duplicate member id "n1"'),
    ("two presidents", _edit("members", 1, "president", value=True),
     "members[1].president: at most one member may be president"),
    ("culture president", _edit("members", value=[{"id": "c1", "body": "culture", "president": True}]),
     "members[0].president: the president must be a navy member"),
    ("unknown body", _edit("members", 2, "body", value="army"), "members[2].body: must be one of navy, culture"),
    ("missing items", lambda d: {k: v for k, v in d.items() if k != "items"}, "items: is required"),
    ("zero rate", _edit("rates", 0, "brl", value="0"), "rates[0].brl: must be a positive decimal"),
    ("duplicate rate", _append("rates", value={"currency": "USD", "date": "2025-03-10", "brl": "5.1"}),
     "rates[2]: duplicate USD rate for 2025-03-10"),
    ("duplicate item id", lambda d: {**d, "items": d["items"] * 2}, 'items[1].id: duplicate item id "A-1"'),
]


@pytest.mark.parametrize("name, mutate, message", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_input(tmp_path, name, mutate, message):
    p = run_cli(tmp_path, mutate(copy.deepcopy(base_case())))
    assert p.returncode == 2, (name, p.stdout, p.stderr)
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    assert any(line.startswith(message) for line in p.stderr.splitlines()), p.stderr


def test_every_problem_reported_at_once(tmp_path):
    doc = base_case()
    doc["items"][0]["values"][0]["date"] = "2025-03-09"
    doc["items"][0]["values"][1]["amount"] = "-5"
    p = run_cli(tmp_path, doc)
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 2


@pytest.mark.parametrize("text", ["{", "[1, 2]", '{"members": NaN}'])
def test_malformed_json(tmp_path, text):
    p = run_cli(tmp_path, text)
    assert p.returncode == 2 and p.stdout == "" and p.stderr.strip() and "Traceback" not in p.stderr


def test_value_brl_has_two_decimals(tmp_path):
    doc = base_case()
    doc["items"][0]["values"] = [{"member": "n1", "amount": "0.1", "currency": "USD", "date": "2025-03-31"}]
    out = json.loads(run_cli(tmp_path, doc).stdout)["items"][0]
    assert out["value_brl"] == "0.60"           # 0.1 × 6.0000 at the 03-14 rate
    assert out["spread"] is None
    assert Decimal(out["value_brl"]) == Decimal("0.6")
