"""ONE AppTest walk on the full demo (issue 11, issue 23 items 1, 2, 3, 10 and 11): every page the navigation
offers each role — logged in as the role's first demo user, in registry order, as a person clicking the
sidebar — and every tab of it (ui/tabs.LazyTabs draws the open tab only), each rendered once, with all the
AppTest checks read from that render. Each check is its own test below, reading the walk's result (built
once, `walk`):

- render: no exception, no raw snake_case identifier, no blank marker (None, nan, NaT, <NA>, empty) anywhere
  a user reads — the checks of ../shared/tools/pages_on_demo.py --strict (`tests.support.ui.page_problems`) —
  and no page the navigation offers that refuses its role;
- names: people by their names, codes by their labels: no demo login (users.username: 'dpc.prado',
  'exp.arqueonautica') where a person's name exists ("Cadastrada por dpc.prado", the audit's "Usuário"
  column), and no stored code from `RAW_CODES` ("Tipo: authorisation", "Versão do arquivo: thumb"). The users
  page is the one place a login is the thing read (its "Usuário" column, its account selector): there only
  the codes are checked;
- times: every time a person reads is in the office's time zone ("times three hours early"). The demo copy
  has rows seeded where the demo has none (a job run, a calendar subscription per role, a login session, a
  waiver), and then EVERY stored timestamp — every TIMESTAMP column of every table, found in the schema — set
  to 19/11/2025 01:47 UTC, which is 18/11/2025 22:47 in Brasília. Everything a page shows (texts, tables,
  metrics, options, labels, help) is read: 01:47 is a stored time shown unconverted, 19:47 one converted twice,
  and a table cell still holding a datetime is drawn by the browser as UTC. The pages known to show these
  times must show 22:47;
- strict fields: every money field and every date field keeps what the person typed, or saves nothing. The
  fields are found as the person sees them — a money field by its placeholder ('ex.: 1.234,56') or a label in
  reais ('(R$)'), a date field by its placeholder 'dd/mm/aaaa'; no page may still use Streamlit's date picker
  (it changed 31/02/2026 into 28/02/2026). Each field found (once, whoever sees it first) gets the same table of
  bad input, submitted through its form: the page must name the field (and, for a date, the range allowed)
  and write nothing (the audit log, which every write appends to, does not grow).

The 100 000-item database has its own walk (test_pages_full_data.py).
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.support.db_copies import copy_database
from tests.support.ui import RoleSessions, each_tab, first_user, open_tab, page_problems, refused, visible_texts
from ui.registry import PAGES
from ui.session import SEEN_KEY
from ui.tabs import tabs_key
from valuation.db import access
from valuation.db.shared import close_shared, using
from valuation.db.store import Store

VIEWS = [(role, spec.key) for role in access.ROLES for spec in PAGES
         if spec.exists() and spec.key in access.PAGES_BY_ROLE[role]]
# Stored codes a reader must never meet, as whole lowercase words (attachment kinds, owners and variants,
# Commission bodies, roles, job outcomes and triggers): each has a Portuguese label where it is shown.
RAW_CODES = ("authorisation", "co_signature", "cost_sheet", "photo", "report", "document", "thumb", "preview",
             "deadline_event", "contract", "wreck", "navy", "culture", "explorer", "commission",
             "commission_president", "running", "failed", "succeeded", "schedule", "retry")
LOGINS_READ_AS_SUCH = ("users", "organisations")   # the account administration and a company's logins
# (Empresas → Usuários da empresa): the login is the record itself
STORED = datetime(2025, 11, 19, 1, 47)          # naive UTC, as the store keeps it
LOCAL = "18/11/2025 22:47"                      # Brasília (UTC−3)
WRONG = re.compile(r"(?<![\d:])(01:47|19:47)(?![\d])")   # unconverted, or converted twice
# pages that show one of the seeded times whoever opens them (the issue's examples among them)
MUST_SHOW = {"audit": "admin", "jobs": "admin", "subscriptions": "dpc", "users": "admin", "policies": "dpc",
             "statements": "dpc", "rates": "dpc", "commission": "commission", "notices": "commission"}
BAD_AMOUNTS = ("1001.76,41", "1,234.56", "12.34.567", "1.234,5678901")   # read two ways, or too many places
BAD_DAYS = ("31/02/2026", "1/1/26")            # impossible (it became 28/02/2026), or not dd/mm/aaaa
AFTER_MAX = "after"                                                         # the day after the field's maximum
MONEY_PLACEHOLDER = re.compile(r"^ex\.: [0-9.]+,[0-9]+$")
RANGE = re.compile(r"de ([0-9]{2}/[0-9]{2}/[0-9]{4}) a ([0-9]{2}/[0-9]{2}/[0-9]{4})")
@dataclass(frozen=True)
class Field:
    kind: str        # 'money' or 'date'
    label: str
    form_id: str     # '' outside a form (a filter: the page stops at a bad day)
    help: str
    value: str       # as the page first shows it: put back after each attack (widgets keep their state)


def _open(at: AppTest, key: str, tab: str | None) -> None:
    at.session_state[SEEN_KEY] = datetime.now()
    at.switch_page(f"pages/{key}.py")
    at.run()
    if tab is not None and not _drawn(at, key, tab):    # the tabs remember the last one opened: open this one
        open_tab(at, key, tab)
    assert not refused(at) and not at.exception, at.exception


def _drawn(at: AppTest, key: str, tab: str) -> bool:
    """Whether the run drew `tab`: the page's tabs remember the one opened last, so each attack after the first
    on a tab finds it open (and a click on the open tab runs nothing)."""
    state = tabs_key(key, [t.label for t in at.tabs])
    return state in at.session_state and at.session_state[state] == tab


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


def words(names: tuple[str, ...]) -> re.Pattern[str]:
    """Whole words: a login is not found inside an e-mail address or a longer name."""
    return re.compile(r"(?<![\w.@-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w@-]|\.\w)")


def seen(at: AppTest) -> list[str]:
    """What the run shows: the whole-demo checks' texts plus plain st.text lines and expander labels."""
    return [*visible_texts(at), *(str(t.value) for t in at.text), *(str(e.label) for e in at.expander)]


