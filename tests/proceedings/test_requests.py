"""Requests to the Authority through the store: filing, steps (audited, validated), the Authority's open
deadlines per office with their basis, and access (an explorer of another company sees nothing).

The world's w2 (Vapor Bahia, CPRJ, RJ calendar) and its owner; dates worked by hand for 2026:
filed Tue 01/09 → first act 01/09 + 5 = Sun 06/09, Mon 07/09 Independência → Tue 08/09 (art. 24), met 03/09;
opinion asked Thu 10/09 + 15 = Fri 25/09 (art. 42), never given: overdue on 30/11 by 66 days;
instruction ended Thu 01/10, the party notified Fri 02/10: allegations + 10 = Mon 12/10 Aparecida → Tue 13/10 (art. 44
from the ciência, art. 66 caput; the party's);
decision + 30 = Sat 31/10, Mon 02/11 Finados → Tue 03/11 (art. 49), overdue by 27 days; extended once with a
reason: + 60 = Mon 30/11, due soon; a hearing on Fri 04/12: thu 03 (1º), wed 02 (2º), tue 01/12 (3º) → intimate by
01/12 (arts. 26 §2 and 41), due soon.
"""
from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from valuation.core.errors import AccessDenied, InputError, NotFound
from valuation.proceedings import periods, requests

AS_OF = date(2026, 11, 30)


def _filed(world: Any) -> int:
    dpc = world.principal("dpc")
    request_id = requests.file_request(world.store, dpc, {
        "wreck_code": "NAU-1890-02", "requester_id": world.ids["owner1"], "filed_on": date(2026, 9, 1),
        "matter": "remoção", "organisation_id": world.ids["org_b"]})
    for kind, day, ref in (("instruction_opened", date(2026, 9, 3), None),
                           ("opinion_requested", date(2026, 9, 10), None),
                           ("instruction_ended", date(2026, 10, 1), None),
                           ("instruction_end_notified", date(2026, 10, 2), None),
                           ("hearing_set", date(2026, 11, 20), date(2026, 12, 4))):
        requests.record_step(world.store, dpc, request_id, {"kind": kind, "day": day, "reference_day": ref})
    return request_id


def _by_rule(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["rule"]: r for r in rows}


def test_the_authoritys_open_deadlines_with_their_basis(small_world: Any) -> None:
    request_id = _filed(small_world)
    got = _by_rule(requests.authority_deadlines(small_world.store, small_world.principal("dpc"), as_of=AS_OF,
                                                office="CPRJ"))
    assert set(got) == {"process_opinion", "process_decision", "process_intimation"}   # the act was met on 03/09
    expected = {"process_opinion": (date(2026, 9, 25), "overdue", 66, "art. 42"),
                "process_decision": (date(2026, 11, 3), "overdue", 27, "art. 49"),
                "process_intimation": (date(2026, 12, 1), "due_soon", 0, "arts. 26 §2 e 41")}
    for rule, (due, state, late, article) in expected.items():
        row = got[rule]
        assert (row["due"], row["state"], row["days_late"]) == (due, state, late), rule
        assert article in row["basis"] and row["request_id"] == request_id and row["office_code"] == "CPRJ"
    party = _by_rule(requests.authority_deadlines(small_world.store, small_world.principal("dpc"), as_of=AS_OF,
                                                  owed_by=periods.PARTY))
    assert party["process_allegations"]["due"] == date(2026, 10, 13) and "art. 44" in party["process_allegations"][
        "basis"]
    assert requests.authority_deadlines(small_world.store, small_world.principal("dpc"), as_of=AS_OF,
                                        office="CPBA") == []


