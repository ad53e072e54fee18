"""Running a job: each attempt recorded in `job_runs` (job, start, end, outcome, message); a failed
job is retried once after a pause and, if it fails again, reported by e-mail to the admins.
Nothing here is scheduled: the service's scheduler (service/scheduler.py) and the "Executar
agora" button of the Tarefas page both call `run_job`.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from valuation.core import clock
from valuation.core.errors import ValuationError
from valuation.core.money import format_date_br
from valuation.jobs.settings import JobSettings

log = logging.getLogger("valuation.jobs")
MESSAGE_CHARS = 1000


@dataclass(frozen=True)
class Job:
    name: str
    label: str          # pt-BR, as the Tarefas page shows it
    run: Callable[[Any, JobSettings], str]
    # an interval job that runs only when it has work (its cheap check, asked at each interval): a quiet day
    # records no run (the notices' e-mail every few minutes)
    due: Callable[[Any, JobSettings], bool] | None = None


def _local_now(settings: JobSettings) -> datetime:
    return clock.now_utc().astimezone(settings.tz)


def _digest(store: Any, settings: JobSettings) -> str:
    from valuation.jobs.digest_mail import digest_mails, recipients
    from valuation.jobs.mail import MailNotConfigured, send

    as_of = _local_now(settings).date()
    mails = digest_mails(store, as_of=as_of, base_url=settings.base_url)
    if not mails:
        return f"Nenhum prazo vencido ou a vencer em {format_date_br(as_of)}: nenhuma mensagem."
    if not settings.smtp.configured:
        raise MailNotConfigured()
    sent = send(settings.smtp, mails)
    return (f"{sent} mensage{'ns' if sent != 1 else 'm'} enviada{'s' if sent != 1 else ''} "
            f"a {len(recipients(mails))} destinatário{'s' if len(recipients(mails)) != 1 else ''}.")


def _backup(store: Any, settings: JobSettings) -> str:
    from valuation.jobs.backups import take

    return take(store, settings, nightly=True)


def _backup_hourly(store: Any, settings: JobSettings) -> str:
    from valuation.jobs.backups import take

    return take(store, settings, nightly=False)


def _drill(store: Any, settings: JobSettings) -> str:
    from valuation.jobs.drill import drill

    return drill(store, settings)


def _audit(store: Any, settings: JobSettings) -> str:
    from valuation.jobs.maintenance import verify_audit

    return verify_audit(store)


def _notices_mail(store: Any, settings: JobSettings) -> str:
    from valuation.jobs.notices_mail import send_now

    return send_now(store, settings)


def _notices_waiting(store: Any, settings: JobSettings) -> bool:
    from valuation.jobs.notices_mail import waiting_now

    return waiting_now(store, settings)


def _notices_daily(store: Any, settings: JobSettings) -> str:
    from valuation.jobs.notices_daily import run

    return run(store, settings)


JOBS: dict[str, Job] = {j.name: j for j in (
    Job("digest", "Resumo diário de prazos por e-mail", _digest),
    Job("backup", "Cópia de segurança noturna", _backup),
    Job("backup_hourly", "Cópia de segurança de hora em hora", _backup_hourly),
    Job("restore_drill", "Prova de restauração da cópia mais recente", _drill),
    Job("audit_verify", "Verificação noturna da cadeia de auditoria", _audit),
    Job("notices_daily", "Avisos do dia: lembretes, prazos a vencer e resumo diário por e-mail", _notices_daily),
    Job("notices_mail", "Avisos por e-mail, assim que chegam", _notices_mail, due=_notices_waiting),
)}
BACKUP_JOBS = ("backup", "backup_hourly")   # each successful one is followed by the restore drill
SEAL_ALERT = "audit_seal"   # not a runnable job: the record of a write refused for the audit seal
RECOVERY_ALERT = "recovery_point"   # not a runnable job either: jobs/drill.check_recovery_point
JOB_LABELS: dict[str, str] = {**{name: j.label for name, j in JOBS.items()},
                              SEAL_ALERT: "Alerta: selo da cadeia de auditoria",
                              RECOVERY_ALERT: "Alerta: ponto de recuperação"}
OUTCOME_LABELS: dict[str, str] = {"running": "em execução", "ok": "concluída", "failed": "falhou"}
TRIGGER_LABELS: dict[str, str] = {"schedule": "agenda", "manual": "executada agora", "alert": "alerta"}


def _start(store: Any, name: str, trigger: str, attempt: int, started_by: str) -> int:
    def run(tx: Any) -> int:
        run_id = int(tx.scalar(
            "INSERT INTO job_runs (job, trigger, attempt, started_at, outcome, started_by) "
            "VALUES (?, ?, ?, ?, 'running', ?) RETURNING id", [name, trigger, attempt, store.now(), started_by]))
        tx.audit("start_job", "job_run", run_id, None, {"job": name, "trigger": trigger, "attempt": attempt})
        return run_id
    return int(store.write(started_by, run))


def _finish(store: Any, run_id: int, outcome: str, message: str) -> None:
    def run(tx: Any) -> None:
        tx.execute("UPDATE job_runs SET ended_at = ?, outcome = ?, message = ? WHERE id = ?",
                   [store.now(), outcome, message[:MESSAGE_CHARS], run_id])
        tx.audit("finish_job", "job_run", run_id, {"outcome": "running"}, {"outcome": outcome})
    store.write("agenda", run)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ValuationError):
        return str(exc)
    return f"Erro inesperado ({type(exc).__name__}): {exc}"


def run_job(store: Any, name: str, settings: JobSettings, *, trigger: str = "schedule",
            started_by: str = "agenda", stop: threading.Event | None = None) -> bool:
    """Run job `name`: True when an attempt succeeded. A failure is retried once after
    `settings.retry_seconds` (unless `stop` is set meanwhile), then reported to the admins."""
    job = JOBS[name]
    message = ""
    for attempt in (1, 2):
        run_id = _start(store, name, trigger, attempt, started_by)
        try:
            message = job.run(store, settings)
        except Exception as exc:  # every failure is recorded and reported, never lost
            message = _describe(exc)
            log.error("job %s failed (attempt %d): %s", name, attempt, message,
                      exc_info=not isinstance(exc, ValuationError))   # an expected failure needs no traceback
            _finish(store, run_id, "failed", message)
        else:
            _finish(store, run_id, "ok", message)
            log.info("job %s ok: %s", name, message)
            return True
        if attempt == 1 and (stop or threading.Event()).wait(settings.retry_seconds):
            break  # the service is stopping: no retry now, the failure is still reported
    notify_failure(store, settings, job, message)
    return False


def notify_failure(store: Any, settings: JobSettings, job: Job, message: str, *, repeated: bool = True) -> None:
    """E-mail the active admins that `job` failed twice (logged when e-mail is not configured);
    `repeated=False`: an alert, reported at its first occurrence."""
    from valuation.jobs.digest_mail import admin_addresses
    from valuation.jobs.mail import Mail, send

    to = admin_addresses(store)
    link = settings.base_url + "/jobs"
    what = ("falhou duas vezes (a segunda foi a nova tentativa automática)" if repeated else "disparou")
    text = f"A tarefa «{job.label}» {what}.\n\nMotivo: {message}\n\nVeja a página Tarefas: {link}\n"
    import html

    body = (f"<html><body><p>A tarefa «{html.escape(job.label)}» {html.escape(what)}.</p>"
            f"<p>Motivo: {html.escape(message)}</p>"
            f'<p><a href="{html.escape(link, quote=True)}">Abrir a página Tarefas</a></p></body></html>')
    if not to or not settings.smtp.configured:
        log.error("job %s failed twice; no e-mail sent (no admin address or SMTP not configured)", job.name)
        return
    try:
        send(settings.smtp, [Mail(to=to, subject=f"[Naufrágios] Falha na tarefa: {job.label}", text=text,
                                  html=body)])
    except Exception:
        log.exception("job %s failed twice and the e-mail to the admins failed too", job.name)


def record_seal_alert(store: Any, settings: JobSettings, message: str) -> None:
    """A write was refused because the audit seal does not verify (`db.audit.AuditSealError`): a
    failed `job_runs` row the admin sees on Tarefas and the overview, the log, and an e-mail to the
    active admins. The row is written WITHOUT an audit row — the chain refuses every write until it
    is checked, which is the point — and it never extends the anchor."""
    now = store.now()
    with store.transaction("sistema") as tx:
        tx.execute("INSERT INTO job_runs (job, trigger, attempt, started_at, ended_at, outcome, message, started_by) "
                   "VALUES (?, 'alert', 1, ?, ?, 'failed', ?, 'sistema')",
                   [SEAL_ALERT, now, now, message[:MESSAGE_CHARS]])
    log.error("audit seal alert: %s", message)
    notify_failure(store, settings, Job(SEAL_ALERT, JOB_LABELS[SEAL_ALERT], lambda *_: ""), message, repeated=False)


# -- what the pages and /saude read ---------------------------------------------------------------------
def schedule_text(name: str, settings: JobSettings) -> str:
    """pt-BR: when job `name` runs (Tarefas)."""
    if name == "restore_drill":
        return "Depois de cada cópia de segurança (de hora em hora e noturna)."
    every = settings.every.get(name)
    if every is not None:
        text = f"A cada {every} min" if every % 60 else f"A cada {every // 60} h"
        return f"{text}, quando há o que fazer." if JOBS[name].due is not None else f"{text}."
    at = settings.times.get(name)
    return "Não agendada." if at is None else f"Todo dia às {at:%H:%M}."


def recent_runs(store: Any, limit: int = 50) -> list[dict[str, Any]]:
    return store.fetch("SELECT id, job, trigger, attempt, started_at, ended_at, outcome, message, started_by "
                       "FROM job_runs ORDER BY id DESC LIMIT ?", [limit])


def latest_run_id(store: Any) -> int:
    """The newest run's id (0 when none): the mark a "run now" waits beyond."""
    return int(store.scalar("SELECT coalesce(max(id), 0) FROM job_runs"))


