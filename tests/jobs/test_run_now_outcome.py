"""Tarefas in the service (issue 23 item 16): "Executar agora" hands the job to the service's scheduler, which
runs it in its own thread — and the page shows the outcome without a reload by hand: the click's own run
waits for it (up to ui.jobs_view.WAIT_S), and a longer run is followed by a note that refreshes itself
(st.fragment run_every) until it ends. On the full demo, with the real JobScheduler."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.db_copies import copy_database
from tests.support.ui import first_user, page_as, texts
from ui import jobs_view
from valuation.db.shared import open_shared
from valuation.jobs.settings import JobSettings


@pytest.fixture
def service(full_demo_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The demo (a copy) as the service holds it: its Store, its settings, a started JobScheduler."""
    from service import state
    from service.scheduler import JobScheduler

    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    monkeypatch.setenv("VALUATION_DB", str(db))
    cfg = JobSettings.from_env(str(db), {"VALUATION_DIGEST_AT": "off", "VALUATION_BACKUP_AT": "off",
                                         "VALUATION_AUDIT_AT": "off", "VALUATION_JOB_RETRY_SECONDS": "0",
                                         "VALUATION_BACKUP_DIR": str(tmp_path / "copias")})
    page = page_as(db, first_user(db, "admin"), "jobs", timeout=120)   # opens the process-wide Store
    scheduler = JobScheduler(open_shared(db), cfg)
    scheduler.start()
    state.set_current(state.ServiceState(store=open_shared(db), settings=cfg, tickets=None,  # type: ignore[arg-type]
                                         scheduler=scheduler))
    try:
        page.run()
        yield page, db
    finally:
        state.set_current(None)
        scheduler.shutdown()


def test_run_now_shows_its_outcome_without_a_reload(service) -> None:  # type: ignore[no-untyped-def]
    at, _ = service
    assert not at.exception, at.exception
    assert not any("rodando como serviço" in i.value for i in at.info), "the page does not see the service"
    at.button(key="run_audit_verify").click().run()     # one click, no other run of the page
    assert not at.exception, at.exception
    shown = texts(at).replace("\\", "")   # Markdown escapes removed: what the reader sees
    assert "“Verificação noturna da cadeia de auditoria”: concluída." in shown, shown[:600]
    assert "atualize a página" not in shown
    runs = at.dataframe[0].value
    assert runs["Tarefa"].iloc[0] == "Verificação noturna da cadeia de auditoria"
    assert runs["Resultado"].iloc[0] == "concluída" and runs["Origem"].iloc[0] == "executada agora"
    assert not at.session_state[jobs_view.PENDING_KEY]


def test_a_longer_run_is_followed_by_a_self_refreshing_note(service, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A run that outlasts the click's wait: a note says it is running and that the outcome comes by itself,
    drawn by a fragment that reruns every POLL_S seconds; its next run after the job ends shows the outcome."""
    import threading
    import time

    import streamlit

    from service import scheduler as sched
    from valuation.jobs.runs import finished_after

    at, db = service
    gate, real = threading.Event(), sched.run_job
    monkeypatch.setattr(sched, "run_job", lambda *a, **k: (gate.wait(30), real(*a, **k))[1])
    monkeypatch.setattr(jobs_view, "WAIT_S", 0.0)
    fragments: list[object] = []
    real_fragment = streamlit.fragment
    monkeypatch.setattr(streamlit, "fragment", lambda *a, **k: (fragments.append(k.get("run_every")),
                                                                real_fragment(*a, **k))[1])
    at.button(key="run_audit_verify").click().run()
    assert not at.exception, at.exception
    assert at.session_state[jobs_view.PENDING_KEY], "the run was not left pending"
    assert any("atualização automática" in i.value for i in at.info), [i.value for i in at.info]
    assert jobs_view.POLL_S in fragments, fragments
    gate.set()
    pending = dict(at.session_state[jobs_view.PENDING_KEY])
    deadline = time.monotonic() + 60
    while finished_after(open_shared(db), "audit_verify", pending["audit_verify"]) is None:
        assert time.monotonic() < deadline, "the job did not end"
        time.sleep(0.2)
    at.run()                                           # what the fragment's run_every does by itself
    assert "“Verificação noturna da cadeia de auditoria”: concluída." in texts(at).replace("\\", "")
    assert not at.session_state[jobs_view.PENDING_KEY]
