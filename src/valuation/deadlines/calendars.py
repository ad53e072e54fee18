"""Business-day calendars of the offices, built from the database (rules.md §7).

A receiving office's (CP, DL or AG) calendar is `valuation.core.calendar.BusinessCalendar`
fed with:

- the office's state (`offices.state`): national and state holidays come from the
  maintained `holidays` library;
- the office's municipal holidays (`local_holidays`, maintained by DPC here: every
  change is validated and audited);
- the policy days (pontos facultativos) in force: the latest `policies` row of key
  `policy_days`, default `valuation.policies.defaults` (Carnival Monday and Tuesday, Corpus Christi).

Calendars are cached by content (state, local holidays, policy days), so that the
deadline engine reuses one instance per office across calls and its per-year
closed days are computed once; a change to any of the three gives a new key.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core.calendar import (
    HOLIDAY,
    LOCAL,
    POLICY,
    POLICY_DAY_KEYS,
    WEEKDAY_NAMES,
    BusinessCalendar,
)
from valuation.core.errors import AccessDenied, InputError, NotFound, Problem
from valuation.core.forms import Form
from valuation.db.access import Principal, require
from valuation.policies.defaults import DEFAULT_BY_KEY

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

    from valuation.db.store import Store, Tx

MIN_HOLIDAY_YEAR, MAX_HOLIDAY_YEAR = 1900, 2100   # a local holiday outside these is a typing error
MAX_HOLIDAY_NAME = 100
POLICY_DAY_LABELS: dict[str, str] = {
    "carnival_monday": "Segunda-feira de Carnaval",
    "carnival_tuesday": "Terça-feira de Carnaval",
    "ash_wednesday": "Quarta-feira de Cinzas",
    "corpus_christi": "Corpus Christi",
    "public_servant_day": "Dia do Servidor Público (28/10)",
    "christmas_eve": "Véspera de Natal (24/12)",
    "new_years_eve": "Véspera de Ano-Novo (31/12)",
}
KIND_LABELS: dict[str, str] = {HOLIDAY: "feriado nacional/estadual", LOCAL: "feriado municipal",
                               POLICY: "ponto facultativo", "weekend": "fim de semana"}

_CACHE_LIMIT = 2048
_cache: dict[tuple[Any, ...], BusinessCalendar] = {}
_cache_lock = threading.Lock()


# -- policies ------------------------------------------------------------------------------
def policy_values(store: Store, keys: tuple[str, ...]) -> dict[str, Any]:
    """The values in force of `keys` (latest `policies` row of each; the default when none
    or when the stored JSON is unreadable)."""
    found: dict[str, Any] = {}
    if keys:
        marks = ", ".join("?" for _ in keys)
        rows = store.fetch(
            f"SELECT key, value_json FROM policies WHERE id IN "
            f"(SELECT max(id) FROM policies WHERE key IN ({marks}) GROUP BY key)", list(keys))
        for row in rows:
            try:
                found[row["key"]] = json.loads(row["value_json"])
            except (TypeError, ValueError):
                continue  # a broken row never breaks the deadlines: the default applies
    return {k: found.get(k, DEFAULT_BY_KEY[k].value if k in DEFAULT_BY_KEY else None) for k in keys}


def policy_days_in_force(store: Store) -> tuple[str, ...]:
    """Policy days (pontos facultativos) in force; unknown keys in a stored value are ignored."""
    value = policy_values(store, ("policy_days",))["policy_days"]
    if not isinstance(value, (list, tuple)):
        value = DEFAULT_BY_KEY["policy_days"].value
    return tuple(k for k in value if isinstance(k, str) and k in POLICY_DAY_KEYS)


def set_policy_days(store: Store, user: Principal, days: list[str] | tuple[str, ...],
                    basis: str | None = None) -> tuple[str, ...]:
    """Store a new value of the `policy_days` policy (dpc only; appended and audited)."""
    _require_dpc(user, "alterar os pontos facultativos")
    problems = [Problem(f"policy_days[{i}]", f"Ponto facultativo desconhecido: {d}.")
                for i, d in enumerate(days) if d not in POLICY_DAY_KEYS]
    if problems:
        raise InputError(problems)
    value = list(dict.fromkeys(days))
    before = list(policy_days_in_force(store))

    def write(tx: Tx) -> None:
        new_id = tx.scalar(
            "INSERT INTO policies (key, value_json, basis, set_by, set_at) VALUES ('policy_days', ?, ?, ?, ?) "
            "RETURNING id", [json.dumps(value), basis or DEFAULT_BY_KEY["policy_days"].basis, user.username,
                             store.now()])
        tx.audit("set_policy", "policy", new_id, {"policy_days": before}, {"policy_days": value})

    store.write(user.username, write)
    return tuple(value)


# -- calendars -------------------------------------------------------------------------------
def _calendar(state: str | None, local: tuple[tuple[date, str], ...], policy: tuple[str, ...]) -> BusinessCalendar:
    key = (state, local, policy)
    with _cache_lock:
        cal = _cache.get(key)
        if cal is None:
            if len(_cache) >= _CACHE_LIMIT:
                _cache.clear()
            cal = _cache[key] = BusinessCalendar(state, local, policy)
    return cal


def office_calendars(store: Store, offices: list[str] | None = None) -> dict[str, BusinessCalendar]:
    """office code → its BusinessCalendar (two queries whatever the number of offices)."""
    policy = policy_days_in_force(store)
    where, params = ("", [])
    if offices is not None:
        if not offices:
            return {}
        where, params = f"WHERE code IN ({', '.join('?' for _ in offices)})", list(offices)
    states = {r["code"]: r["state"] for r in store.fetch(f"SELECT code, state FROM offices {where}", params)}
    local: dict[str, list[tuple[date, str]]] = {}
    for r in store.fetch(f"SELECT office_code, day, name FROM local_holidays "
                         f"{where.replace('code', 'office_code')} ORDER BY office_code, day", params):
        local.setdefault(r["office_code"], []).append((r["day"], r["name"]))
    return {code: _calendar(state, tuple(local.get(code, ())), policy) for code, state in states.items()}


def office_calendar(store: Store, office_code: str) -> BusinessCalendar:
    """The calendar of one office; NotFound for an unknown code."""
    cals = office_calendars(store, [office_code])
    if office_code not in cals:
        raise NotFound(f"Capitania/Delegacia/Agência {office_code} não encontrada.", what="office", key=office_code)
    return cals[office_code]


def closed_days(store: Store, user: Principal, office_code: str, year: int, *,
                weekends: bool = False) -> pd.DataFrame:
    """Days of `year` without office hours at the office: day, weekday, kind, kind_label, reason.

    Weekends are left out unless `weekends` (they are every Saturday and Sunday)."""
    import pandas as pd

    require(user, "read_offices")
    if not MIN_HOLIDAY_YEAR <= year <= MAX_HOLIDAY_YEAR:
        raise InputError(Problem("year", f"Ano: deve estar entre {MIN_HOLIDAY_YEAR} e {MAX_HOLIDAY_YEAR}."))
    cal = office_calendar(store, office_code)
    rows = []
    for day, _reason in cal.closed_days(year):
        info = cal.closed_info(day)
        if info is None or (info.kind == "weekend" and not weekends):
            continue
        rows.append((day, WEEKDAY_NAMES[day.weekday()], info.kind, KIND_LABELS[info.kind], info.reason))
    return pd.DataFrame(rows, columns=["day", "weekday", "kind", "kind_label", "reason"])


def business_days_by_month(store: Store, user: Principal, office_code: str, year: int) -> pd.DataFrame:
    """month (1–12), business_days, closed_weekdays: for the calendar page's summary."""
    import pandas as pd

    require(user, "read_offices")
    cal = office_calendar(store, office_code)
    counts = {m: [0, 0] for m in range(1, 13)}
    for day in (date.fromordinal(n) for n in range(date(year, 1, 1).toordinal(), date(year, 12, 31).toordinal() + 1)):
        if day.weekday() >= 5:
            continue
        counts[day.month][0 if cal.is_business_day(day) else 1] += 1
    return pd.DataFrame([(m, b, c) for m, (b, c) in counts.items()],
                        columns=["month", "business_days", "closed_weekdays"])


