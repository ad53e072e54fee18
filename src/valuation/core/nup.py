"""The Número Único de Protocolo (NUP) of the federal administration: 17 digits, 00000.000000/0000-00.

Portaria Interministerial MJSP/ME nº 11, de 25 de novembro de 2019 (it keeps the 17-digit number and the
check digits of the revoked Portaria SLTI/MP nº 3/2003; the 21-digit number of Portaria Interministerial
nº 2.321/2014, modulo 97, was revoked before it took effect and is not implemented here):

- the protocol unit's code (5 digits), a sequence restarted every year (6 digits), the year (4 digits) and
  two check digits;
- each check digit is modulo 11 with weights 2, 3, 4… from the rightmost digit leftwards: the first over
  the 15 digits before it, the second over those 15 and the first; the digit is 11 - (sum mod 11), a
  10 becoming 0 and an 11 becoming 1.

Stored form: the 17 digits. Pure: no database, no clock.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from valuation.core.errors import InputError, Problem

DIGITS = 17
UNIT_DIGITS, SEQUENCE_DIGITS, YEAR_DIGITS = 5, 6, 4
MAX_SEQUENCE = 10 ** SEQUENCE_DIGITS - 1
FIRST_YEAR = 1900          # a NUP's year before this is a typing error, not a process
LAST_YEAR = 9999
LABEL = "NUP"
BASIS = "Portaria Interministerial MJSP/ME nº 11/2019"
EXAMPLE = "00000.000000/0000-00"
MAX_INPUT = 40             # characters a NUP field accepts (17 digits and punctuation, with room for spaces)

_PUNCTUATION = re.compile(r"[\s./-]")
_MASKED = re.compile(r"^\d{5}\.\d{6}/\d{4}-\d{2}$")


@dataclass(frozen=True)
class Nup:
    unit: str        # 5 digits: the protocol unit that numbered it
    sequence: int    # 1 … 999 999 within the unit and the year
    year: int

    @property
    def digits(self) -> str:
        """The 17 stored digits, check digits included."""
        base = self.base
        return base + check_digits(base)

    @property
    def base(self) -> str:
        return f"{self.unit}{self.sequence:0{SEQUENCE_DIGITS}d}{self.year:0{YEAR_DIGITS}d}"

    def __str__(self) -> str:
        return format_nup(self.digits)


def _digit(digits: str) -> int:
    total = sum(int(d) * w for d, w in zip(reversed(digits), range(2, 2 + len(digits))))
    rest = 11 - total % 11
    return {10: 0, 11: 1}.get(rest, rest)


def check_digits(base15: str) -> str:
    """The two check digits of the first 15 digits (unit, sequence, year)."""
    if len(base15) != DIGITS - 2 or not base15.isdigit():
        raise ValueError(f"a NUP's base has 15 digits, not {base15!r}")
    first = _digit(base15)
    return f"{first}{_digit(base15 + str(first))}"


def make(unit: str, sequence: int, year: int) -> Nup:
    """A NUP from its parts (the caller allocated them); ValueError when a part is out of its range."""
    if len(unit) != UNIT_DIGITS or not unit.isdigit():
        raise ValueError(f"a protocol unit's code has 5 digits, not {unit!r}")
    if not 1 <= sequence <= MAX_SEQUENCE:
        raise ValueError(f"a NUP's sequence runs from 1 to {MAX_SEQUENCE}, not {sequence}")
    if not FIRST_YEAR <= year <= LAST_YEAR:
        raise ValueError(f"not a NUP's year: {year}")
    return Nup(unit, sequence, year)


def format_nup(digits: str) -> str:
    """'60041001093202097' → '60041.001093/2020-97' (anything that is not 17 digits comes back unchanged)."""
    if len(digits) != DIGITS or not digits.isdigit():
        return digits
    return f"{digits[:5]}.{digits[5:11]}/{digits[11:15]}-{digits[15:]}"


def parse(text: str | None, *, field: str = LABEL) -> Nup:
    """The NUP a user typed, with or without its punctuation ('60041.001093/2020-97', '60041001093202097').

    Raises InputError naming `field` (in pt-BR) when it is not 17 digits, is punctuated otherwise than
    00000.000000/0000-00, has a year out of range or a wrong check digit."""
    raw = (text or "").strip()
    if not raw:
        raise InputError(Problem(field, f"Informe o {LABEL} ({EXAMPLE})."))
    if len(raw) > MAX_INPUT:
        raise InputError(Problem(field, f"O {LABEL} tem {DIGITS} dígitos ({EXAMPLE}); o texto informado é "
                                        "longo demais."))
    digits = _PUNCTUATION.sub("", raw)
    if not digits.isdigit() or len(digits) != DIGITS:
        raise InputError(Problem(field, f"O {LABEL} tem {DIGITS} dígitos, no formato {EXAMPLE}."))
    if not (raw.isdigit() or _MASKED.match(raw.replace(" ", ""))):
        raise InputError(Problem(field, f"O {LABEL} se escreve {EXAMPLE} (ou só os {DIGITS} dígitos)."))
    year = int(digits[11:15])
    if not FIRST_YEAR <= year <= LAST_YEAR:
        raise InputError(Problem(field, f"O ano do {LABEL} ({digits[11:15]}) não é válido."))
    expected = check_digits(digits[:15])
    if digits[15:] != expected:
        raise InputError(Problem(field, f"Dígito verificador do {LABEL} inválido: {format_nup(digits)} não confere "
                                        f"({BASIS}, anexo); confira o número."))
    if int(digits[5:11]) == 0:
        raise InputError(Problem(field, f"O {LABEL} não tem sequencial 000000."))
    return Nup(digits[:5], int(digits[5:11]), year)


def is_valid(text: str | None) -> bool:
    """True for a NUP (punctuated or not) whose check digits are right."""
    try:
        parse(text)
    except InputError:
        return False
    return True