def _seed_missing_rows(path: Path) -> None:
    """Rows the demo lacks in tables whose times pages show: a job run, a subscription per role, a session,
    a waiver — made by the product's own functions."""
    from valuation.accounts import sessions
    from valuation.deadlines import engine, events, feeds
    from valuation.jobs.runs import run_job
    from valuation.jobs.settings import JobSettings

    with Store(path) as store:
        run_job(store, "audit_verify", JobSettings.from_env(str(path), {}), trigger="manual", started_by="admin")
        now = datetime.now(UTC)
        for role in access.ROLES:
            user = first_user(path, role)
            sessions.issue(store, user, now=now)
            if "subscriptions" in access.PAGES_BY_ROLE[role]:
                feeds.create_feed(store, user, now=now)
        dpc = first_user(path, "dpc")
        frame = engine.compute_deadlines(store, dpc, as_of=now.date())
        pending = frame[frame["state"].isin(engine.PENDING_STATES)]
        events.waive_deadline(store, dpc, str(pending["key"].iloc[0]), "Dispensa de teste do horário.")


def _stamp_every_timestamp(path: Path) -> list[str]:
    """Set every stored timestamp of every table to STORED; the columns it found ('table.column')."""
    import duckdb

    con = duckdb.connect(str(path))      # the test's own edit of the data, below the store (no audit row)
    try:
        cols = con.execute(
            "SELECT c.table_name, c.column_name FROM information_schema.columns c "
            "JOIN information_schema.tables t ON t.table_name = c.table_name AND t.table_schema = c.table_schema "
            "WHERE t.table_type = 'BASE TABLE' AND c.data_type LIKE 'TIMESTAMP%' AND c.table_schema = 'main' "
            "ORDER BY 1, 2").fetchall()
        for table, column in cols:
            con.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE "{column}" IS NOT NULL', [STORED])
        # a time shown only when set: the admin reads until when a user is locked out
        con.execute("UPDATE users SET locked_until = ? WHERE id = (SELECT min(id) FROM users)", [STORED])
    finally:
        con.close()
    return [f"{t}.{c}" for t, c in cols]


def _nodes(node: Any) -> Iterator[Any]:
    yield node
    children = getattr(node, "children", None)
    for child in (children.values() if isinstance(children, dict) else ()):
        yield from _nodes(child)