# -- local holidays (DPC) ------------------------------------------------------------------
def list_local_holidays(store: Store, user: Principal, office_code: str | None = None) -> pd.DataFrame:
    """office_code, day, name — ordered by office and day."""
    require(user, "read_offices")
    where, params = ("WHERE office_code = ?", [office_code]) if office_code else ("", [])
    return store.fetch_df(f"SELECT office_code, day, name FROM local_holidays {where} ORDER BY office_code, day",
                          params)


def _require_dpc(user: Principal, what: str) -> None:
    if user.role != "dpc":
        raise AccessDenied(f"Acesso negado: o perfil {user.role_label} não permite {what}.",
                           user=user.username, action=what)


def add_local_holiday(store: Store, user: Principal, data: Mapping[str, Any]) -> dict[str, Any]:
    """Add a municipal holiday to an office (dpc only; validated and audited).

    `data`: office_code, day (date or 'dd/mm/aaaa'), name. Refused: an unknown office, a
    year outside 1900–2100, an empty or long name, a day the office already has as a
    local holiday, and a day that is already closed for another reason (a national/state
    holiday or a policy day: the local row would change nothing)."""
    _require_dpc(user, "alterar feriados municipais")
    f = Form(data, allowed=("office_code", "day", "name"))
    office = f.text("office_code", "Capitania/Delegacia/Agência", max_len=20)
    day = f.date("day", "Data do feriado")
    name = f.text("name", "Nome do feriado", max_len=MAX_HOLIDAY_NAME)
    if day is not None and not MIN_HOLIDAY_YEAR <= day.year <= MAX_HOLIDAY_YEAR:
        day = f.fail("day", f"Data do feriado: o ano deve estar entre {MIN_HOLIDAY_YEAR} e {MAX_HOLIDAY_YEAR}.")
    if office is not None:
        if store.scalar("SELECT count(*) FROM offices WHERE code = ?", [office]) == 0:
            f.fail("office_code", f"Capitania/Delegacia/Agência desconhecida: {office}.")
        elif day is not None:
            if store.scalar("SELECT count(*) FROM local_holidays WHERE office_code = ? AND day = ?",
                            [office, day]):
                f.fail("day", f"Data do feriado: {day:%d/%m/%Y} já é feriado municipal de {office}.")
            else:
                info = office_calendar(store, office).closed_info(day)
                if info is not None and info.kind in (HOLIDAY, POLICY):
                    f.fail("day", f"Data do feriado: {day:%d/%m/%Y} já não tem expediente ({info.reason}).")
    f.done()
    row = {"office_code": office, "day": day, "name": name}

    def write(tx: Tx) -> None:
        tx.execute("INSERT INTO local_holidays (office_code, day, name) VALUES (?, ?, ?)", [office, day, name])
        tx.audit("add_local_holiday", "local_holiday", f"{office}:{day.isoformat()}", None, row)

    store.write(user.username, write)
    return row


def remove_local_holiday(store: Store, user: Principal, office_code: str, day: date) -> None:
    """Remove a municipal holiday (dpc only; audited). NotFound when there is none that day."""
    _require_dpc(user, "alterar feriados municipais")

    def write(tx: Tx) -> None:
        before = tx.fetch_one("SELECT office_code, day, name FROM local_holidays WHERE office_code = ? AND day = ?",
                              [office_code, day])
        if before is None:
            raise NotFound(f"{office_code} não tem feriado municipal em {day:%d/%m/%Y}.", what="local_holiday",
                           key=(office_code, day))
        tx.execute("DELETE FROM local_holidays WHERE office_code = ? AND day = ?", [office_code, day])
        tx.audit("remove_local_holiday", "local_holiday", f"{office_code}:{day.isoformat()}", before, None)

    store.write(user.username, write)
