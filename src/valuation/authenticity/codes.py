"""Verification codes and CRCs of issued documents (issue 27, section 1). Pure: no database, no clock.

A code is `CODE_LENGTH` (10) symbols drawn by `secrets` from `ALPHABET`, Crockford's base 32 (digits
and capitals without I, L, O and U, the letters read as 1, 1, 0 or V): 32**10 = 2**50 ≈ 1.1e15 codes
(`CODE_BITS`). It is printed in two groups, 'XXXXX-XXXXX'; what a person types is read leniently
(`parse_code`: case, spaces and dashes are forgiven, and I/L read as 1, O as 0, as Crockford's
decoding does); anything else is malformed (None).

The CRC is the CRC-32 (zlib, IEEE 802.3) of the PDF's bytes *before the CRC itself is stamped* on
its pages — the code, the QR and the rest of the footer are already drawn — as 8 upper-case hex
digits. The registry keeps that CRC and the sha256 of the *final* bytes (with the CRC stamped):
/verificar compares an uploaded file's sha256 with the registered one and shows the CRC, so that a
reader of a paper copy can check that the code and the CRC printed on it belong together.
"""
from __future__ import annotations

import math
import re
import secrets
import zlib
from dataclasses import dataclass

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 10
GROUP = 5
CODE_BITS = CODE_LENGTH * int(math.log2(len(ALPHABET)))      # 50
MAX_TYPED = 64                      # a typed code longer than this is malformed before it is looked at
_READ_AS = str.maketrans({"I": "1", "L": "1", "O": "0"})
_SEPARATORS = re.compile(r"[\s\-.]+")


def new_code() -> str:
    """A fresh code, 10 symbols of `ALPHABET` from the operating system's CSPRNG (no separator)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def grouped(code: str) -> str:
    """'ABCDE12345' → 'ABCDE-12345' (as printed)."""
    return "-".join(code[i:i + GROUP] for i in range(0, len(code), GROUP))


def parse_code(text: object) -> str | None:
    """The code a person typed or a QR carried, normalised ('abcde-1234o' → 'ABCDE12340'); None when it
    cannot be a code (wrong length, a symbol outside the alphabet, not text)."""
    if not isinstance(text, str) or len(text) > MAX_TYPED:
        return None
    code = _SEPARATORS.sub("", text).upper().translate(_READ_AS)
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def crc_of(data: bytes) -> str:
    """CRC-32 of `data` as 8 upper-case hex digits ('1A2B3C4D')."""
    return f"{zlib.crc32(data) & 0xFFFFFFFF:08X}"


def guesses_per_success(registered: int) -> float:
    """Expected random guesses to hit one of `registered` codes: 2**50 / registered."""
    return (len(ALPHABET) ** CODE_LENGTH) / max(1, registered)


@dataclass
class Stamp:
    code: str                     # the registry's code, without separator
    base_url: str                 # the public address of the service ('https://painel.dpc.mil.br')
    nup: str | None = None        # the record's NUP, when it has one
    crc: str | None = None        # written by the report that renders it

    @property
    def printed_code(self) -> str:
        return grouped(self.code)

    @property
    def verify_url(self) -> str:
        return f"{self.base_url.rstrip('/')}/verificar"

    @property
    def qr_payload(self) -> str:
        return f"{self.verify_url}?codigo={self.printed_code}"
