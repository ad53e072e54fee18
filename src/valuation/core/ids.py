"""Brazilian registry numbers: CPF (people) and CNPJ (organisations), check digits and formatting.

- CPF: 11 digits, two mod-11 check digits (weights 10..2, then 11..2).
- CNPJ: 14 characters, two mod-11 check digits with weights 2..9 from the right.
  Since July 2026 new CNPJs may be alphanumeric in their first 12 positions
  (IN RFB 2.229/2024): a character counts as its ASCII code minus 48, so for
  digits the old rule is unchanged; the two check digits stay numeric.

Stored form: CPF digits only; CNPJ its 14 characters, upper-case, no punctuation.
"""
from __future__ import annotations

import re

_NON_DIGIT = re.compile(r"\D")
_CNPJ_PUNCT = re.compile(r"[\s./-]")
_CNPJ_BODY = re.compile(r"^[0-9A-Z]{12}[0-9]{2}$")


def normalise_digits(text: str | None) -> str:
    """Only the digits of `text` ('123.456.789-09' → '12345678909'); '' for None."""
    return "" if text is None else _NON_DIGIT.sub("", str(text))


def normalise_cnpj(text: str | None) -> str:
    """A CNPJ without punctuation, upper-case ('12.ABC.345/01DE-35' → '12ABC34501DE35')."""
    return "" if text is None else _CNPJ_PUNCT.sub("", str(text)).upper()


def _mod11_digit(values: list[int], weights: list[int]) -> int:
    rest = sum(v * w for v, w in zip(values, weights)) % 11
    return 0 if rest < 2 else 11 - rest


def complete_cpf(first_nine: str) -> str:
    """The 11-digit CPF whose first nine digits are `first_nine`, with its two check digits."""
    if not re.fullmatch(r"\d{9}", first_nine):
        raise ValueError("nine digits expected")
    nums = [int(c) for c in first_nine]
    nums.append(_mod11_digit(nums, list(range(10, 1, -1))))
    nums.append(_mod11_digit(nums, list(range(11, 1, -1))))
    return "".join(map(str, nums))


def cpf_is_valid(text: str | None) -> bool:
    """True for an 11-digit CPF whose two check digits are right (punctuation ignored).

    Sequences of one repeated digit ('111.111.111-11') pass the arithmetic but are
    not issued, so they are refused.
    """
    digits = normalise_digits(text)
    if text is None or len(digits) != 11 or len(set(digits)) == 1:
        return False
    if re.search(r"[^\d.\-\s]", str(text)):
        return False
    nums = [int(c) for c in digits]
    d1 = _mod11_digit(nums[:9], list(range(10, 1, -1)))
    d2 = _mod11_digit(nums[:10], list(range(11, 1, -1)))
    return nums[9] == d1 and nums[10] == d2


_CNPJ_W1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
_CNPJ_W2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]


def cnpj_check_digits(body12: str) -> str:
    """The two check digits of the first 12 characters of a CNPJ (digits or A–Z)."""
    values = [ord(c) - 48 for c in body12.upper()]
    d1 = _mod11_digit(values, _CNPJ_W1)
    d2 = _mod11_digit(values + [d1], _CNPJ_W2)
    return f"{d1}{d2}"


def cnpj_is_valid(text: str | None) -> bool:
    """True for a 14-character CNPJ (numeric or, since 07/2026, alphanumeric) with right check digits."""
    if text is None:
        return False
    body = normalise_cnpj(text)
    if not _CNPJ_BODY.match(body) or len(set(body)) == 1:
        return False
    return body[12:] == cnpj_check_digits(body[:12])


def format_cpf(text: str) -> str:
    """'12345678909' → '123.456.789-09' (anything that is not 11 digits comes back unchanged)."""
    d = normalise_digits(text)
    if len(d) != 11:
        return text
    return f"{d[:3]}.{d[3:6]}.{d[6:9]}-{d[9:]}"


def format_cnpj(text: str) -> str:
    """'11222333000181' → '11.222.333/0001-81' (anything that is not 14 characters comes back unchanged)."""
    d = normalise_cnpj(text)
    if len(d) != 14:
        return text
    return f"{d[:2]}.{d[2:5]}.{d[5:8]}/{d[8:12]}-{d[12:]}"
