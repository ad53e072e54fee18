"""Glue for the Tarefas page and the admin overview: the jobs' settings and their runs in local time."""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ui import session, settings
from valuation.jobs.settings import JobSettings


def job_settings() -> JobSettings:
    svc = session.service()
    return svc.settings if svc is not None else JobSettings.from_env(settings.db_path())


def local(moment: datetime | None, cfg: JobSettings) -> datetime | None:
    """A stored naive-UTC timestamp in the schedule's time zone (naive, for display)."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC).astimezone(cfg.tz).replace(tzinfo=None)


def next_runs() -> dict[str, Any]:
    svc = session.service()
    if svc is None or svc.scheduler is None:
        return {}
    return {k: (v.replace(tzinfo=None) if v is not None else None) for k, v in svc.scheduler.next_runs().items()}


def audit_failure_notice(store: Any) -> None:
    """On the admin overview: the latest audit-chain verification, when it failed."""
    import streamlit as st

    from ui.fmt import date_br
    from ui.safe import md
    from valuation.jobs.runs import audit_alert

    alert = audit_alert(store)
    if alert is not None:
        st.error(f"A verificação da cadeia de auditoria de {date_br(local(alert['ended_at'], job_settings()))} "
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