def read_on_page(at: AppTest) -> list[str]:
    """Everything the run shows: each element's text fields (values, labels, help, options, captions —
    its message as protobuf text) and each table's cells as the browser would draw them."""
    out: list[str] = []
    for node in _nodes(at._tree):
        proto = getattr(node, "proto", None)
        if proto is not None and type(node).__name__ not in ("Dataframe", "ArrowTable"):
            out.append(str(proto))
        value = getattr(node, "value", None) if type(node).__name__ in ("Dataframe", "Table") else None
        if isinstance(value, pd.DataFrame):
            out += [str(c) for c in value.columns]
            for c in value.columns:
                if pd.api.types.is_datetime64_any_dtype(value[c]):
                    out.append(f"coluna de datas sem formato: {c} {value[c].head(3).tolist()}")
                out += [str(x) for x in value[c].head(300).tolist()]
    return out


CHECKS = ("render", "names", "times", "date_picker", "strict_fields")


@dataclass
class Walk:
    path: Path
    columns: list[str]
    found: dict[str, list[str]] = dataclasses.field(default_factory=lambda: {c: [] for c in CHECKS})
    views: set[tuple[str, str, str | None]] = dataclasses.field(default_factory=set)
    shown_local: set[tuple[str, str]] = dataclasses.field(default_factory=set)   # (role, page) showing LOCAL
    fields: dict[str, set[str]] = dataclasses.field(default_factory=lambda: {"money": set(), "date": set()})
    # a field several roles see: attacked once
    attacked: set[tuple[str, str | None, str, str]] = dataclasses.field(default_factory=set)


def _read(walk: Walk, at: AppTest, role: str, key: str, tab: str | None, login_word: re.Pattern[str],
          code_word: re.Pattern[str]) -> list[Field]:
    """Every read-only check of one render (a page's open tab); the strict fields it shows."""
    where = f"{role}/{key}" + (f", aba {tab}" if tab else "")
    walk.views.add((role, key, tab))
    walk.found["render"] += [f"{where}: {p}" for p in page_problems(at)]
    for text in seen(at):
        hits = set(code_word.findall(text))
        if key not in LOGINS_READ_AS_SUCH:
            hits |= set(login_word.findall(text))
        walk.found["names"] += [f"{where}: {h!r} in {text[:120]!r}" for h in sorted(hits)]
    shown = read_on_page(at)
    wrong = sorted({m.group(0) for text in shown for m in WRONG.finditer(text)}
                   | {t for t in shown if t.startswith("coluna de datas sem formato")})
    if wrong:
        walk.found["times"].append(f"{where}: hora guardada mostrada sem converter para Brasília: {wrong}; "
                                   + " | ".join(t[:160] for t in shown if WRONG.search(t))[:1500])
    if any(LOCAL in t for t in shown):
        walk.shown_local.add((role, key))
    if at.date_input:
        walk.found["date_picker"].append(f"{where}: seletor de data do Streamlit: {[d.label for d in at.date_input]}")
    return strict_fields(at)


def _attack_fields(walk: Walk, at: AppTest, role: str, key: str, by_tab: dict[str | None, list[Field]]) -> None:
    for tab, fields in by_tab.items():
        groups: dict[tuple[str, str], list[Field]] = {}
        for f in fields:
            # a form's fields are sent together; a field outside a form (a filter stops the page) alone
            groups.setdefault((f.form_id or f.label, f.kind), []).append(f)
            walk.fields[f.kind].add(f"{key}: {f.label}")
        for (_, kind), group in groups.items():
            if all((key, tab, f.label, f.kind) in walk.attacked for f in group):
                continue
            walk.attacked.update((key, tab, f.label, f.kind) for f in group)
            for bad in (BAD_AMOUNTS if kind == "money" else (*BAD_DAYS, AFTER_MAX)):
                try:
                    wrong = _attack(at, walk.path, key, tab, fields, group, bad)
                except AssertionError as exc:
                    wrong = [f"{[f.label for f in group]} = {bad!r}: {str(exc).splitlines()[0][:300]}"]
                walk.found["strict_fields"] += [f"{role}/{key} ({tab}): {w}" for w in wrong]