def finished_after(store: Any, name: str, after_id: int) -> dict[str, Any] | None:
    """The latest finished attempt of `name` started after run `after_id` (outcome, ended_at, message), or
    None while it is still pending or running (a failed first attempt is retried: the retry is awaited)."""
    row = store.fetch_one("SELECT id, outcome, ended_at, attempt, message FROM job_runs WHERE job = ? AND id > ? "
                          "ORDER BY id DESC LIMIT 1", [name, int(after_id)])
    if row is None or row["outcome"] == "running" or (row["outcome"] == "failed" and int(row["attempt"]) == 1):
        return None
    return row


def last_outcomes(store: Any) -> dict[str, dict[str, Any]]:
    """Per job, its latest finished attempt: outcome, ended_at (naive UTC), attempt and message."""
    rows = store.fetch("SELECT job, outcome, ended_at, attempt, message FROM job_runs WHERE id IN "
                       "(SELECT max(id) FROM job_runs WHERE outcome <> 'running' GROUP BY job)")
    return {r["job"]: r for r in rows}


def failed_within(store: Any, name: str, within: timedelta, *, now: datetime) -> bool:
    """Did the latest finished attempt of `name` fail less than `within` before `now`?"""
    row = store.fetch_one("SELECT outcome, ended_at FROM job_runs WHERE job = ? AND outcome <> 'running' "
                          "ORDER BY id DESC LIMIT 1", [name])
    return row is not None and row["outcome"] == "failed" and row["ended_at"] is not None \
        and now - row["ended_at"] < within


def audit_verified_recently(store: Any, now: datetime, *, hours: int = 36) -> bool | None:
    """Did the latest audit verification within `hours` pass? None when none ran in that window."""
    row = last_outcomes(store).get("audit_verify")
    if row is None or row["ended_at"] is None or now - row["ended_at"] > timedelta(hours=hours):
        return None
    return row["outcome"] == "ok"


def audit_alert(store: Any) -> dict[str, Any] | None:
    """The latest audit verification when it failed (for the admin overview), else None."""
    row = store.fetch_one("SELECT ended_at, message, outcome FROM job_runs WHERE job IN ('audit_verify', ?) "
                          "AND outcome <> 'running' ORDER BY id DESC LIMIT 1", [SEAL_ALERT])
    return row if row is not None and row["outcome"] == "failed" else None
