"""Reading JSON input for `python -m valuation compute` (cli.md) with every problem named by its path.

A `Reader` collects problems instead of stopping at the first one, so that the
user sees every bad field at once; `Reader.done()` raises `InputError` with all
of them. Converters return the sentinel `BAD` after recording a problem.

CLI messages follow cli.md's example (`items[3].value: must be a non-negative decimal`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from valuation.core.errors import InputError, Problem
from valuation.core.money import MAX_AMOUNT


class _Bad:
    def __repr__(self) -> str:
        return "BAD"

    def __bool__(self) -> bool:
        return False


BAD: Any = _Bad()
# ASCII digits only (cli.md: "numbers use ASCII digits"): `\d` would also take "１２３" and "١٢٣".
_DECIMAL_RE = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_MONTH_RE = re.compile(r"[0-9]{4}-[0-9]{2}")

# The widest amount the store keeps is money.MAX_AMOUNT, DECIMAL(18,2) (cli.md: larger is bad input,
# never an error).
MAX_INTEGER_DIGITS = 18   # any other decimal (shares, rates, thresholds): at most 18 digits each side
MAX_FRACTION_DIGITS = 18


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


Conv = Callable[["Reader", Any, str], Any]


class Reader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    # -- bookkeeping -------------------------------------------------------------
    def fail(self, path: str, message: str) -> Any:
        self.problems.append(Problem(path, message))
        return BAD

    def done(self) -> None:
        if self.problems:
            raise InputError(self.problems)

    # -- structure ---------------------------------------------------------------
    def obj(self, value: Any, path: str, *, allowed: Iterable[str] | None = None) -> Any:
        """A JSON object; with `allowed`, any other key is an 'unknown field'."""
        if not isinstance(value, dict):
            return self.fail(path, "must be an object")
        if allowed is not None:
            known = set(allowed)
            for key in value:
                if key not in known:
                    self.fail(join(path, key), "unknown field")
        return value

    def field(self, parent: Any, key: str, path: str, conv: Conv, *,
              required: bool = True, nullable: bool = False, default: Any = None) -> Any:
        """parent[key] converted by `conv`; missing/null handled per `required`/`nullable`."""
        if not isinstance(parent, dict):
            return BAD
        p = join(path, key)
        if key not in parent:
            return self.fail(p, "is required") if required else default
        value = parent[key]
        if value is None:
            if nullable or not required:
                return default
            return self.fail(p, "must not be null")
        return conv(self, value, p)

    def items(self, value: Any, path: str, conv: Conv, *, min_len: int = 0) -> Any:
        if not isinstance(value, list):
            return self.fail(path, "must be a list")
        if len(value) < min_len:
            return self.fail(path, f"must hold at least {min_len} element(s)")
        return [conv(self, v, join(path, i)) for i, v in enumerate(value)]


# -- converters (usable as `conv`) ------------------------------------------------
def _no_negative_zero(d: Decimal) -> Decimal:
    """'-0.00' is zero: never carried (nor echoed) as a negative number."""
    return d.copy_abs() if d == 0 else d


def decimal(*, non_negative: bool = True, maximum: Decimal | None = None,
            max_reason: str = "", places: int | None = None) -> Conv:
    """A decimal written as a JSON string of ASCII digits ('1234.56'); with `places`, at
    most that many decimal places; at most 18 digits before and after the point."""
    def conv(r: Reader, v: Any, path: str) -> Any:
        if not isinstance(v, str) or not _DECIMAL_RE.fullmatch(v):
            return r.fail(path, "must be a non-negative decimal" if non_negative else "must be a decimal")
        whole, _, frac = v.lstrip("-").partition(".")
        if len(whole.lstrip("0")) > MAX_INTEGER_DIGITS or len(frac) > MAX_FRACTION_DIGITS:
            return r.fail(path, "is out of range (at most 18 digits before and after the decimal point)")
        try:
            d = _no_negative_zero(Decimal(v))
        except InvalidOperation:
            return r.fail(path, "must be a decimal")
        if non_negative and d < 0:
            return r.fail(path, "must be a non-negative decimal")
        if places is not None and d != d.quantize(Decimal(1).scaleb(-places)):
            return r.fail(path, f"must have at most {places} decimal places")
        if maximum is not None and d > maximum:
            return r.fail(path, f"must not exceed {maximum}" + (f" ({max_reason})" if max_reason else ""))
        return d
    return conv


def amount(*, places: int | None = 2) -> Conv:
    """A non-negative amount of money that fits DECIMAL(18,2): at most 9999999999999999.99
    (and, by default, whole cents)."""
    inner = decimal(places=places)
    too_large = f"is too large (at most {MAX_AMOUNT}, DECIMAL(18,2))"

    def conv(r: Reader, v: Any, path: str) -> Any:
        if isinstance(v, str) and _DECIMAL_RE.fullmatch(v) and len(v.lstrip("-").split(".")[0].lstrip("0")) > 16:
            return r.fail(path, too_large)
        d = inner(r, v, path)
        if d is BAD:
            return BAD
        if d > MAX_AMOUNT:
            return r.fail(path, too_large)
        return d
    return conv


def integer(*, minimum: int | None = None, maximum: int | None = None) -> Conv:
    def conv(r: Reader, v: Any, path: str) -> Any:
        if isinstance(v, bool) or not isinstance(v, int):
            return r.fail(path, "must be an integer")
        if minimum is not None and v < minimum:
            return r.fail(path, f"must be at least {minimum}")
        if maximum is not None and v > maximum:
            return r.fail(path, f"must be at most {maximum}")
        return v
    return conv


def boolean(r: Reader, v: Any, path: str) -> Any:
    if not isinstance(v, bool):
        return r.fail(path, "must be true or false")
    return v


def text(r: Reader, v: Any, path: str) -> Any:
    if not isinstance(v, str) or not v.strip():
        return r.fail(path, "must be a non-empty string")
    return v


def choice(*allowed: str) -> Conv:
    def conv(r: Reader, v: Any, path: str) -> Any:
        if not isinstance(v, str) or v not in allowed:
            return r.fail(path, "must be one of " + ", ".join(allowed))
        return v
    return conv


def iso_date(r: Reader, v: Any, path: str) -> Any:
    if not isinstance(v, str) or not _DATE_RE.fullmatch(v):
        return r.fail(path, "must be a date YYYY-MM-DD")
    try:
        return date.fromisoformat(v)
    except ValueError:
        return r.fail(path, "is not a real date")


def iso_month(r: Reader, v: Any, path: str) -> Any:
    """A month 'YYYY-MM', returned as the date of its first day."""
    if not isinstance(v, str) or not _MONTH_RE.fullmatch(v):
        return r.fail(path, "must be a month YYYY-MM")
    try:
        return date.fromisoformat(v + "-01")
    except ValueError:
        return r.fail(path, "is not a real month")


def spread_float(x: Decimal | None) -> float | None:
    """Ratios (not money) are reported as JSON numbers."""
    return None if x is None else float(x)
