"""Verification codes, CRCs and /verificar's rate limit (issue 27, section 1): pure functions."""
from __future__ import annotations

from datetime import datetime, timedelta

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


def test_unknown_codes_slow_an_address_down_like_the_login() -> None:
    lim = Limiter()
    at = T0
    for _ in range(limiter.FAILURES.free - 1):
        assert lim.admit("10.0.0.1", at) is None
        lim.count("10.0.0.1", at, failed=True)
    assert lim.admit("10.0.0.1", at) is None
    lim.count("10.0.0.1", at, failed=True)                  # the 5th failure: 2 s
    assert lim.admit("10.0.0.1", at + timedelta(seconds=1)) == at + timedelta(seconds=2)
    assert lim.admit("10.0.0.2", at) is None                # another address is not slowed
    assert lim.admit("10.0.0.1", at + timedelta(seconds=2)) is None
    lim.count("10.0.0.1", at + timedelta(seconds=2), failed=True)
    assert lim.admit("10.0.0.1", at + timedelta(seconds=3)) == at + timedelta(seconds=6)
    later = at + limiter.FORGET_AFTER + timedelta(seconds=10)
    assert lim.admit("10.0.0.1", later) is None             # forgotten a day after the last failure


def test_known_codes_too_are_bounded_per_hour() -> None:
    lim = Limiter()
    for i in range(limiter.LOOKUPS_PER_HOUR):
        at = T0 + timedelta(seconds=i)
        assert lim.admit("10.0.0.9", at) is None
        lim.count("10.0.0.9", at, failed=False)
    refused = lim.admit("10.0.0.9", T0 + timedelta(minutes=5))
    assert refused == T0 + timedelta(hours=1)
    assert lim.admit("10.0.0.9", T0 + timedelta(hours=1, seconds=1)) is None


def test_the_limiter_remembers_a_bounded_number_of_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limiter, "MAX_ADDRESSES", 3)
    lim = Limiter()
    for n in range(10):
        lim.count(f"10.0.1.{n}", T0, failed=True)
    assert len(lim._seen) == 3                              # noqa: SLF001 - the bound itself
