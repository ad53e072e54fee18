"""`python -m valuation compute deadline|domain-status` run as a subprocess (cli.md)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

EXAMPLES = Path("/work/shared/spec/examples")
RJ = {"state": "RJ", "local_holidays": []}
# every field of domain-status is required (cli.md); the two dates may be null
DOM = {"as_of": "2025-06-30", "casualty_date": "2020-01-01", "hull": "steel", "owner_declared_lost": None,
       "owner_licence_requested": None, "suspensions": []}


def dom(**changes) -> dict:
    doc = {**DOM, **changes}
    return {k: v for k, v in doc.items() if v != "<absent>"}


_RUNS: dict[tuple[str, str], subprocess.CompletedProcess] = {}


def _raw(doc) -> str:
    return doc if isinstance(doc, str) else json.dumps(doc, sort_keys=True)


def _run(kind: str, raw: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "valuation", "compute", kind, "--input", "-"],
                          input=raw, capture_output=True, text=True, timeout=60)


def compute(kind: str, doc) -> subprocess.CompletedProcess:
    key = (kind, _raw(doc))
    if key not in _RUNS:
        _RUNS[key] = _run(*key)
    return _RUNS[key]


@pytest.fixture(scope="module", autouse=True)
def _run_cases_in_parallel():
    """Each run starts a Python process; run the parametrized cases concurrently up front."""
    keys = list(dict.fromkeys((k, _raw(d)) for k, d in _PARALLEL))
    with ThreadPoolExecutor(max_workers=min(8, (os.cpu_count() or 2) * 2)) as pool:
        for key, proc in zip(keys, pool.map(lambda k: _run(*k), keys)):
            _RUNS[key] = proc
    yield


def ok(kind: str, doc) -> dict:
    p = compute(kind, doc)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return json.loads(p.stdout)


def bad(kind: str, doc) -> list[str]:
    p = compute(kind, doc)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert lines
    return lines


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="public examples not available")
@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("deadline-*.json")) + sorted(EXAMPLES.glob("domain-*.json"))
                         + sorted(EXAMPLES.glob("reclaim-*.json")), ids=lambda p: p.stem)
def test_public_examples(path):
    case = json.loads(path.read_text())
    got = ok(case["kind"], case["input"])
    for key, value in case["expect"].items():
        assert got[key] == value, key
    assert got["basis"]
    assert "Traceback" not in compute(case["kind"], case["input"]).stderr


def test_deadline_output_shape_and_office_forms():
    got = ok("deadline", {"rule": "final_report", "work_ended": "2025-05-10",
                          "office": {"state": "RJ", "local_holidays": ["2025-08-08"]}})
    assert (got["due"], got["moved_from"], got["rule"]) == ("2025-08-11", "2025-08-08", "final_report")
    assert got["basis"] and isinstance(got["steps"], list) and got["steps"]
    got = ok("deadline", {"rule": "final_report", "work_ended": "2025-05-10",
                          "office": {"state": "rj", "local_holidays": [{"date": "2025-08-08", "name": "Padroeira"}]}})
    assert got["due"] == "2025-08-11" and any("Padroeira" in s for s in got["steps"])
    # office is optional: no state holidays
    got = ok("deadline", {"rule": "preference_notice", "published": "2025-04-08"})
    assert (got["due"], got["moved_from"]) == ("2025-04-23", None)
    got = ok("deadline", {"rule": "preference_notice", "published": "2025-04-08", "office": RJ})
    assert (got["due"], got["moved_from"]) == ("2025-04-24", "2025-04-23")


RULE_CASES = [
    ({"rule": "monthly_report", "period": "2025-02"}, "2025-03-18", None),
    ({"rule": "extension_request", "expires": "2025-10-01"}, "2025-08-01", "2025-08-02"),
    ({"rule": "tourism_notice", "excursion": "2025-04-28"}, "2025-04-09", None),
    # substantive law (Lei 810/1949 art. 3; CC art. 132 §3): no 31/02/2025 → 01/03 (Saturday) → past Carnival 03–04/03
    ({"rule": "found_proceeds", "sold": "2024-08-31"}, "2025-03-05", "2025-03-01"),
    ({"rule": "five_year_lapse", "casualty_date": "2020-02-29", "suspensions": []}, "2025-03-05", "2025-03-01"),
    ({"rule": "owner_balance", "casualty_date": "2020-02-29"}, "2025-03-05", "2025-03-01"),
    ({"rule": "court_inquiry_opening", "known": "2026-02-09"}, "2026-02-18", "2026-02-14"),
    ({"rule": "five_year_lapse", "casualty_date": "2019-03-12",
      "suspensions": [{"start": "2020-01-01", "end": "2020-01-10"}, {"start": "2020-01-05", "end": "2020-01-20"},
                      {"start": "2020-01-21", "end": "2020-01-25", "reason": "remoção iniciada"}]},
     "2024-04-08", "2024-04-06"),
]


@pytest.mark.parametrize("doc, due, moved_from", RULE_CASES)
def test_deadline_rules(doc, due, moved_from):
    got = ok("deadline", {**doc, "office": RJ})
    assert (got["due"], got["moved_from"]) == (due, moved_from)


def test_deadline_window_and_state():
    got = ok("deadline", {"rule": "court_private_representation", "occurred": "2025-01-12", "as_of": "2025-07-30"})
    assert (got["start"], got["end"], got["due"]) == ("2025-07-12", "2025-08-11", "2025-08-11")
    assert got["state"] == "due_soon"


def test_domain_status_lapse():
    got = ok("domain-status", dom(casualty_date="2019-03-09", office=RJ))
    assert (got["owner"], got["since"], got["lapse_due"]) == ("union", "2024-03-12", "2024-03-11")
    assert got["basis"] and got["steps"] and got["lapse_suspended"] is False
    got = ok("domain-status", dom(casualty_date="2019-03-09", owner_licence_requested="2024-03-11"))
    assert (got["owner"], got["since"]) == ("private", None)
    got = ok("domain-status", dom(casualty_date="1500-06-01", hull="wood"))
    assert (got["owner"], got["since"]) == ("union", "1987-09-30")


def test_domain_status_of_a_casualty_on_29_february():
    """Five years from 29/02/2020 end on 01/03/2025 (Lei 810/1949 art. 3), moved past Carnival to 05/03/2025: the
    owner may still ask on 05/03; the União acquires on 06/03/2025."""
    got = ok("domain-status", dom(casualty_date="2020-02-29", as_of="2025-03-05", office=RJ))
    assert (got["owner"], got["since"], got["lapse_due"]) == ("private", None, "2025-03-05")
    got = ok("domain-status", dom(casualty_date="2020-02-29", as_of="2025-03-06", office=RJ))
    assert (got["owner"], got["since"], got["lapse_due"]) == ("union", "2025-03-06", "2025-03-05")


def test_domain_status_earliest_event_wins():
    """Issue 15.1: lost 2015-01-10, declared lost 2022-03-01: the lapse gave it to the União on
    2020-01-11 (arts. 6 and 7); the later declaration (art. 3 I) changes nothing."""
    got = ok("domain-status", dom(casualty_date="2015-01-10", owner_declared_lost="2022-03-01"))
    assert (got["owner"], got["since"], got["lapse_due"]) == ("union", "2020-01-11", "2020-01-10")
    got = ok("domain-status", dom(casualty_date="2015-01-10", owner_declared_lost="2018-03-01"))
    assert (got["owner"], got["since"]) == ("union", "2018-03-01")


def test_domain_status_open_suspension_keeps_it_private():
    """Issue 15.3: a suspension with no end stops the clock (art. 6 sole paragraph)."""
    got = ok("domain-status", dom(casualty_date="2015-01-10", suspensions=[{"start": "2019-06-01", "end": None}]))
    assert (got["owner"], got["since"], got["lapse_due"], got["lapse_suspended"]) == ("private", None, None, True)
    got = ok("deadline", {"rule": "five_year_lapse", "casualty_date": "2015-01-10",
                          "suspensions": [{"start": "2019-06-01", "end": None}], "as_of": "2025-06-30"})
    assert (got["due"], got["moved_from"], got["state"]) == (None, None, "suspended")


def test_deadline_appeal_rules():
    assert ok("deadline", {"rule": "appeal_decision", "received": "2025-03-10", "office": RJ})["due"] == "2025-04-09"
    got = ok("deadline", {"rule": "appeal_decision", "received": "2025-03-10", "extended": True, "office": RJ})
    assert got["due"] == "2025-05-09" and "59 §1" in got["basis"]
    got = ok("deadline", {"rule": "owner_balance", "casualty_date": "2019-03-09", "office": RJ})
    assert (got["due"], got["moved_from"]) == ("2024-03-11", "2024-03-09")


BAD_CASES = [
    ("deadline", {"rule": "final_report", "work_ended": "2025-05-10", "foo": 1}, ["foo: unknown field"]),
    ("deadline", {"rule": "final_report", "work_ended": "2025-05-10", "office": {"state": "XX"}},
     ["office.state: must be a Brazilian state code (UF), e.g. RJ"]),
    ("deadline", {"rule": "final_report", "work_ended": "2025-05-10", "office": {"state": "RJ", "city": "Rio"}},
     ["office.city: unknown field"]),
    ("deadline", {"rule": "final_reprot", "work_ended": "2025-05-10"}, ["rule: must be one of"]),
    ("deadline", {"work_ended": "2025-05-10"}, ["rule: is required"]),
    ("deadline", {"rule": "final_report"}, ["work_ended: is required"]),
    ("deadline", {"rule": "final_report", "work_ended": "2025-02-30"}, ["work_ended: is not a real date"]),
    ("deadline", {"rule": "final_report", "work_ended": "10/05/2025"}, ["work_ended: must be a date YYYY-MM-DD"]),
    ("deadline", {"rule": "final_report", "work_ended": "9999-12-20"}, ["work_ended: gives a date outside"]),
    ("deadline", {"rule": "monthly_report", "period": "2025-13"}, ["period: is not a real month"]),
    ("deadline", {"rule": "wreck_map", "year": "2025"}, ["year: must be an integer"]),
    ("deadline", {"rule": "final_report", "work_ended": "2025-05-10",
                  "office": {"local_holidays": ["2025-08-08", "8 Aug", {"date": "2025-08-09", "when": 1}]}},
     ["office.local_holidays[1]: must be a date", "office.local_holidays[2].when: unknown field"]),
    ("deadline", {"rule": "five_year_lapse", "casualty_date": "2019-03-12",
                  "suspensions": [{"start": "2020-02-01", "end": "2020-01-01"},
                                  {"start": "2019-01-01", "end": "2019-12-31"}]},
     ["suspensions[0].end: must not be before start", "suspensions[1].start: must not be before casualty_date"]),
    ("deadline", {"rule": "final_report", "work_ended": "2025-05-10", "suspensions": []},
     ["suspensions: unknown field"]),
    ("deadline", "[1, 2]", ["input must be a JSON object"]),
    ("deadline", '{"rule": "final_report", ', ["malformed JSON"]),
    ("domain-status", dom(casualty_date="2026-01-01", hull="wood"), ["casualty_date: must not be after as_of"]),
    ("domain-status", dom(hull=""), ["hull: must be one of wood, steel, other"]),
    ("domain-status", dom(hull="timber"), ["hull: must be one of wood, steel, other"]),
    ("domain-status", dom(hull="madeira"), ["hull: must be one of wood, steel, other"]),
    ("domain-status", dom(owner="x"), ["owner: unknown field"]),
    ("domain-status", dom(as_of="<absent>"), ["as_of: is required"]),
    ("domain-status", dom(hull="<absent>"), ["hull: is required"]),
    ("domain-status", dom(owner_declared_lost="<absent>"), ["owner_declared_lost: is required"]),
    ("domain-status", dom(owner_licence_requested="<absent>"), ["owner_licence_requested: is required"]),
    ("domain-status", dom(suspensions="<absent>"), ["suspensions: is required"]),
    ("domain-status", dom(suspensions=[{"start": "2019-12-01", "end": "2020-01-10"}]),
     ["suspensions[0].start: must not be before casualty_date"]),
    ("domain-status", dom(suspensions=[{"start": "2021-12-01"}]), ["suspensions[0].end: is required"]),
    ("domain-status", dom(owner_declared_lost="2019-01-01"), ["owner_declared_lost: must not be before casualty_date"]),
    ("domain-status", dom(office={"state": "Rio"}), ["office.state: must be a Brazilian state code"]),
    ("domain-status", dom(as_of="２０２５-06-30"), ["as_of: must be a date YYYY-MM-DD"]),
    ("domain-status", dom(as_of="٢٠٢٥-06-30"), ["as_of: must be a date YYYY-MM-DD"]),
    ("deadline", {"rule": "five_year_lapse", "casualty_date": "2019-03-12"}, ["suspensions: is required"]),
    ("deadline", {"rule": "appeal"}, ["notified: is required"]),
    ("deadline", {"rule": "appeal_decision", "received": "2025-03-10", "extended": "yes"},
     ["extended: must be true or false"]),
    ("deadline", {"rule": "final_report", "work_ended": "2025-05-10\n"}, ["work_ended: must be a date YYYY-MM-DD"]),
    ("deadline", {"rule": "final_report", "work_ended": "2025-05-10", "office": {"early_closing": ["24/12"]}},
     ["office.early_closing[0]: must be a date"]),
]
_PARALLEL = [(k, d) for k, d, _ in BAD_CASES] + [("deadline", {**d, "office": RJ}) for d, _, _ in RULE_CASES]


@pytest.mark.parametrize("kind, doc, expected", BAD_CASES)
def test_bad_input_exit_2_with_paths(kind, doc, expected):
    lines = bad(kind, doc)
    assert len(lines) == len(expected), lines
    for line, want in zip(lines, expected):
        assert line.startswith(want), (line, want)
