"""The deadline benchmark file's requests (issue 28; bench/generate.py `build_deadlines`): the generated contracts'
requests, their steps, the appealed decisions and their NUPs are rows the app accepts — every step one
`record_step` / `record_appeal_step` would have recorded (`periods.step_problem`, `appeals.step_problem`), no
day after today, every row sealed — and the app's readers see them: pending and decided ones, the Authority's
deadlines overdue and due soon, the parties' too, the appeals'."""
from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

import pytest

from bench import generate as gen
from valuation.db import seals
from valuation.db.store import Store
from valuation.deadlines.calendars import office_calendars
from valuation.proceedings import appeal_records, requests
from valuation.proceedings import appeals as ap
from valuation.proceedings import periods as pr

CONTRACTS = 400


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, full_demo_db: Path) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("deadlines") / "deadlines.duckdb"
    counts = gen.build_deadlines(str(path), CONTRACTS, template=str(full_demo_db))
    return path, counts


@pytest.fixture
def store(built: tuple[Path, dict[str, int]]):
    with Store(built[0]) as s:
        yield s


def test_the_counts_returned_are_the_rows_written(built, store):
    _, counts = built
    demo = int(store.scalar("SELECT count(*) FROM requests WHERE note NOT LIKE 'Requerimento gerado%'"))
    assert counts["requests"] == int(store.scalar("SELECT count(*) FROM requests")) - demo
    assert 0.7 * CONTRACTS <= counts["requests"] <= 1.3 * CONTRACTS          # about one per contract
    assert counts["requests_decided"] + counts["requests_pending"] == counts["requests"]
    assert counts["requests_decided"] > counts["requests_pending"] > 0.05 * counts["requests"]   # most decided
    assert counts["request_steps"] > 2 * counts["requests"]
    assert counts["appeals"] > 0
    assert counts["appeals"] == int(store.scalar(
        "SELECT count(*) FROM administrative_decisions WHERE kind = 'request' AND summary LIKE 'Requerimento "
        "indeferido%'"))
    # every generated request and appeal of an office with a protocol unit has its NUP (every demo office has one)
    assert counts["request_nups"] == counts["requests"]
    # an appeal is a document of its decision's process (issue 42 item 2), never numbered on its own
    assert not store.scalar("SELECT count(*) FROM appeals a WHERE a.id NOT IN "
                            "(SELECT subject_id FROM process_documents WHERE subject = 'appeal')")
    assert not store.scalar("SELECT count(*) FROM process_numbers WHERE subject = 'appeal'")


def test_every_step_is_one_the_app_would_record(store):
    steps: dict[int, list[dict]] = defaultdict(list)
    for r in store.fetch("SELECT request_id, kind, day, reference_day, reason FROM request_steps ORDER BY day, id"):
        steps[int(r["request_id"])].append(r)
    problems = []
    for q in store.fetch("SELECT id, filed_on FROM requests"):
        done: list[pr.Step] = []
        for r in steps[int(q["id"])]:
            problem = pr.step_problem(r["kind"], r["day"], q["filed_on"], r["reference_day"], r["reason"], done)
            if problem:
                problems.append((q["id"], r["kind"], problem))
            done.append(pr.Step(r["kind"], r["day"], r["reference_day"], r["reason"]))
    a_steps: dict[int, list[dict]] = defaultdict(list)
    for r in store.fetch("SELECT appeal_id, kind, day, outcome, reason FROM appeal_steps ORDER BY day, id"):
        a_steps[int(r["appeal_id"])].append(r)
    for a in store.fetch("SELECT id, filed_on, on_time, instance FROM appeals"):
        done_a: list[ap.AppealStep] = []
        for r in a_steps[int(a["id"])]:
            problem = ap.step_problem(r["kind"], r["day"], a["filed_on"], a["on_time"], r["outcome"], r["reason"],
                                      done_a, instance=int(a["instance"]))   # a third appeal is not known
            if problem:
                problems.append((a["id"], r["kind"], problem))
            done_a.append(ap.AppealStep(r["kind"], r["day"], r["outcome"], r["reason"]))
    assert problems == []
    today = gen.TODAY
    assert not store.scalar("SELECT count(*) FROM request_steps WHERE day > ?", [today])
    assert not store.scalar("SELECT count(*) FROM requests WHERE filed_on > ?", [today])
    assert not store.scalar("SELECT count(*) FROM appeal_steps WHERE day > ?", [today])
    ok, message = seals.verify(store)
    assert ok, message


