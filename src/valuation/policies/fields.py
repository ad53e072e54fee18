"""Policy values as people meet them: read from a form, checked, stored as JSON, shown in pt-BR.

One entry per policy of `valuation.policies.defaults.DEFAULTS`. `parse(key, raw)` turns what the
policies page sends into the stored value or raises `InputError` whose message starts
with the policy's label; `to_json` / `from_json` are the stored form (the one the three
one reader, `valuation.policies.values`, understands);
`display(key, value)` is the pt-BR text (labels, never codes).

Form input: percentages for `spread_threshold` and `selection_tolerance` (50 → 0.5),
pt-BR decimals ("1,5") for weights, a list of policy-day codes, a bool, an int, a method code,
a day of the year "15/02" (`wreck_map_day`) and a list of them "24/12, 31/12" (`early_closing_days`).
Numbers take ASCII digits only (`[0-9]`: a regex digit class also matches "１２３" and "١٢٣").
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from valuation.core.calendar import MONTH_NAMES, POLICY_DAY_KEYS, POLICY_DAY_LABELS
from valuation.core.errors import InputError, Problem
from valuation.core.law import COMMISSION_SIZE, DIFFICULTY_ACTIVITIES
from valuation.policies.defaults import CONSENSUS_METHODS, DEFAULT_BY_KEY, DEFAULTS, GOVBR_LEVEL_LABELS, GOVBR_LEVELS

METHOD_LABELS: dict[str, str] = {"median": "Mediana", "mean": "Média",
                                 "trimmed_mean": "Média aparada (sem o maior e o menor valor)"}
MAX_DUE_SOON_DAYS = 365
MAX_SPREAD_PERCENT = Decimal("1000")
MAX_WEIGHT = Decimal("100")
_NUMBER = re.compile(r"^\s*[0-9]{1,7}([.,][0-9]+)?\s*$")  # ASCII digits only (\d takes any script)
_DAY_MONTH = re.compile(r"\s*([0-9]{1,2})\s*/\s*([0-9]{1,2})\s*")
MAX_EARLY_CLOSING_DAYS = 12
# (low, high, unit) of the whole-number NORMAM parameters (declared with them: defaults.DEFAULTS)
NORMAM_RANGES: dict[str, tuple[int, int, str]] = {p.key: p.bounds for p in DEFAULTS if p.normam and p.bounds}
# (low, high, unit) of every whole-number policy with bounds (the NORMAM parameters and the process periods)
INTEGER_RANGES: dict[str, tuple[int, int, str]] = {p.key: p.bounds for p in DEFAULTS if p.bounds}



def label(key: str) -> str:
    return DEFAULT_BY_KEY[key].label


def _fail(key: str, message: str, part: str | None = None) -> InputError:
    where = label(key) if part is None else f"{label(key)} ({part})"
    return InputError(Problem(key, f"{where}: {message}"))


def _br(d: Decimal) -> str:
    """A Decimal in pt-BR without trailing zeros: Decimal('1.50') → '1,5'."""
    text = format(d.normalize(), "f") if d != d.to_integral() else str(int(d))
    return text.replace(".", ",")


def _decimal(key: str, raw: object, *, places: int, maximum: Decimal, unit: str = "",
             part: str | None = None) -> Decimal:
    if isinstance(raw, bool) or raw is None or (isinstance(raw, str) and not raw.strip()):
        raise _fail(key, "campo obrigatório.", part)
    if isinstance(raw, (int, Decimal)):
        d = Decimal(raw)
    elif isinstance(raw, str) and _NUMBER.match(raw):
        d = Decimal(raw.strip().replace(",", "."))
    else:
        raise _fail(key, f"informe um número sem sinal, como 1,5 (vírgula para decimais), não "
                         f"“{str(raw)[:30]}”.", part)
    if not d.is_finite() or d < 0 or d > maximum:
        raise _fail(key, f"deve estar entre 0 e {_br(maximum)}{unit}.", part)
    if d != d.quantize(Decimal(1).scaleb(-places)):
        raise _fail(key, f"no máximo {places} casas decimais.", part)
    return d


def _integer(key: str, raw: object, lo: int, hi: int, unit: str) -> int:
    n: int | None = None
    if isinstance(raw, int) and not isinstance(raw, bool):
        n = raw
    elif isinstance(raw, str) and re.fullmatch(r"\s*[0-9]{1,6}\s*", raw):
        n = int(raw)
    elif isinstance(raw, (float, Decimal)) and raw == raw and -10 ** 6 < raw < 10 ** 6 and raw == int(raw):
        n = int(raw)
    if n is None or not lo <= n <= hi:
        raise _fail(key, f"informe um número inteiro de {lo} a {hi} ({unit}).")
    return n


def _method(raw: object) -> str:
    if raw not in CONSENSUS_METHODS:
        raise _fail("consensus_method", "escolha mediana, média ou média aparada.")
    return str(raw)


def _govbr_level(raw: object) -> str:
    if raw not in GOVBR_LEVELS:
        raise _fail("govbr_min_level_signers", "escolha bronze, prata ou ouro.")
    return str(raw)


def _quorum(raw: object) -> int:
    return _integer("quorum", raw, 1, COMMISSION_SIZE.value, "membros que votam")


def _spread(raw: object) -> Decimal:
    pct = _decimal("spread_threshold", raw, places=2, maximum=MAX_SPREAD_PERCENT, unit=" %")
    return (pct / 100).normalize()


def _tolerance(raw: object) -> Decimal:
    pct = _decimal("selection_tolerance", raw, places=2, maximum=Decimal(100), unit=" %")
    return (pct / 100).normalize()


def _due_soon(raw: object) -> int:
    return _integer("due_soon_days", raw, 1, MAX_DUE_SOON_DAYS, "dias")


def _policy_days(raw: object) -> tuple[str, ...]:
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise _fail("policy_days", "escolha os pontos facultativos numa lista.")
    unknown = [str(d) for d in raw if d not in POLICY_DAY_KEYS]
    if unknown:
        raise _fail("policy_days", f"ponto facultativo desconhecido ({', '.join(unknown)[:60]}).")
    return tuple(dict.fromkeys(str(d) for d in raw))


def _court(raw: object) -> bool:
    if not isinstance(raw, bool):
        raise _fail("court_pending_suspends_lapse", "escolha sim ou não.")
    return raw


def _weights(raw: object) -> tuple[Decimal, ...]:
    key = "difficulty_weights"
    if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) != len(DIFFICULTY_ACTIVITIES):
        raise _fail(key, f"informe os {len(DIFFICULTY_ACTIVITIES)} pesos ({', '.join(DIFFICULTY_ACTIVITIES)}).")
    problems: list[Problem] = []
    out: list[Decimal] = []
    for activity, value in zip(DIFFICULTY_ACTIVITIES, raw):
        try:
            out.append(_decimal(key, value, places=2, maximum=MAX_WEIGHT, part=activity))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    if sum(out) == 0:
        raise _fail(key, "ao menos um peso deve ser maior que zero.")
    return tuple(w.normalize() if w != w.to_integral() else Decimal(int(w)) for w in out)


MAX_ALARM_DAYS = 60
MAX_ALARMS = 3


def _alarm_days(raw: object) -> tuple[int, ...]:
    """Days before a deadline on which a subscribed calendar reminds (one VALARM each)."""
    key = "calendar_alarm_days"
    if isinstance(raw, str):
        raw = [part for part in re.split(r"[;,\s]+", raw.strip()) if part]
    if not isinstance(raw, Sequence) or not 1 <= len(raw) <= MAX_ALARMS:
        raise _fail(key, f"informe de 1 a {MAX_ALARMS} números de dias, separados por vírgula (por exemplo 5, 1).")
    days = [_integer(key, v, 0, MAX_ALARM_DAYS, "dias") for v in raw]
    return tuple(sorted(set(days), reverse=True))


MAX_OUTLIER_FACTOR = Decimal("10")
MAX_MIN_COMPARABLES = 1000


def _outlier_factor(raw: object) -> Decimal:
    return _decimal("comparables_outlier_factor", raw, places=2, maximum=MAX_OUTLIER_FACTOR)


def _min_comparables(raw: object) -> int:
    return _integer("comparables_min_count", raw, 1, MAX_MIN_COMPARABLES, "decisões")
def _normam_integer(key: str) -> Callable[[object], int]:
    lo, hi, unit = INTEGER_RANGES[key]
    return lambda raw: _integer(key, raw, lo, hi, unit.lstrip("º "))


def _day_of_year(key: str, raw: object, part: str | None = None) -> tuple[int, int]:
    """'15/02' (or (2, 15), [2, 15]) → (month, day); 29/02 is refused (it does not exist every year)."""
    if isinstance(raw, str):
        m = _DAY_MONTH.fullmatch(raw)
        pair = (int(m[2]), int(m[1])) if m else None
    elif isinstance(raw, Sequence) and len(raw) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                               for v in raw):
        pair = (int(raw[0]), int(raw[1]))
    else:
        pair = None
    if pair is None:
        raise _fail(key, f"informe o dia e o mês como DD/MM (por exemplo 15/02), não “{str(raw)[:30]}”.", part)
    month, day = pair
    if not 1 <= month <= 12 or not 1 <= day <= (28 if month == 2 else 30 if month in (4, 6, 9, 11) else 31):
        raise _fail(key, f"{day:02d}/{month:02d} não é um dia de todos os anos.", part)
    return month, day


def _wreck_map_day(raw: object) -> tuple[int, int]:
    return _day_of_year("wreck_map_day", raw)


def _early_closing(raw: object) -> tuple[tuple[int, int], ...]:
    key = "early_closing_days"
    if isinstance(raw, str):
        raw = [part for part in re.split(r"[;,]+", raw) if part.strip()]
    if not isinstance(raw, Sequence) or len(raw) > MAX_EARLY_CLOSING_DAYS:
        raise _fail(key, f"informe até {MAX_EARLY_CLOSING_DAYS} datas DD/MM separadas por vírgula (por exemplo "
                         "24/12, 31/12), ou deixe em branco.")
    problems: list[Problem] = []
    out: list[tuple[int, int]] = []
    for n, value in enumerate(raw, 1):
        try:
            out.append(_day_of_year(key, value, f"data {n}"))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return tuple(sorted(set(out)))


PARSERS: dict[str, Callable[[object], Any]] = {
    "consensus_method": _method, "quorum": _quorum, "spread_threshold": _spread,
    "selection_tolerance": _tolerance, "due_soon_days": _due_soon, "policy_days": _policy_days,
    "court_pending_suspends_lapse": _court, "difficulty_weights": _weights, "calendar_alarm_days": _alarm_days,
    "comparables_outlier_factor": _outlier_factor, "comparables_min_count": _min_comparables,
    "govbr_min_level_signers": _govbr_level,
    **{key: _normam_integer(key) for key in INTEGER_RANGES},
    "wreck_map_day": _wreck_map_day, "early_closing_days": _early_closing,
}


def parse(key: str, raw: object) -> Any:
    """The value to store for policy `key` from what the form sent; InputError names the policy."""
    if key not in PARSERS:
        raise InputError(Problem("key", f"Política desconhecida: {str(key)[:60]}."))
    return PARSERS[key](raw)


def _json_number(d: Decimal) -> str:
    return str(int(d)) if d == d.to_integral() else format(d.normalize(), "f")


def to_json(key: str, value: Any) -> str:
    """The stored JSON text: numbers as JSON numbers (never through a float), lists as arrays."""
    if key in ("spread_threshold", "selection_tolerance", "comparables_outlier_factor"):
        return _json_number(Decimal(value))
    if key == "difficulty_weights":
        return "[" + ", ".join(_json_number(Decimal(w)) for w in value) + "]"
    if key == "early_closing_days":
        return json.dumps([list(pair) for pair in value])
    return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)


def from_json(key: str, text: str) -> Any:
    """The typed value of a stored row; ValueError when it is not a valid value of `key`."""
    try:
        raw = json.loads(text, parse_float=Decimal)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"JSON ilegível: {exc}") from exc
    if key in ("spread_threshold", "selection_tolerance") and isinstance(raw, (int, Decimal, str)) \
            and not isinstance(raw, bool):
        try:
            raw = str(Decimal(str(raw)) * 100)
        except InvalidOperation as exc:
            raise ValueError(str(exc)) from exc
    if key == "difficulty_weights" and isinstance(raw, list):
        raw = [str(w) if not isinstance(w, bool) else w for w in raw]
    try:
        return parse(key, raw)
    except InputError as exc:
        raise ValueError(exc.problems[0].message) from exc


def _percent(d: Decimal) -> str:
    return f"{_br(d * 100)} %"


def day_of_year_text(pair: Sequence[int]) -> str:
    """(2, 15) → '15 de fevereiro'."""
    return f"{int(pair[1])} de {MONTH_NAMES[int(pair[0]) - 1]}"


def display(key: str, value: Any) -> str:
    """The value in pt-BR, as the policies page shows it."""
    if key in INTEGER_RANGES:
        unit = INTEGER_RANGES[key][2]
        return f"{value}{unit}" if unit.startswith("º") else f"{value} {unit}"
    if key == "wreck_map_day":
        return f"até {day_of_year_text(value)} do ano seguinte"
    if key == "early_closing_days":
        return ", ".join(day_of_year_text(p) for p in value) or "nenhum"
    if key == "consensus_method":
        return METHOD_LABELS.get(value, str(value))
    if key == "quorum":
        return f"{value} de {COMMISSION_SIZE.value} membros votantes"
    if key == "spread_threshold":
        return f"{_percent(Decimal(value))} da mediana"
    if key == "selection_tolerance":
        return f"{_percent(Decimal(value))} da recompensa"
    if key == "due_soon_days":
        return "1 dia antes" if value == 1 else f"{value} dias antes"
    if key == "policy_days":
        return ", ".join(POLICY_DAY_LABELS.get(d, d) for d in value) or "nenhum"
    if key == "court_pending_suspends_lapse":
        return "Sim: suspende o prazo" if value else "Não suspende"
    if key == "difficulty_weights":
        return " · ".join(f"{a} {_br(Decimal(w))}" for a, w in zip(DIFFICULTY_ACTIVITIES, value))
    if key == "comparables_outlier_factor":
        return f"{_br(Decimal(value))} × a amplitude interquartil"
    if key == "comparables_min_count":
        return f"{value} decisões publicadas comparáveis"
    if key == "govbr_min_level_signers":
        return f"conta gov.br {GOVBR_LEVEL_LABELS.get(value, str(value))} ou superior"
    if key == "calendar_alarm_days":
        return " e ".join("no dia" if d == 0 else ("1 dia antes" if d == 1 else f"{d} dias antes") for d in value)
    return str(value)


def form_value(key: str, value: Any) -> Any:
    """The value as the form's widget shows it (percentages for the two fractions)."""
    if key in ("spread_threshold", "selection_tolerance"):
        return _br(Decimal(value) * 100)
    if key == "difficulty_weights":
        return [_br(Decimal(w)) for w in value]
    if key == "calendar_alarm_days":
        return ", ".join(str(d) for d in value)
    if key == "comparables_outlier_factor":
        return _br(Decimal(value))
    if key == "wreck_map_day":
        return f"{value[1]:02d}/{value[0]:02d}"
    if key == "early_closing_days":
        return ", ".join(f"{d:02d}/{m:02d}" for m, d in value)
    return value
