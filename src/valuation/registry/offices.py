"""Capitanias (CP), Delegacias (DL) and Agências (AG): where requests and reports are filed.

The list of offices is a public directory: every role may read it. It ships with the product
(`valuation.registry.office_directory`, loaded into every database by `db init`: `load_directory`) and is then
maintained on the "Capitanias" page by headquarters and the administrator: an office is added, corrected (a new
version with its reason, valuation.registry.versions) or closed from a day — never deleted, since wrecks,
contracts, requests and the audit point at it. A closed office stays readable and its records stay where they are;
it is no longer offered for new records.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import TYPE_CHECKING, Any

from valuation.core.errors import InputError, NotFound, Problem
from valuation.core.forms import Form, excerpt
from valuation.db.access import Principal, office_match, require
from valuation.registry import office_directory, versions

if TYPE_CHECKING:  # pandas is imported only where a DataFrame is built (fast CLI start-up)
    import pandas as pd

OFFICE_KINDS = {"CP": "Capitania (dos Portos ou Fluvial)", "DL": "Delegacia", "AG": "Agência"}
NAVAL_DISTRICTS = tuple(range(1, 10))
_COLS = "code, name, kind, state, city, naval_district, closed_on, source"
OFFICE_FIELDS: tuple[str, ...] = ("code", "name", "kind", "state", "city", "naval_district", "closed_on", "source")
LABELS: dict[str, str] = {"code": "Sigla", "name": "Nome", "kind": "Tipo", "state": "UF", "city": "Cidade",
                          "naval_district": "Distrito Naval", "closed_on": "Encerrada a partir de",
                          "source": "Fonte"}
DIRECTORY_ACTOR = "diretorio"       # who loads the shipped directory (db init), in the audit log


def list_offices(store: Any, user: Principal, *, state: str | None = None,
                 include_closed: bool = True) -> pd.DataFrame:
    """code, name, kind, state, city, naval_district, closed_on, source — ordered by state and code;
    without the offices closed by today when `include_closed` is false (the choices of a new record)."""
    require(user, "read_offices")
    clauses, params = [], []
    if state:
        clauses.append("state = ?")
        params.append(state.upper())
    if not include_closed:
        clauses.append("(closed_on IS NULL OR closed_on > ?)")
        params.append(store.today())
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    return store.fetch_df(f"SELECT {_COLS} FROM offices{where} ORDER BY state, code", params)


def get_office(store: Any, user: Principal, code: str) -> dict[str, Any]:
    require(user, "read_offices")
    row = store.fetch_one(f"SELECT {_COLS} FROM offices WHERE code = ?", [code]) if isinstance(code, str) else None
    if row is None:
        raise NotFound(f"Capitania/Delegacia/Agência {excerpt(code)} não encontrada.", what="office", key=code)
    return row


def office_choices(store: Any, user: Principal) -> dict[str, str]:
    """code → 'CODE — name' of the open offices where `user` registers records (an office officer: its own), by
    state and code — a form's choices."""
    require(user, "read_offices")
    mine, params = office_match(user, "code")
    rows = store.fetch(f"SELECT code, name FROM offices WHERE (closed_on IS NULL OR closed_on > ?) AND {mine} "
                       "ORDER BY state, code", [store.today(), *params])
    return {r["code"]: office_label(r) for r in rows}


def office_label(row: Mapping[str, Any]) -> str:
    """How a chooser names an office: 'CPRJ — Capitania dos Portos do Rio de Janeiro'."""
    return f"{row['code']} — {row['name']}"


# -- the shipped directory ------------------------------------------------------------------------------------
def load_directory(store: Any) -> dict[str, int]:
    """Load the shipped directory (offices and their cities' municipal holidays) into `store`: what is missing is
    added, what is there is never changed (the office maintains it). Audited as the directory's own actor; returns
    how many offices and holidays were added (0 and 0 on a database already up to date)."""
    today = store.today()
    years = range(today.year - office_directory.HOLIDAY_YEARS_BACK,
                  today.year + office_directory.HOLIDAY_YEARS_AHEAD + 1)
    have = {r["code"] for r in store.fetch("SELECT code FROM offices")}
    new_offices = [o for o in office_directory.OFFICES if o[0] not in have]
    known = have | {o[0] for o in new_offices}
    days = {(r["office_code"], r["day"]) for r in store.fetch("SELECT office_code, day FROM local_holidays")}
    new_days = [(code, date(y, m, d), name) for y in years for code, m, d, name in office_directory.MUNICIPAL_HOLIDAYS
                if code in known and (code, date(y, m, d)) not in days]
    if not new_offices and not new_days:
        return {"offices": 0, "local_holidays": 0}

    def load(tx: Any) -> None:
        for code, name, kind, state, city, district in new_offices:
            row = {"code": code, "name": name, "kind": kind, "state": state, "city": city,
                   "naval_district": district, "closed_on": None, "source": office_directory.DIRECTORY_SOURCE}
            tx.execute(f"INSERT INTO offices ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})",
                       list(row.values()))
            versions.created(tx, "office", code, row)
        for code, day, name in new_days:
            tx.execute("INSERT INTO local_holidays (office_code, day, name) VALUES (?, ?, ?)", [code, day, name])
        tx.audit("load_directory", "offices", None, None,
                 {"offices": len(new_offices), "local_holidays": len(new_days),
                  "directory_source": office_directory.DIRECTORY_SOURCE,
                  "holiday_source": office_directory.HOLIDAY_SOURCE})

    store.write(DIRECTORY_ACTOR, load)
    return {"offices": len(new_offices), "local_holidays": len(new_days)}