def test_an_extension_needs_a_written_reason_and_moves_the_decision(small_world: Any) -> None:
    request_id = _filed(small_world)
    dpc = small_world.principal("dpc")
    with pytest.raises(InputError) as refused:
        requests.record_step(small_world.store, dpc, request_id, {"kind": "decision_extended", "day": AS_OF})
    assert refused.value.problems[0].path == "reason" and "Motivação escrita" in refused.value.problems[0].message
    requests.record_step(small_world.store, dpc, request_id, {"kind": "decision_extended", "day": date(2026, 11, 2),
                                                              "reason": "Aguardando laudo do IPHAN."})
    got = _by_rule(requests.authority_deadlines(small_world.store, dpc, as_of=AS_OF))
    assert (got["process_decision"]["due"], got["process_decision"]["state"]) == (date(2026, 11, 30), "due_soon")
    assert "prorrogação por igual período" in got["process_decision"]["basis"]
    with pytest.raises(InputError):   # once only (art. 49)
        requests.record_step(small_world.store, dpc, request_id, {"kind": "decision_extended", "day": AS_OF,
                                                                  "reason": "De novo."})
    audited = small_world.store.fetch("SELECT action FROM audit_log WHERE entity = 'request' AND entity_id = ?",
                                      [str(request_id)])
    assert [a["action"] for a in audited].count("record_request_step") == 6


def test_open_requests_by_age_and_decided_ones_leave(small_world: Any) -> None:
    request_id = _filed(small_world)
    dpc = small_world.principal("dpc")
    (row,) = requests.open_requests(small_world.store, dpc, as_of=AS_OF)
    assert (row["id"], row["age_days"], row["step"]) == (request_id, 90, periods.STEP_LABELS["hearing_set"])
    requests.record_step(small_world.store, dpc, request_id, {"kind": "decided", "day": AS_OF})
    assert requests.open_requests(small_world.store, dpc, as_of=AS_OF) == []
    assert requests.authority_deadlines(small_world.store, dpc, as_of=AS_OF) == []
    history = requests.request_history(small_world.store, dpc, request_id)
    assert [s["kind"] for s in history["steps"]][-1] == "decided"


def test_an_explorer_sees_its_own_companys_requests_only(small_world: Any) -> None:
    request_id = _filed(small_world)
    own, other = small_world.principal("explorer_b"), small_world.principal("explorer_a")
    assert {r["rule"] for r in requests.authority_deadlines(small_world.store, own, as_of=AS_OF)} == {
        "process_opinion", "process_decision", "process_intimation"}
    assert requests.open_requests(small_world.store, own, as_of=AS_OF)[0]["requester"] is None  # a person's data
    assert requests.authority_deadlines(small_world.store, other, as_of=AS_OF, owed_by=None) == []
    assert requests.open_requests(small_world.store, other, as_of=AS_OF) == []
    with pytest.raises(NotFound):
        requests.request_history(small_world.store, other, request_id)
    for role in ("admin", "commission"):
        with pytest.raises(AccessDenied):
            requests.authority_deadlines(small_world.store, small_world.principal(role), as_of=AS_OF)
    with pytest.raises(AccessDenied):
        requests.record_step(small_world.store, own, request_id, {"kind": "decided", "day": AS_OF})


