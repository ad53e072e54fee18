"""The jobs' schedule inside the service (issue 13, item 3): APScheduler's BackgroundScheduler
(worker threads; the Store gives each a cursor) with one cron trigger per job in the configured
time zone. One instance of a job at a time. A run missed while the service was down (a restart
at 07:05 for a 07:00 digest) is caught up at start-up when today's time passed less than
`MISFIRE_GRACE_S` ago and no run of that job started since then.

The hourly backup (issue 24) runs every `settings.every["backup_hourly"]` minutes (an interval trigger,
the first one that long after start), and at start-up at once when the newest backup in the folder is
older than that interval; every backup job that succeeds is followed by the restore drill in the same
worker. Every `drill.CHECK_MINUTES` the recovery point is checked (`drill.check_recovery_point`: an
e-mail to the admins when the newest proven backup is late).

A job with a `due` check (the notices' e-mail, every `settings.every["notices_mail"]` minutes: issue 42 item 4)
runs at its interval only when the check finds work — one cheap read, no run recorded on a quiet day; without SMTP
it never runs and the log says so once. After a failed run it waits `DUE_RETRY_AFTER` before trying again (an
SMTP server that is down is not knocked on, nor the admins written to, every few minutes; nothing is lost:
what was not sent waits).
"""
from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from valuation.core import clock
from valuation.db.store import Store
from valuation.jobs import backups, drill
from valuation.jobs.runs import BACKUP_JOBS, JOBS, failed_within, run_job
from valuation.jobs.settings import JobSettings

log = logging.getLogger("valuation.service")
MISFIRE_GRACE_S = 3600
DUE_RETRY_AFTER = timedelta(minutes=15)


class JobScheduler:
    def __init__(self, store: Store, settings: JobSettings) -> None:
        self.store = store
        self.settings = settings
        self.stop = threading.Event()
        self.started = store.now()
        self._said_unconfigured = False
        self._scheduler = BackgroundScheduler(timezone=settings.tz, job_defaults={
            "coalesce": True, "max_instances": 1, "misfire_grace_time": MISFIRE_GRACE_S})

    def start(self) -> None:
        for name in JOBS:
            at = self.settings.times.get(name)
            if at is None:
                continue
            self._scheduler.add_job(self._run, CronTrigger(hour=at.hour, minute=at.minute, second=at.second,
                                                           timezone=self.settings.tz),
                                    args=[name, "schedule", "agenda"], id=name, name=JOBS[name].label)
        for name, minutes in self.settings.every.items():
            if minutes is not None:
                ticked = JOBS[name].due is not None     # runs only when its check finds work
                self._scheduler.add_job(self._tick if ticked else self._run,
                                        IntervalTrigger(minutes=minutes, timezone=self.settings.tz),
                                        args=[name] if ticked else [name, "schedule", "agenda"], id=name,
                                        name=JOBS[name].label)
        self.started = self.store.now()
        self._scheduler.add_job(self._check, IntervalTrigger(minutes=drill.CHECK_MINUTES, timezone=self.settings.tz),
                                id="recovery_point_check", name="Ponto de recuperação")
        self._scheduler.start()
        self._catch_up()
        self._catch_up_hourly()
        log.info("scheduler started: %s", ", ".join(f"{j.id} {j.next_run_time}" for j in self._scheduler.get_jobs()))

    def _catch_up(self) -> None:
        now = clock.now_utc().astimezone(self.settings.tz)
        for name in JOBS:
            at = self.settings.times.get(name)
            if at is None:
                continue
            due = datetime.combine(now.date(), at, tzinfo=self.settings.tz)
            if not due <= now < due + timedelta(seconds=MISFIRE_GRACE_S):
                continue
            since = due.astimezone(UTC).replace(tzinfo=None)
            if self.store.scalar("SELECT count(*) FROM job_runs WHERE job = ? AND started_at >= ?", [name, since]):
                continue
            log.info("job %s missed at %s while the service was down: running it now", name, due)
            self._scheduler.add_job(self._run, "date", run_date=now, args=[name, "schedule", "agenda"],
                                    id=f"{name}-catch-up", misfire_grace_time=None)

    def _catch_up_hourly(self) -> None:
        minutes = self.settings.every.get("backup_hourly")
        if minutes is None:
            return
        found = backups.found(self.settings.backup_dir)
        if found and self.store.now() - found[-1].taken_at < timedelta(minutes=minutes):
            return
        log.info("no backup in the last %d min: taking the hourly backup now", minutes)
        self._scheduler.add_job(self._run, "date", run_date=clock.now_utc().astimezone(self.settings.tz),
                                args=["backup_hourly", "schedule", "agenda"], id="backup_hourly-catch-up",
                                misfire_grace_time=None)

    def _check(self) -> None:
        if self.stop.is_set():
            return
        try:
            drill.check_recovery_point(self.store, self.settings, since=self.started, now=self.store.now())
        except Exception:       # a check that fails is logged; the next one runs in CHECK_MINUTES
            log.exception("recovery point check failed")

    def _tick(self, name: str) -> None:
        """An interval job with a `due` check: run it when it has work (module docstring)."""
        if self.stop.is_set():
            return
        if not self.settings.smtp.configured:
            if not self._said_unconfigured:
                log.warning("e-mail not configured (VALUATION_SMTP_HOST): the notices stay in the inbox (Avisos) only")
                self._said_unconfigured = True
            return
        try:
            if failed_within(self.store, name, DUE_RETRY_AFTER, now=self.store.now()):
                return
            due = JOBS[name].due
            if due is None or not due(self.store, self.settings):
                return
        except Exception:       # a check that fails is logged; the next one runs at the next interval
            log.exception("job %s: the check for work failed", name)
            return
        self._run(name, "schedule", "agenda")

    def run_now(self, name: str, started_by: str) -> None:
        """Run `name` at once in a worker thread (the Tarefas page's button); returns immediately."""
        if name not in JOBS:
            raise KeyError(name)
        self._scheduler.add_job(self._run, "date", run_date=clock.now_utc().astimezone(self.settings.tz),
                                args=[name, "manual", started_by], id=f"{name}-now-{clock.now_utc().timestamp()}",
                                misfire_grace_time=None)

    def next_runs(self) -> dict[str, datetime | None]:
        return {j.id: j.next_run_time for j in self._scheduler.get_jobs() if j.id in JOBS}

    def _run(self, name: str, trigger: str, started_by: str) -> None:
        if self.stop.is_set():
            return
        ok = run_job(self.store, name, self.settings, trigger=trigger, started_by=started_by, stop=self.stop)
        if ok and name in BACKUP_JOBS and not self.stop.is_set():
            run_job(self.store, "restore_drill", self.settings, trigger=trigger, started_by=started_by,
                    stop=self.stop)

    def shutdown(self) -> None:
        """Interrupt retry pauses, then wait for the running jobs to end."""
        self.stop.set()
        self._scheduler.shutdown(wait=True)