# -- maintenance on the page ----------------------------------------------------------------------------------
_CODE = re.compile(r"^[A-Z][A-Z0-9]{1,19}$")


def validate_office(store: Any, data: Mapping[str, Any], *, current: str | None = None) -> dict[str, Any]:
    """The row of a new office (or the new state of office `current`: its code stays), or InputError naming every
    bad field."""
    f = Form(data, allowed=OFFICE_FIELDS)
    rec: dict[str, Any] = {}
    if current is None:
        code = f.text("code", LABELS["code"], max_len=20)
        if code is not None:
            code = code.upper()
            if not _CODE.match(code):
                f.fail("code", f"{LABELS['code']}: de 2 a 20 letras maiúsculas ou algarismos, começando por letra "
                               "(ex.: CPRJ, DELAREIS).")
            elif store.scalar("SELECT count(*) FROM offices WHERE code = ?", [code]):
                f.fail("code", f"{LABELS['code']}: já existe uma Capitania/Delegacia/Agência {code}.")
        rec["code"] = code
    elif f.has("code") and f.data.get("code") != current:
        f.fail("code", f"{LABELS['code']}: a sigla não se corrige (registros apontam para ela); cadastre uma nova e "
                       "encerre esta.")
    rec["name"] = f.text("name", LABELS["name"], max_len=200)
    rec["kind"] = f.choice("kind", LABELS["kind"], tuple(OFFICE_KINDS), labels=OFFICE_KINDS)
    rec["state"] = f.uf("state", LABELS["state"])
    rec["city"] = f.text("city", LABELS["city"], max_len=100)
    rec["naval_district"] = f.integer("naval_district", LABELS["naval_district"], minimum=1, maximum=9)
    closed = rec["closed_on"] = f.date("closed_on", LABELS["closed_on"], required=False)
    if closed is not None and closed.year < 1900:
        f.fail("closed_on", f"{LABELS['closed_on']}: informe uma data a partir de 01/01/1900.")
    rec["source"] = f.text("source", LABELS["source"], max_len=500,
                           required=current is None) or None
    f.done()
    return rec


def create_office(store: Any, user: Principal, data: Mapping[str, Any]) -> str:
    """Add an office to the directory (headquarters, the administrator); its `source` (the act that created it)
    is required. Returns its code."""
    require(user, "manage_offices")
    rec = validate_office(store, data)

    def insert(tx: Any) -> str:
        tx.execute(f"INSERT INTO offices ({', '.join(rec)}) VALUES ({', '.join('?' for _ in rec)})", list(rec.values()))
        versions.created(tx, "office", rec["code"], rec)
        tx.audit("create", "office", rec["code"], None, rec)
        return str(rec["code"])

    return str(store.write(user.username, insert))


def correct_office(store: Any, user: Principal, code: str, data: Mapping[str, Any], reason: str) -> int:
    """Correct an office, or close it from a day (`closed_on`): a new version with its reason; the code never
    changes. Returns the version number."""
    require(user, "manage_offices")
    before = get_office(store, user, code)
    why = versions.checked_reason(reason)
    rec = validate_office(store, data, current=code)
    if rec["source"] is None:
        rec["source"] = before["source"]
    fields = [c for c in OFFICE_FIELDS if c != "code"]
    changed = [c for c in fields if rec[c] != before[c]]
    if not changed:
        raise InputError(Problem("reason", "Nada a corrigir: os dados informados são os que estão registrados."))

    def update(tx: Any) -> int:
        tx.execute(f"UPDATE offices SET {', '.join(f'{c} = ?' for c in changed)} WHERE code = ?",
                   [*(rec[c] for c in changed), code])
        version = versions.corrected(tx, "office", code, before, {"code": code, **rec}, reason=why)
        tx.audit("correct", "office", code, {c: before[c] for c in changed},
                 {**{c: rec[c] for c in changed}, "reason": why, "version": version})
        return version

    return int(store.write(user.username, update))


def office_history(store: Any, user: Principal, code: str) -> list[versions.Version]:
    """The versions of an office (public, as the directory), oldest first."""
    get_office(store, user, code)
    return versions.history(store, "office", code, {k: v for k, v in LABELS.items() if k != "code"})


def records_pointing_at(store: Any, user: Principal, code: str) -> dict[str, int]:
    """How many records point at an office (why it is closed, never deleted): wrecks, contracts, users."""
    get_office(store, user, code)
    row = store.fetch_one("SELECT (SELECT count(*) FROM wrecks WHERE office_code = ?) AS wrecks, "
                          "(SELECT count(*) FROM contracts WHERE office_code = ?) AS contracts, "
                          "(SELECT count(*) FROM users WHERE office_code = ?) AS users", [code, code, code]) or {}
    return {k: int(v) for k, v in row.items()}
