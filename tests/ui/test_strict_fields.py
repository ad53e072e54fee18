"""Every money field and every date field of every page keeps what the person typed, or saves nothing
(issue 23 items 2, 3 and 11).

The fields are not listed here: every page is opened as every role on a copy of the full demo, each tab
in turn, and the fields are found as the person sees them — a money field by its placeholder ('ex.:
1.234,56') or a label in reais ('(R$)'), a date field by its placeholder 'dd/mm/aaaa'. No page may still
use Streamlit's date picker (it changed 31/02/2026 into 28/02/2026 and silently kept the earlier day for
one past its maximum). Each field found gets the same table of bad input, submitted through its form:
the page must name the field (and, for a date, the range allowed) and write nothing (the audit log, which
every write appends to, does not grow).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.db_copies import copy_database
from tests.support.ui import RoleSessions, each_tab, open_tab, refused
from ui.registry import PAGES
from ui.session import SEEN_KEY
from valuation.db import access
from valuation.db.shared import close_shared, using

BAD_AMOUNTS = ("1001.76,41", "1,234.56", "12.34.567", "1.234,5678901")   # read two ways, or too many places
BAD_DAYS = ("31/02/2026", "1/1/26")            # impossible (it became 28/02/2026), or not dd/mm/aaaa
AFTER_MAX = "after"                                                         # the day after the field's maximum
MONEY_PLACEHOLDER = re.compile(r"^ex\.: [0-9.]+,[0-9]+$")
RANGE = re.compile(r"de ([0-9]{2}/[0-9]{2}/[0-9]{4}) a ([0-9]{2}/[0-9]{2}/[0-9]{4})")
VIEWS = [(role, spec.key) for role in access.ROLES for spec in PAGES
         if spec.exists() and spec.key in access.PAGES_BY_ROLE[role]]
_sessions = RoleSessions()
_found: dict[str, set[str]] = {"money": set(), "date": set()}
_attacked: set[tuple[str, str | None, str, str]] = set()   # a field several roles see: once


@dataclass(frozen=True)
class Field:
    kind: str        # 'money' or 'date'
    label: str
    form_id: str     # '' outside a form (a filter: the page stops at a bad day)
    help: str
    value: str       # as the page first shows it: put back after each attack (widgets keep their state)


@pytest.fixture(scope="module")
def demo(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = copy_database(full_demo_db, tmp_path_factory.mktemp("strict") / "demo.duckdb")
    yield path
    _sessions.clear()
    close_shared(path)


def _session(path: Path, role: str) -> AppTest:
    return _sessions.get(path, role)


def _open(at: AppTest, key: str, tab: str | None) -> None:
    at.session_state[SEEN_KEY] = datetime.now()
    at.switch_page(f"pages/{key}.py")
    at.run()
    if tab is not None:              # the tabs remember the last one opened: open this one
        open_tab(at, key, tab)
    assert not refused(at) and not at.exception, at.exception


def strict_fields(at: AppTest) -> list[Field]:
    """The money and date fields of the run, as the person sees them."""
    found = []
    for box in at.text_input:
        placeholder = box.placeholder or ""
        if placeholder == "dd/mm/aaaa":
            found.append(Field("date", box.label, box.form_id, box.help or "", box.value or ""))
        elif MONEY_PLACEHOLDER.match(placeholder) or "(R$)" in box.label:
            found.append(Field("money", box.label, box.form_id, box.help or "", box.value or ""))
    return found


def _box(at: AppTest, field: Field) -> Any:
    boxes = [b for b in at.text_input if b.label == field.label and b.form_id == field.form_id]
    assert boxes, f"{field.label} sumiu da página"
    return boxes[0]


def _after_max(field: Field) -> str:
    """The day after the last day the field says it takes (its help names the range)."""
    m = RANGE.search(field.help)
    assert m, f"{field.label}: a ajuda não diz o intervalo permitido ({field.help!r})"
    last = datetime.strptime(m[2], "%d/%m/%Y").date()
    return (last + timedelta(days=1)).strftime("%d/%m/%Y") if last < date(9999, 12, 31) else "32/12/9999"


def _audit_rows(path: Path) -> int:
    with using(path) as store:
        return int(store.scalar("SELECT count(*) FROM audit_log"))


def _errors(at: AppTest) -> list[str]:
    return [str(e.value).replace("\\", "") for e in at.error]


def _attack(at: AppTest, path: Path, key: str, tab: str | None, fields: list[Field], group: list[Field],
            bad: str) -> list[str]:
    """Type `bad` into every field of `group` (one form, one kind), send the form; what went wrong. The
    other `fields` of the tab get their first value back (widgets keep what the last attack typed)."""
    _open(at, key, tab)
    for field in fields:
        if field not in group and [b for b in at.text_input if b.label == field.label]:
            _box(at, field).set_value(field.value)
    typed = {f: (_after_max(f) if bad == AFTER_MAX else bad) for f in group}
    for field, text in typed.items():
        _box(at, field).set_value(text)
    before = _audit_rows(path)
    form_id = group[0].form_id
    if form_id:
        submit = [b for b in at.button if b.form_id == form_id]
        assert submit, f"{key}: formulário sem botão de envio"
        submit[0].click()
    at.run()
    assert not at.exception, at.exception
    wrong = []
    errors = _errors(at)
    for field, text in typed.items():
        named = [e for e in errors if f"{field.label}:" in e]
        if not named:
            wrong.append(f"{field.label} = {text!r}: nenhum erro nomeia o campo ({errors[:3]})")
        elif field.kind == "date" and not any(RANGE.search(e) for e in named):
            wrong.append(f"{field.label} = {text!r}: o erro não diz o intervalo permitido ({named[0]})")
    if any(e.startswith("Nada foi gravado") and "abaixo" in e for e in errors):   # the list is under the form
        wrong.append(f"{[f.label for f in group]}: a lista de problemas manda corrigir campos 'abaixo'")
    if _audit_rows(path) != before:
        wrong.append(f"{[f.label for f in group]} = {bad!r}: algo foi gravado")
    if not form_id:       # a filter stopped the page at the bad day: put it back for the fields below it
        for field in group:
            _box(at, field).set_value(field.value)
        at.run()
    return wrong


@pytest.mark.parametrize(("role", "key"), VIEWS, ids=[f"{r}-{k}" for r, k in VIEWS])
def test_every_money_and_date_field_refuses_what_it_cannot_read_exactly(demo: Path, role: str, key: str) -> None:
    at = _session(demo, role)
    _open(at, key, None)
    by_tab: dict[str | None, list[Field]] = {}
    for tab in each_tab(at, key):
        assert not at.date_input, f"{role}/{key} ({tab}): seletor de data do Streamlit: " \
            f"{[d.label for d in at.date_input]}"
        by_tab[tab] = strict_fields(at)
    wrong: list[str] = []
    for tab, fields in by_tab.items():
        groups: dict[tuple[str, str], list[Field]] = {}
        for field in fields:
            # a form's fields are sent together; a field outside a form (a filter stops the page) alone
            groups.setdefault((field.form_id or field.label, field.kind), []).append(field)
            _found[field.kind].add(f"{key}: {field.label}")
        for (_, kind), group in groups.items():
            if all((key, tab, f.label, f.kind) in _attacked for f in group):
                continue
            _attacked.update((key, tab, f.label, f.kind) for f in group)
            for bad in (BAD_AMOUNTS if kind == "money" else (*BAD_DAYS, AFTER_MAX)):
                wrong += [f"{role}/{key} ({tab}): {w}" for w in _attack(at, demo, key, tab, fields, group, bad)]
    assert not wrong, "\n".join(wrong)


def test_the_fields_the_issue_names_were_found() -> None:
    """The walk reached the fields of the issue's examples (a walk finding nothing would pass above): the
    Commission's value and price date, the rate, the municipal holiday."""
    assert {"commission: Valor", "rates: Taxa (R$ por unidade)", "survey_costs: Valor (R$)"} <= _found["money"], \
        sorted(_found["money"])
    assert {"commission: Data do preço", "calendar: Data do feriado", "rates: Data"} <= _found["date"], \
        sorted(_found["date"])
