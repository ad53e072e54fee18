"""Process numbers in the store (issue 26 §3): each office's protocol unit numbers its acts, one sequence
per unit per year, given inside the write that records the act; a NUP finds its case, with the user's
rights; the numbers given are sealed."""
from __future__ import annotations

import threading
from datetime import date as D

import pytest

from valuation.core import nup
from valuation.core import responsible as rp
from valuation.core.errors import ConflictError, InputError, NotFound
from valuation.db import seals
from valuation.process import cases, numbers
from valuation.registry import parties, removal_orders

W1, W2 = "NAU-1668-01", "NAU-1890-02"     # small world: W1 at CPBA, W2 at CPRJ


def _units(world, **codes: str) -> None:
    for office, code in codes.items():
        numbers.set_protocol_unit(world.store, world.principal("dpc"), office, code)


def _request(world, wreck: str, day: D) -> int:
    return parties.record_licence_request(world.store, world.principal("dpc"), {
        "wreck_code": wreck, "part": rp.VESSEL, "requester_id": world.ids["owner1"], "requested_on": day})


def test_each_unit_numbers_its_acts_in_a_sequence_of_each_year(small_world):
    _units(small_world, CPBA="12345", CPRJ="54321")
    ids = [_request(small_world, W1, D(2024, 5, 2)), _request(small_world, W2, D(2024, 5, 3)),
           _request(small_world, W1, D(2024, 6, 1)), _request(small_world, W1, D(2025, 1, 10))]
    given = numbers.nups(small_world.store, "licence_request", ids)
    parts = [nup.parse(given[i]) for i in ids]          # every one with right check digits
    assert [(p.unit, p.sequence, p.year) for p in parts] == [
        ("12345", 1, 2024), ("54321", 1, 2024), ("12345", 2, 2024), ("12345", 1, 2025)]
    assert given[ids[0]] == str(nup.make("12345", 1, 2024))
    shown = parties.responsible_parties(small_world.store, small_world.principal("dpc"),
                                        small_world.ids["w1"], D(2026, 1, 1))["requests"]
    assert [r["nup"] for r in shown] == [given[ids[0]], given[ids[2]], given[ids[3]]]


def test_concurrent_writes_never_share_a_number(small_world):
    _units(small_world, CPBA="12345")
    made: list[int] = []
    errors: list[BaseException] = []

    def one() -> None:
        try:
            made.append(_request(small_world, W1, D(2024, 5, 2)))
        except BaseException as exc:   # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    sequences = sorted(nup.parse(v).sequence for v in numbers.nups(small_world.store, "licence_request", made).values())
    assert sequences == list(range(1, 9))


def test_an_office_without_a_unit_gives_no_number_and_says_why(small_world):
    request = _request(small_world, W1, D(2024, 5, 2))
    assert numbers.nup_of(small_world.store, "licence_request", request) is None
    assert "CPBA" in numbers.shown(small_world.store, "licence_request", request, "CPBA")
    _units(small_world, CPBA="12345")
    with small_world.store.transaction("test") as tx:
        assert numbers.number_missing(tx) == 1
    assert numbers.nup_of(small_world.store, "licence_request", request) == str(nup.make("12345", 1, 2024))


def test_a_unit_code_is_five_digits_one_office_each_and_fixed_once_used(small_world):
    dpc = small_world.principal("dpc")
    with pytest.raises(InputError) as short:
        numbers.set_protocol_unit(small_world.store, dpc, "CPBA", "1234")
    assert short.value.problems[0].path == "unit_code"
    _units(small_world, CPBA="12345")
    with pytest.raises(InputError):
        numbers.set_protocol_unit(small_world.store, dpc, "CPRJ", "12345")
    _request(small_world, W1, D(2024, 5, 2))
    with pytest.raises(ConflictError):
        numbers.set_protocol_unit(small_world.store, dpc, "CPBA", "12346")
    with pytest.raises(Exception) as denied:
        numbers.set_protocol_unit(small_world.store, small_world.principal("explorer"), "CPRJ", "22222")
    assert type(denied.value).__name__ == "AccessDenied"


ORDER = {"wreck_code": W1, "kind": "remoção", "act": "Ofício nº 12/2024-CPBA", "ordered_on": "01/03/2024",
         "notice": "edital", "published_on": "04/03/2024", "starts_by": "01/04/2024", "ends_by": "30/09/2024",
         "reason": "Casco no canal de acesso: obstáculo à navegação."}


def test_a_nup_finds_its_case_with_the_users_rights(small_world):
    _units(small_world, CPBA="12345")
    dpc = small_world.principal("dpc")
    order = removal_orders.record_removal_order(small_world.store, dpc, ORDER)
    listed = removal_orders.list_removal_orders(small_world.store, dpc)
    number = listed.set_index("id").loc[order, "nup"]
    assert number == str(nup.make("12345", 1, 2024))
    found = cases.find_case(small_world.store, dpc, number.replace(".", "").replace("/", "").replace("-", ""))
    assert (found["subject"], found["subject_id"], found["wreck_code"], found["office_code"]) == \
        ("removal_order", order, W1, "CPBA")
    with pytest.raises(NotFound):   # an explorer may not read removal orders: the number answers as unknown
        cases.find_case(small_world.store, small_world.principal("explorer"), number)
    with pytest.raises(NotFound):   # the officer of CPRJ does not find a CPBA order (docs/decisions/003)
        cases.find_case(small_world.store, small_world.principal("office_rj"), number)
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    with pytest.raises(InputError) as bad:
        cases.find_case(small_world.store, dpc, wrong)
    assert bad.value.problems[0].path == cases.FIELD and "Dígito verificador" in bad.value.problems[0].message
    with pytest.raises(NotFound):
        cases.find_case(small_world.store, dpc, str(nup.make("12345", 99, 2024)))


def test_the_numbers_given_are_sealed(small_world):
    _units(small_world, CPBA="12345")
    _request(small_world, W1, D(2024, 5, 2))
    assert seals.verify(small_world.store)[0]
    cur = small_world.store.cursor()
    try:
        cur.execute("UPDATE process_numbers SET sequence = 7").fetchall()
    finally:
        cur.close()
    ok, message = seals.verify(small_world.store)
    assert not ok and "NUP" in message