@pytest.fixture(scope="module")
def walk(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Walk]:
    """The walk, once: on a copy of the full demo, seeded and stamped (see the module docstring); while it
    runs, exceptions keep their message (the product hides them from users: .streamlit/config.toml)."""
    from streamlit import config

    path = copy_database(full_demo_db, tmp_path_factory.mktemp("walk") / "demo.duckdb")
    _seed_missing_rows(path)
    result = Walk(path, _stamp_every_timestamp(path))
    with Store(path, migrate=False) as s:
        logins = tuple(str(r["username"]) for r in s.fetch("SELECT username FROM users"))
    login_word, code_word = words(logins), words(RAW_CODES)
    hidden = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    sessions = RoleSessions()
    try:
        for role, key in VIEWS:
            at = sessions.get(path, role)
            at.session_state[SEEN_KEY] = datetime.now()   # a person clicking through is never idle for 30 minutes
            at.switch_page(f"pages/{key}.py")
            at.run()
            if refused(at):
                result.found["render"].append(f"{role} is offered {key} but the page refuses")
                continue
            by_tab = {tab: _read(result, at, role, key, tab, login_word, code_word) for tab in each_tab(at, key)}
            _attack_fields(result, at, role, key, by_tab)
        yield result
    finally:
        config.set_option("client.showErrorDetails", hidden)
        sessions.clear()
        close_shared(path)


def test_the_walk_covers_every_role_and_every_registered_page(walk: Walk) -> None:
    """The walk is not empty by accident: every role has pages, every page a role, and each was rendered."""
    assert {r for r, _ in VIEWS} == set(access.ROLES)
    assert {k for _, k in VIEWS} == {p.key for p in PAGES}, "a registered page without a file, or offered to no role"
    assert {(r, k) for r, k, _ in walk.views} == set(VIEWS)


def test_every_page_renders_for_its_roles_with_nothing_raw_or_blank(walk: Walk) -> None:
    assert not walk.found["render"], "\n".join(walk.found["render"])


def test_every_page_names_people_and_labels_codes(walk: Walk) -> None:
    assert not walk.found["names"], "\n".join(sorted(set(walk.found["names"]))[:40])


def test_no_page_shows_a_stored_time_unconverted(walk: Walk) -> None:
    assert {"audit_log.at", "job_runs.ended_at", "calendar_feeds.created_at", "sessions.created_at",
            "attachments.uploaded_at", "assessment_log.entered_at"} <= set(walk.columns)
    assert not walk.found["times"], "\n".join(walk.found["times"])


def test_the_pages_that_show_these_times_show_them_in_brasilia(walk: Walk) -> None:
    missing = [f"{role}/{key}" for key, role in MUST_SHOW.items() if (role, key) not in walk.shown_local]
    assert walk.shown_local, "no page shows the seeded time"
    assert not missing, f"these pages should show {LOCAL}: {missing}"


def test_no_page_uses_streamlits_date_picker(walk: Walk) -> None:
    assert not walk.found["date_picker"], "\n".join(walk.found["date_picker"])


def test_every_money_and_date_field_refuses_what_it_cannot_read_exactly(walk: Walk) -> None:
    assert not walk.found["strict_fields"], "\n".join(walk.found["strict_fields"])


def test_the_fields_the_issue_names_were_found(walk: Walk) -> None:
    """The walk reached the fields of the issue's examples (a walk finding nothing would pass above): the
    Commission's value and price date, the rate, the municipal holiday."""
    assert {"commission: Valor", "rates: Taxa (R$ por unidade)", "survey_costs: Valor (R$)"} <= walk.fields["money"], \
        sorted(walk.fields["money"])
    assert {"commission: Data do preço", "calendar: Data do feriado", "rates: Data"} <= walk.fields["date"], \
        sorted(walk.fields["date"])


def test_the_checks_see_what_they_look_for() -> None:
    """The patterns match the defects as they were shown, and not the names that replace them."""
    logins = ("dpc.prado", "exp.arqueonautica")
    assert words(logins).findall("Cadastrada por dpc.prado") == ["dpc.prado"]
    assert words(logins).findall("enviada por exp.arqueonautica em 02/12/2026") == ["exp.arqueonautica"]
    assert not words(logins).findall("Administrador do sistema · dpc.prado@marinha.mil.br")
    assert words(RAW_CODES).findall("Tipo: authorisation; Versão do arquivo: thumb") == ["authorisation", "thumb"]
    assert [m.group(0) for m in WRONG.finditer("às 01:47, às 19:47, às 22:47, 101:470")] == ["01:47", "19:47"]