def test_bad_input_is_refused_naming_the_field_and_nothing_is_written(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    with pytest.raises(InputError) as refused:
        requests.file_request(small_world.store, dpc, {
            "wreck_code": "NAU-1890-02", "requester_id": small_world.ids["owner1"], "filed_on": date(2026, 9, 1),
            "matter": "mágica"})
    assert refused.value.problems[0].path == "matter"
    with pytest.raises(InputError) as nobody:
        requests.file_request(small_world.store, dpc, {"wreck_code": "NAU-1890-02", "filed_on": date(2026, 9, 1),
                                                       "matter": "reclamação"})
    assert nobody.value.problems[0].path == "requester_id"
    request_id = _filed(small_world)
    with pytest.raises(InputError) as early:
        requests.record_step(small_world.store, dpc, request_id, {"kind": "opinion_given", "day": date(2026, 8, 1)})
    assert early.value.problems[0].path == "day"
    assert small_world.store.scalar("SELECT count(*) FROM requests") == 1
    assert small_world.store.scalar("SELECT count(*) FROM request_steps") == 5


def test_the_median_days_to_decide_per_office_and_matter(small_world: Any) -> None:
    request_id = _filed(small_world)
    dpc = small_world.principal("dpc")
    assert requests.decision_times(small_world.store, dpc, as_of=AS_OF) == []
    requests.record_step(small_world.store, dpc, request_id, {"kind": "decided", "day": date(2026, 11, 20)})
    (row,) = requests.decision_times(small_world.store, dpc, as_of=AS_OF)
    assert (row["office_code"], row["matter"], row["decided"], row["median_days"]) == ("CPRJ", "remoção", 1, 80)
    assert requests.decision_times(small_world.store, dpc, as_of=date(2027, 11, 21)) == []   # over 12 months ago
    assert requests.decision_times(small_world.store, small_world.principal("explorer_a"), as_of=AS_OF) == []


def _emails(world: Any) -> None:
    world.store.write("test", lambda tx: tx.execute(
        "UPDATE users SET email = username || '@example.org' WHERE username IN ('dpc.silva', 'exp.beta')"))


def test_the_digest_tells_dpc_what_the_authority_owes_and_the_company_nothing_of_it(small_world: Any) -> None:
    from valuation.jobs.digest_mail import AUTHORITY_HEADING, digest_mails

    _filed(small_world)
    _emails(small_world)
    mails = digest_mails(small_world.store, as_of=AS_OF, base_url="http://127.0.0.1:8501")
    dpc = [m for m in mails if "dpc.silva@example.org" in m.to]
    assert len(dpc) == 1 and f"{AUTHORITY_HEADING.upper()} (3)" in dpc[0].text
    assert "Lei 9.784/1999 art. 49" in dpc[0].text and f"<h3>{AUTHORITY_HEADING} (3)</h3>" in dpc[0].html
    company = [m for m in mails if "exp.beta@example.org" in m.to]
    assert all(AUTHORITY_HEADING.upper() not in m.text for m in company)


def test_a_dpc_calendar_feed_carries_the_authoritys_deadlines_and_a_companys_does_not(small_world: Any) -> None:
    from datetime import UTC, datetime

    from valuation.deadlines import feeds
    from valuation.proceedings.feeds import authority_events

    request_id = _filed(small_world)
    dpc, own = small_world.principal("dpc"), small_world.principal("explorer_b")
    events = authority_events(small_world.store, dpc, AS_OF, "CPRJ")
    assert {e.uid for e in events} == {f"{rule}:requerimento-{request_id}@valuation"
                                       for rule in ("process_opinion", "process_decision", "process_intimation")}
    assert authority_events(small_world.store, own, AS_OF, None) == []
    token = feeds.create_feed(small_world.store, dpc, office="CPRJ", now=datetime(2026, 11, 30, tzinfo=UTC))
    body = feeds.feed_ics(small_world.store, token, as_of=AS_OF, extra=authority_events)
    assert body is not None and f"requerimento-{request_id}@valuation".encode() in body
    plain = feeds.feed_ics(small_world.store, token, as_of=AS_OF)
    assert plain is not None and b"requerimento-" not in plain


def test_only_a_licence_asked_by_the_responsible_is_the_request_the_five_years_read(small_world: Any) -> None:
    """Art. 6 reads the responsible's licence request (registry.parties): a licence asked by the owner is one,
    a reclaim by the same owner is not, nor a company's licence request."""
    from valuation.registry.parties import responsible_parties

    dpc = small_world.principal("dpc")
    common = {"wreck_code": "NAU-1890-02", "filed_on": date(2026, 9, 1)}
    requests.file_request(small_world.store, dpc, {**common, "matter": "reclamação",
                                                   "requester_id": small_world.ids["owner1"]})
    requests.file_request(small_world.store, dpc, {**common, "matter": "pesquisa",
                                                   "organisation_id": small_world.ids["org_b"]})
    assert responsible_parties(small_world.store, dpc, small_world.ids["w2"], AS_OF)["requests"] == []
    requests.file_request(small_world.store, dpc, {**common, "matter": "remoção",
                                                   "requester_id": small_world.ids["owner1"]})
    (licence,) = responsible_parties(small_world.store, dpc, small_world.ids["w2"], AS_OF)["requests"]
    assert licence["requested_on"] == date(2026, 9, 1) and licence["counts"].startswith("conta")


def test_a_filed_request_gets_its_nup_and_the_nup_finds_it_with_the_users_rights(small_world: Any) -> None:
    """Portaria Interministerial MJSP/ME nº 11/2019: the request is numbered in the write that files it, from
    the CPRJ unit's sequence of the filing's year (2026, first number: 54321.000001/2026-06); the NUP finds the
    case for the DPC and for the company that filed it, and answers as missing to another company. A licence
    asked by the responsible is one document: it carries the NUP its licence request received, not a second."""
    from valuation.core import nup
    from valuation.process import cases, numbers

    dpc = small_world.principal("dpc")
    numbers.set_protocol_unit(small_world.store, dpc, "CPRJ", "54321")
    request_id = requests.file_request(small_world.store, dpc, {
        "wreck_code": "NAU-1890-02", "organisation_id": small_world.ids["org_b"], "filed_on": date(2026, 9, 1),
        "matter": "pesquisa"})
    given = numbers.nup_of(small_world.store, "request", request_id)
    assert given == str(nup.make("54321", 1, 2026)) == "54321.000001/2026-06"
    history = requests.request_history(small_world.store, dpc, request_id)
    assert history["request"]["nup"] == given == history["request"]["nup_shown"]
    assert requests.open_requests(small_world.store, dpc, as_of=AS_OF)[0]["nup"] == given
    assert {r["nup"] for r in requests.authority_deadlines(small_world.store, dpc, as_of=AS_OF)} == {given}
    for who in (dpc, small_world.principal("explorer_b")):
        case = cases.find_case(small_world.store, who, given.replace(".", "").replace("/", "").replace("-", ""))
        assert (case["subject"], case["subject_id"], case["office_code"], case["wreck_code"]) == (
            "request", request_id, "CPRJ", "NAU-1890-02"), who.role
        assert case["act_on"] == date(2026, 9, 1) and case["subject_label"] == "Requerimento"
    with pytest.raises(NotFound):
        cases.find_case(small_world.store, small_world.principal("explorer_a"), given)
    audited = small_world.store.scalar("SELECT count(*) FROM audit_log WHERE action = 'nup_assigned' AND "
                                       "entity = 'request' AND entity_id = ?", [str(request_id)])
    assert audited == 1
    licence_id = _filed(small_world)   # remoção asked by the owner: also a licence request (art. 4)
    licence = requests.request_history(small_world.store, dpc, licence_id)["request"]
    assert licence["nup"] == str(nup.make("54321", 2, 2026)) == numbers.nup_of(
        small_world.store, "licence_request", licence["licence_request_id"])
    assert numbers.nup_of(small_world.store, "request", licence_id) is None
    with small_world.store.transaction("test") as tx:
        assert numbers.number_missing(tx) == 0   # nothing left to number, and no second NUP for the licence


def test_a_request_at_an_office_without_a_protocol_unit_says_why_it_has_no_nup(small_world: Any) -> None:
    request_id = _filed(small_world)
    history = requests.request_history(small_world.store, small_world.principal("dpc"), request_id)
    assert history["request"]["nup"] is None and "CPRJ" in history["request"]["nup_shown"]
    assert small_world.store.scalar("SELECT count(*) FROM process_numbers") == 0


def test_information_asked_of_the_party_runs_against_the_party(small_world: Any) -> None:
    """Art. 39 through the store: information asked on Tue 10/11 by the day the intimation fixed, Sat 05/12 →
    Mon 07/12 (art. 66 §1), the party's; another asked Mon 16/11 with no day fixed: + 5 (art. 24) = Sat 21/11 →
    Mon 23/11, overdue by 7 days on 30/11; a day fixed before the intimation refused naming the field; the
    information provided on 20/11 meets both."""
    dpc = small_world.principal("dpc")
    request_id = requests.file_request(small_world.store, dpc, {
        "wreck_code": "NAU-1890-02", "organisation_id": small_world.ids["org_b"], "filed_on": date(2026, 11, 3),
        "matter": "pesquisa"})
    with pytest.raises(InputError) as early:
        requests.record_step(small_world.store, dpc, request_id, {"kind": "information_requested",
                                                                  "day": date(2026, 11, 10),
                                                                  "reference_day": date(2026, 11, 9)})
    assert early.value.problems[0].path == "reference_day" and "art. 39" in early.value.problems[0].message
    requests.record_step(small_world.store, dpc, request_id, {"kind": "information_requested",
                                                              "day": date(2026, 11, 10),
                                                              "reference_day": date(2026, 12, 5)})
    requests.record_step(small_world.store, dpc, request_id, {"kind": "information_requested",
                                                              "day": date(2026, 11, 16)})
    party = [r for r in requests.authority_deadlines(small_world.store, dpc, as_of=AS_OF, owed_by=periods.PARTY)
             if r["rule"] == "process_information"]
    assert [(r["due"], r["days_late"], r["owed_by"]) for r in party] == [
        (date(2026, 11, 23), 7, periods.PARTY), (date(2026, 12, 7), 0, periods.PARTY)]
    assert party[0]["state"] == "overdue" and all("Lei 9.784/1999 art. 39" in r["basis"] for r in party)
    assert "art. 24" in party[0]["basis"]
    owed = {r["rule"] for r in requests.authority_deadlines(small_world.store, dpc, as_of=AS_OF)}
    assert "process_information" not in owed and "process_act" not in owed   # the request was the first act
    requests.record_step(small_world.store, dpc, request_id, {"kind": "information_provided",
                                                              "day": date(2026, 11, 20)})
    assert [r for r in requests.authority_deadlines(small_world.store, dpc, as_of=AS_OF, owed_by=periods.PARTY)
            if r["rule"] == "process_information"] == []   # the first information provided meets both asked


@pytest.mark.parametrize("matter, requester", [("remoção", True), ("reclamação", False)])
def test_a_request_dated_before_1900_is_a_field_error(small_world: Any, matter: str, requester: bool) -> None:
    """Issue 45, item 7 — a request filed on 31/12/1899 at an office with a protocol unit raised
    `ValueError: not a NUP's year` ("Algo deu errado"); a NUP's year is 1900 or later (Portaria
    Interministerial MJSP/ME nº 11/2019), so the date is refused by its field and nothing is written."""
    from valuation.process import numbers

    dpc = small_world.principal("dpc")
    numbers.set_protocol_unit(small_world.store, dpc, "CPRJ", "12345")
    before = small_world.store.scalar("SELECT count(*) FROM audit_log")
    data = {"wreck_code": "NAU-1890-02", "filed_on": date(1899, 12, 31), "matter": matter,
            "organisation_id": small_world.ids["org_b"]}
    if requester:
        data["requester_id"] = small_world.ids["owner1"]
    with pytest.raises(InputError) as refused:
        requests.file_request(small_world.store, dpc, data)
    problem = refused.value.problems[0]
    assert problem.path == "filed_on" and "1900" in problem.message, refused.value.problems
    assert problem.message.startswith(requests.LABELS["filed_on"])
    assert small_world.store.scalar("SELECT count(*) FROM audit_log") == before          # nothing written
    assert requests.file_request(small_world.store, dpc, {**data, "filed_on": date(1900, 1, 2)}) > 0
