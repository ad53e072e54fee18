"""Verification codes, CRCs and /verificar's rate limit (issue 27, section 1): pure functions."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from valuation.authenticity import codes, limiter
from valuation.authenticity.codes import ALPHABET, crc_of, grouped, new_code, parse_code
from valuation.authenticity.limiter import Limiter

T0 = datetime(2026, 12, 2, 12, 0)


def test_the_alphabet_is_crockfords_base_32_and_a_code_holds_50_bits() -> None:
    assert len(ALPHABET) == len(set(ALPHABET)) == 32
    assert not set("ILOU") & set(ALPHABET)
    assert codes.CODE_LENGTH == 10 and codes.CODE_BITS == 50
    assert codes.guesses_per_success(100_000) == pytest.approx(2 ** 50 / 100_000)
    assert 1.1e10 < codes.guesses_per_success(100_000) < 1.2e10


def test_codes_come_from_secrets_and_do_not_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = [new_code() for _ in range(2000)]
    assert len(set(drawn)) == len(drawn)
    assert all(len(c) == 10 and set(c) <= set(ALPHABET) for c in drawn)
    monkeypatch.setattr(codes.secrets, "choice", lambda seq: seq[-1])
    assert new_code() == "ZZZZZZZZZZ"


@pytest.mark.parametrize(("typed", "expected"), [
    ("ABCDE-12345", "ABCDE12345"),
    ("abcde12345", "ABCDE12345"),
    (" abcde 12345 ", "ABCDE12345"),
    ("ABCDE-I234O", "ABCDE12340"),          # I and O read as 1 and 0 (Crockford)
    ("ABCDE.L2345", "ABCDE12345"),
    ("ABCD-1234", None),                    # too short
    ("ABCDE-123456", None),                 # too long
    ("ABCDE-1234U", None),                  # U is not in the alphabet
    ("ABCDE-1234*", None),
    ("<script>", None),
    ("A" * 100, None),
    (None, None),
    (12345, None),
])
def test_a_typed_code_is_read_leniently_or_refused(typed: object, expected: str | None) -> None:
    assert parse_code(typed) == expected


def test_a_code_is_printed_in_two_groups_and_the_crc_is_crc32() -> None:
    assert grouped("ABCDE12345") == "ABCDE-12345"
    assert crc_of(b"123456789") == "CBF43926"          # the CRC-32 check value
    assert crc_of(b"") == "00000000"
    assert crc_of(b"123456788") != crc_of(b"123456789")


def test_a_stamp_leads_to_the_public_route_with_its_code() -> None:
    stamp = codes.Stamp("ABCDE12345", "https://painel.exemplo/")
    assert stamp.verify_url == "https://painel.exemplo/verificar"
    assert stamp.qr_payload == "https://painel.exemplo/verificar?codigo=ABCDE-12345"


def _lookup(lim: Limiter, address: str, at: Any, *, found: bool) -> Any:
    """One lookup through the limiter: None when it was made, else the moment the address may try again."""
    ticket = lim.reserve(address, at)
    if not isinstance(ticket, limiter.Ticket):
        return ticket
    lim.settle(ticket, failed=not found)
    return None


def test_unknown_codes_slow_an_address_down_like_the_login() -> None:
    lim = Limiter()
    at = T0
    for _ in range(limiter.FAILURES.free - 1):
        assert _lookup(lim, "10.0.0.1", at, found=False) is None
    assert _lookup(lim, "10.0.0.1", at, found=False) is None           # the 5th failure: 2 s
    assert _lookup(lim, "10.0.0.1", at + timedelta(seconds=1), found=True) == at + timedelta(seconds=2)
    assert _lookup(lim, "10.0.0.2", at, found=False) is None           # another address is not slowed
    assert _lookup(lim, "10.0.0.1", at + timedelta(seconds=2), found=False) is None
    assert _lookup(lim, "10.0.0.1", at + timedelta(seconds=3), found=False) == at + timedelta(seconds=6)
    later = at + limiter.FORGET_AFTER + timedelta(seconds=10)
    assert _lookup(lim, "10.0.0.1", later, found=False) is None        # forgotten a day after the last failure


def test_codes_found_are_never_capped_and_give_their_count_back() -> None:
    """Issue 43, item 12 (decided in issue 45): the cap of 60 lookups an hour counted the codes a citizen found
    and refused the 61st; a found code teaches nothing its paper does not print, so only failures are limited."""
    lim = Limiter()
    for i in range(200):
        assert _lookup(lim, "10.0.0.9", T0 + timedelta(seconds=i), found=True) is None
    for _ in range(limiter.FAILURES.free - 1):                          # found codes left no failure behind
        assert _lookup(lim, "10.0.0.9", T0 + timedelta(minutes=5), found=False) is None
    assert _lookup(lim, "10.0.0.9", T0 + timedelta(minutes=5), found=True) is None


def test_a_lookup_is_counted_before_it_is_made() -> None:
    """Issue 45, item 5: lookups in flight together are each judged with the others counted."""
    lim = Limiter()
    tickets = [lim.reserve("10.0.0.5", T0) for _ in range(50)]
    made = [t for t in tickets if isinstance(t, limiter.Ticket)]
    assert len(made) == limiter.FAILURES.free and all(t == T0 + timedelta(seconds=2) for t in tickets[5:])
    for t in made[:4]:
        lim.settle(t, failed=False)                     # four of them were found: one failure is left
    assert isinstance(lim.reserve("10.0.0.5", T0), limiter.Ticket)


def test_slots_bound_what_is_in_flight_per_address_and_in_all() -> None:
    slots = limiter.Slots(2, 3)
    assert [slots.take("a"), slots.take("a"), slots.take("a")] == [True, True, False]
    assert [slots.take("b"), slots.take("c")] == [True, False]              # three in all
    slots.give("a")
    assert slots.take("c") and not slots.take("d") and slots.held() == 3


def test_the_limiter_remembers_a_bounded_number_of_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limiter, "MAX_ADDRESSES", 3)
    lim = Limiter()
    for n in range(10):
        lim.reserve(f"10.0.1.{n}", T0)
    assert len(lim._seen) == 3                              # noqa: SLF001 - the bound itself
