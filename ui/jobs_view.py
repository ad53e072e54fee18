"""Glue for the Tarefas page and the admin overview: the jobs' settings and their next runs (stored times are
shown with `ui.fmt.moment_br`, which converts them to the office's zone once)."""
from __future__ import annotations

from typing import Any

from ui import session, settings
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
