"""Glue for the Tarefas page and the admin overview: the jobs' settings and their next runs (stored times are
shown with `ui.fmt.moment_br`, which converts them to the office's zone once)."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import session, settings
from ui.safe import md
from valuation.jobs.settings import JobSettings


def job_settings() -> JobSettings:
    svc = session.service()
    return svc.settings if svc is not None else JobSettings.from_env(settings.db_path())


def next_runs() -> dict[str, Any]:
    """The scheduler's next run of each job, aware (in the schedule's zone): never stripped of its zone, which
    would make it read as a stored UTC time and shift it again ("Todo dia às 07:00 · Próxima: 04:00")."""
    svc = session.service()
    if svc is None or svc.scheduler is None:
        return {}
    return dict(svc.scheduler.next_runs())


def audit_failure_notice(store: Any) -> None:
    """On the admin overview: the latest audit-chain verification, when it failed."""
    import streamlit as st

    from ui.fmt import moment_br
    from ui.safe import md
    from valuation.jobs.runs import audit_alert

    alert = audit_alert(store)
    if alert is not None:
        st.error(f"A verificação da cadeia de auditoria de {moment_br(alert['ended_at'], zone=True)} "
                 f"falhou. {md(alert['message'] or '')} Veja a página Tarefas.", icon=":material/gpp_bad:")


def configuration_notice() -> None:
    """On Tarefas: each problem of the service's configuration, naming its variable (issue 43) — the ones the
    service found at start-up, or, without the service, the ones of this process's environment."""
    from valuation.jobs.configuration import configuration_problems

    svc = session.service()
    for problem in svc.configuration if svc is not None else configuration_problems():
        st.error(md(problem.text), icon=":material/settings_alert:")


def recovery_notice(store: Any, cfg: JobSettings) -> None:
    """On Tarefas: the newest proven backup against the recovery point (an error when it is late)."""
    import streamlit as st

    from valuation.jobs.drill import describe, recovery_point

    point = recovery_point(store, cfg, store.now())
    text = describe(point, cfg.tz)
    if point.unproven:
        text += f" {point.unproven} cópia(s) mais recente(s) ainda sem prova de restauração."
    if point.late:
        st.error(text, icon=":material/history:")
    else:
        st.success(text, icon=":material/verified:")


# -- "Executar agora" in the service: the outcome shows without a reload (issue 23 item 16) -----------------
PENDING_KEY = "jobs_pending"      # {job: the newest run id when it was asked for}
FLASH_KEY = "jobs_flash"          # (ok, text) of a run that ended, shown once
WAIT_S = 20.0                     # the button waits this long for the outcome, then the page polls
POLL_S = 2.0


def ask_run(store: Any, name: str, label: str, started_by: str) -> None:
    """Hand `name` to the service's scheduler and wait (up to WAIT_S) for its outcome; a longer run is left
    to `poll_pending`, which the page draws while it is pending."""
    import time

    from valuation.jobs.runs import latest_run_id

    svc = session.service()
    mark = latest_run_id(store)
    svc.scheduler.run_now(name, started_by)
    st.session_state.setdefault(PENDING_KEY, {})[name] = mark
    deadline = time.monotonic() + WAIT_S
    with st.spinner(f"Executando “{label}”…"):
        while time.monotonic() < deadline and not settle_pending(store):
            time.sleep(0.25)


def settle_pending(store: Any) -> bool:
    """Move the pending runs that ended to the flash; True when one did (the page then redraws)."""
    from valuation.jobs.runs import JOB_LABELS, OUTCOME_LABELS, finished_after

    pending: dict[str, int] = st.session_state.get(PENDING_KEY, {})
    ended = False
    for name, mark in list(pending.items()):
        row = finished_after(store, name, mark)
        if row is None:
            continue
        del pending[name]
        ok = row["outcome"] == "ok"
        text = f"“{JOB_LABELS.get(name, name)}”: {OUTCOME_LABELS[row['outcome']]}" + (
            f" — {row['message']}" if row["message"] and not ok else ".")
        st.session_state[FLASH_KEY] = (ok, text)
        ended = True
    return ended


def poll_pending(store: Any) -> None:
    """While a run asked for is pending: a note that refreshes itself every POLL_S seconds and redraws the
    page when the run ends (st.fragment run_every; no reload by hand)."""
    if not st.session_state.get(PENDING_KEY):
        return

    def note() -> None:
        if settle_pending(store):
            st.rerun(scope="app")
        from valuation.jobs.runs import JOB_LABELS

        names = ", ".join(f"“{JOB_LABELS.get(n, n)}”" for n in st.session_state.get(PENDING_KEY, {}))
        st.info(f"Em execução: {names}. O resultado aparece aqui ao terminar (atualização automática).")

    st.fragment(note, run_every=POLL_S)()


def show_flash() -> None:
    flash = st.session_state.pop(FLASH_KEY, None)
    if flash is not None:
        ok, text = flash
        (st.success if ok else st.error)(md(text))