def test_the_readers_see_pending_and_decided_requests_and_deadlines_in_every_state(built, store):
    _, counts = built
    dpc = gen.principals(store)["dpc"]
    rows = requests.authority_deadlines(store, dpc, as_of=gen.TODAY, owed_by=None)
    generated = {int(r["id"]) for r in store.fetch("SELECT id FROM requests WHERE note LIKE 'Requerimento gerado%'")}
    mine = [r for r in rows if r["request_id"] in generated]
    states = Counter((r["owed_by"], r["state"]) for r in mine)
    assert states[(pr.AUTHORITY, "overdue")] > 0 and states[(pr.AUTHORITY, "due_soon")] > 0
    assert states[(pr.PARTY, "overdue")] + states[(pr.PARTY, "due_soon")] > 0
    rules = {r["rule"] for r in mine}
    assert {"process_act", "process_opinion", "process_intimation", "process_decision", "process_information",
            "process_allegations"} <= rules
    assert all(r["nup"] for r in mine)
    opened = [r for r in requests.open_requests(store, dpc, as_of=gen.TODAY) if r["id"] in generated]
    assert len(opened) == counts["requests_pending"]     # the pending ones are the open ones
    assert len({r["request_id"] for r in mine}) <= len(opened)
    decided = requests.decision_times(store, dpc, as_of=gen.TODAY)
    assert sum(r["decided"] for r in decided) > 0
    cases = [d for d in appeal_records.appeals_of(store, dpc, as_of=gen.TODAY)
             if d["record_table"] == "requests" and int(d["record_id"]) in generated]
    assert len(cases) == counts["appeals"]
    assert all(len(d["appeals"]) == 1 and d["appeals"][0]["stage_pt"] and d["nup"] == requests.request_history(
        store, dpc, int(d["record_id"]))["request"]["nup"] for d in cases)   # the request's NUP (one process)


@pytest.mark.parametrize("as_of", [gen.TODAY, date(2026, 6, 1), date(2025, 1, 15)])
def test_the_readers_give_what_every_request_s_deadlines_give(store, as_of):
    """The readers compute the deadlines of the requests not decided on `as_of` only (issue 28: the decided ones
    were computed and thrown away): the rows are those of `periods.request_deadlines` over every request."""
    dpc = gen.principals(store)["dpc"]
    reqs = store.fetch("SELECT id, office_code, filed_on FROM requests ORDER BY id")
    steps: dict[int, list[dict]] = defaultdict(list)
    for r in store.fetch("SELECT request_id, kind, day, reference_day, reason FROM request_steps ORDER BY day, id"):
        steps[int(r["request_id"])].append(r)
    cals = office_calendars(store, sorted({r["office_code"] for r in reqs}), on=as_of)
    policy = requests._periods(store)
    expected, still_open, first_decided = set(), set(), {}
    for q in reqs:
        mine = steps[int(q["id"])]
        decided = [s["day"] for s in mine if s["kind"] == "decided"]
        if decided:
            first_decided[int(q["id"])] = decided[0]
        if any(day <= as_of for day in decided):
            continue
        if q["filed_on"] <= as_of:
            still_open.add(int(q["id"]))
        for d in pr.request_deadlines(q["filed_on"], pr.as_steps(mine), cals[q["office_code"]], policy):
            if d.deadline.due is not None and not (d.met_on is not None and d.met_on <= as_of):
                expected.add((int(q["id"]), d.kind, d.deadline.due, d.owed_by))
    rows = requests.authority_deadlines(store, dpc, as_of=as_of, owed_by=None)
    assert {(r["request_id"], r["rule"], r["due"], r["owed_by"]) for r in rows if r["request_id"]} == expected
    assert {r["id"] for r in requests.open_requests(store, dpc, as_of=as_of)} == still_open
    since = date(as_of.year - 1, as_of.month, as_of.day)
    in_year = [q for q in reqs if int(q["id"]) in first_decided and since < first_decided[int(q["id"])] <= as_of]
    assert sum(r["decided"] for r in requests.decision_times(store, dpc, as_of=as_of)) == len(in_year)
