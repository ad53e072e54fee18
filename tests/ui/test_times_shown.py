"""Every time a person reads is in the office's time zone (issue 23 item 1: "times three hours early").

On a copy of the full demo, rows are seeded where the demo has none (a job run, a calendar subscription
per role, a login session, a waiver), and then EVERY stored timestamp — every TIMESTAMP column of every
table, found in the schema, not listed here — is set to one known UTC instant, 19/11/2025 01:47 UTC,
which is 18/11/2025 22:47 in Brasília. Every page is then opened as every role, each tab in turn, and all
it shows (texts, tables, metrics, options, labels, help) is read: 01:47 is a stored time shown unconverted,
19:47 one converted twice (the defect the issue saw: "concluída em 12:26" for a run at 15:26), and a table
cell still holding a datetime is drawn by the browser as UTC. The pages known to show these times must
show 22:47.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.support.db_copies import copy_database
from tests.support.ui import RoleSessions, each_tab, first_user, refused
from ui.registry import PAGES
from ui.session import SEEN_KEY
from valuation.db import access
from valuation.db.store import Store

STORED = datetime(2025, 11, 19, 1, 47)          # naive UTC, as the store keeps it
LOCAL = "18/11/2025 22:47"                      # Brasília (UTC−3)
WRONG = re.compile(r"(?<![\d:])(01:47|19:47)(?![\d])")   # unconverted, or converted twice
VIEWS = [(role, spec.key) for role in access.ROLES for spec in PAGES
         if spec.exists() and spec.key in access.PAGES_BY_ROLE[role]]
# pages that show one of the seeded times whoever opens them (the issue's examples among them)
MUST_SHOW = {"audit": "admin", "jobs": "admin", "subscriptions": "dpc", "users": "admin", "policies": "dpc",
             "statements": "dpc", "rates": "dpc", "commission": "commission"}
_shown: dict[tuple[str, str], bool] = {}
_sessions = RoleSessions()


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


@pytest.fixture(scope="module")
def stamped(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    from streamlit import config

    path = copy_database(full_demo_db, tmp_path_factory.mktemp("times") / "demo.duckdb")
    _seed_missing_rows(path)
    columns = _stamp_every_timestamp(path)
    assert {"audit_log.at", "job_runs.ended_at", "calendar_feeds.created_at", "sessions.created_at",
            "attachments.uploaded_at", "assessment_log.entered_at"} <= set(columns)
    hidden = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    try:
        yield path
    finally:
        config.set_option("client.showErrorDetails", hidden)
        _sessions.clear()


def _session(path: Path, role: str) -> AppTest:
    return _sessions.get(path, role)


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


@pytest.mark.parametrize(("role", "key"), VIEWS, ids=[f"{r}-{k}" for r, k in VIEWS])
def test_no_page_shows_a_stored_time_unconverted(stamped: Path, role: str, key: str) -> None:
    at = _session(stamped, role)
    os.environ["VALUATION_DB"] = str(stamped)
    at.session_state[SEEN_KEY] = datetime.now()
    at.switch_page(f"pages/{key}.py")
    at.run()
    assert not refused(at) and not at.exception, at.exception
    for label in each_tab(at, key):
        seen = read_on_page(at)
        wrong = sorted({m.group(0) for text in seen for m in WRONG.finditer(text)}
                       | {t for t in seen if t.startswith("coluna de datas sem formato")})
        where = f"{role}/{key}" + (f", aba {label}" if label else "")
        assert not wrong, f"{where}: hora guardada mostrada sem converter para Brasília: {wrong}; " + \
            " | ".join(t[:160] for t in seen if WRONG.search(t))[:1500]
        if any(LOCAL in t for t in seen):
            _shown[(role, key)] = True


def test_the_pages_that_show_these_times_show_them_in_brasilia() -> None:
    missing = [f"{role}/{key}" for key, role in MUST_SHOW.items() if not _shown.get((role, key))]
    assert _shown, "no page view ran"
    assert not missing, f"these pages should show {LOCAL}: {missing}"
