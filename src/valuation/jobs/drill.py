"""Every backup proven restorable, and the recovery point watched (issue 24, "Losing at most an hour").

The restore drill (`drill`, the job `restore_drill`, run after every backup job and from Tarefas) takes
the newest backup of VALUATION_BACKUP_DIR that no drill has proven yet and:

1. finds the live chain's `backup_taken` row of its vouch digest (db/backup_vouch.find_record): only a
   backup this database recorded can be proven;
2. restores it (db/backup.restore, never accepting a broken chain) into `.NAME.drilling-PID/` in the
   backup folder — the backup's files checked, its tables loaded, its vouch, chain and row seals
   verified —, then runs on the restored file what `audit verify` runs (the chain with its anchor and
   row seals, and the attached files);
3. records the proof in the live chain (`backup_proven`: folder, digest, when it was taken, the rows
   restored, the seconds the restore took) and removes the scratch folder, whatever happened.

A drill that fails raises JobFailed naming the folder and why: the job is retried once and then the
admins get an e-mail (jobs/runs.py). The drill holds the backup folder's lock (jobs/backups.exclusive)
so no backup is pruned while it is read.

The recovery point (`recovery_point`): the newest backup still in the folder that a drill proved, its
age against VALUATION_RPO_MINUTES. It is *late* when older than the recovery point plus PROOF_GRACE
(the time the next backup and its drill are given to finish). /saude and Tarefas show it; the check
that the service runs every CHECK_MINUTES (`check_recovery_point`) e-mails the admins once per late
spell — a spell starts when the recovery point is passed, or PROOF_GRACE after the service started
when that is later — and records it as an alert on Tarefas.
"""
from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from valuation.core.money import format_date_br
from valuation.jobs import backups
from valuation.jobs.settings import JobSettings

PROOF_GRACE = timedelta(minutes=10)
CHECK_MINUTES = 5


def _fail(message: str) -> Exception:
    from valuation.jobs.maintenance import JobFailed

    return JobFailed(message)


def _prove(store: Any, found: backups.Found) -> dict[str, Any]:
    """Restore `found` into a scratch folder, check it as `audit verify` does; the proof's facts."""
    from valuation.core.errors import ValuationError
    from valuation.db.backup import restore
    from valuation.db.backup_vouch import find_record
    from valuation.db.store import Store
    from valuation.jobs.integrity import verify_everything

    record = find_record(store, found.digest or "")
    if record is None:
        raise _fail(f"A cópia {found.name} não está registrada na cadeia de auditoria deste banco (nenhum "
                    "registro de cópia com a sua assinatura): não pode ser provada.")
    scratch = found.path.parent / f".{found.name}.drilling-{os.getpid()}"
    shutil.rmtree(scratch, ignore_errors=True)
    os.mkdir(scratch, 0o700)
    try:
        started = time.monotonic()
        try:
            summary = restore(found.path, scratch / "prova.duckdb", actor="prova")
        except ValuationError as exc:
            raise _fail(f"A cópia {found.name} não restaura: {exc}") from exc
        seconds = time.monotonic() - started
        with Store(scratch / "prova.duckdb", read_only=True) as restored:
            v = verify_everything(restored)
        files, head = v.files, v.head
        if not v.ok:
            where = f" a partir do registro {v.first_bad_id}" if v.first_bad_id is not None else ""
            raise _fail(f"A cópia {found.name} restaura, mas a verificação de auditoria falha{where}: {v.message}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {"digest": found.digest, "taken_at": found.taken_at.isoformat(timespec="seconds"),
            "taken_row": int(record["id"]), "head_id": None if head is None else int(head["id"]),
            "rows": sum(summary["tables"].values()), "files": files.checked, "seconds": round(seconds, 2)}


def drill(store: Any, settings: JobSettings) -> str:
    """The restore drill job (module docstring): a message for Tarefas, JobFailed when the backup fails."""
    with backups.exclusive(settings.backup_dir):
        found = backups.found(settings.backup_dir)
        proven = backups.proofs(store)
        pending = [b for b in found if b.digest is None or (b.name, b.digest) not in proven]
        if not pending:
            if not found:
                raise _fail(f"Nenhuma cópia em {settings.backup_dir} para provar.")
            return f"Nada a provar: a cópia mais recente ({found[-1].name}) já foi provada."
        target = pending[-1]
        if target.digest is None:
            raise _fail(f"A cópia {target.name} não tem a assinatura das cópias atuais: não pode ser provada.")
        facts = _prove(store, target)
        store.write("agenda", lambda tx: tx.audit(backups.PROOF_ACTION, "backup", target.name, None, facts))
    skipped = len(pending) - 1
    return (f"Cópia {target.name} provada: restaurada em {facts['seconds']:.1f} s ({facts['rows']} linhas, "
            f"{facts['files']} arquivos anexados) e a cadeia de auditoria confere"
            + (f"; {skipped} cópia(s) mais antiga(s) sem prova ficam como estão." if skipped else "."))


@dataclass(frozen=True)
class RecoveryPoint:
    proven: backups.Found | None          # the newest proven backup still in the folder
    proven_at: datetime | None            # when its drill passed (naive UTC)
    newest: backups.Found | None          # the newest backup, proven or not
    unproven: int                         # backups newer than the newest proven one
    age: timedelta | None                 # now − proven.taken_at
    objective: timedelta                  # VALUATION_RPO_MINUTES
    late: bool                            # no proven backup, or older than objective + PROOF_GRACE

    def as_json(self) -> dict[str, Any]:
        def at(moment: datetime | None) -> str | None:
            return None if moment is None else moment.isoformat(timespec="seconds") + "Z"

        return {"newest_proven": None if self.proven is None else {
                    "folder": self.proven.name, "taken_at": at(self.proven.taken_at), "proven_at": at(self.proven_at)},
                "newest": None if self.newest is None else self.newest.name, "unproven": self.unproven,
                "age_minutes": None if self.age is None else round(self.age.total_seconds() / 60, 1),
                "recovery_point_minutes": int(self.objective.total_seconds() // 60),
                "older_than_recovery_point": self.late}


def recovery_point(store: Any, settings: JobSettings, now: datetime) -> RecoveryPoint:
    """The recovery point at `now` (naive UTC)."""
    found = backups.found(settings.backup_dir)
    proofs = backups.proofs(store)
    proven = backups.newest_proven(found, proofs)
    objective = timedelta(minutes=settings.rpo_minutes)
    age = None if proven is None else max(timedelta(0), now - proven.taken_at)
    unproven = len(found) if proven is None else sum(1 for b in found if b.taken_at > proven.taken_at)
    return RecoveryPoint(proven, None if proven is None else proofs[(proven.name, proven.digest or "")],
                         found[-1] if found else None, unproven, age, objective,
                         age is None or age > objective + PROOF_GRACE)


def describe(point: RecoveryPoint, tz: ZoneInfo) -> str:
    """pt-BR, for Tarefas and the e-mail (times in `tz`)."""
    minutes = int(point.objective.total_seconds() // 60)
    if point.proven is None:
        return (f"Nenhuma cópia de segurança provada restaurável: o ponto de recuperação de {minutes} min não "
                "está garantido.")
    when = point.proven.taken_at.replace(tzinfo=UTC).astimezone(tz)
    age = int(point.age.total_seconds() // 60) if point.age is not None else 0
    text = (f"Cópia provada mais recente: {point.proven.name}, de {format_date_br(when.date())} "
            f"{when:%H:%M} (há {age} min); ponto de recuperação: {minutes} min.")
    if point.late:
        text += " A cópia provada mais recente é mais antiga que o ponto de recuperação."
    return text


def check_recovery_point(store: Any, settings: JobSettings, *, since: datetime, now: datetime) -> bool:
    """The service's periodic check (module docstring): True when it sent (recorded) an alert now.
    `since`: when the service started; `now`: naive UTC."""
    from valuation.jobs.runs import JOB_LABELS, RECOVERY_ALERT, Job, notify_failure

    point = recovery_point(store, settings, now)
    if not point.late:
        return False
    spell = since + PROOF_GRACE
    if point.proven is not None:
        spell = max(spell, point.proven.taken_at + point.objective + PROOF_GRACE)
    if now < spell or store.scalar("SELECT count(*) FROM job_runs WHERE job = ? AND started_at >= ?",
                                   [RECOVERY_ALERT, spell]):
        return False
    message = describe(point, settings.tz)

    def run(tx: Any) -> None:
        run_id = int(tx.scalar("INSERT INTO job_runs (job, trigger, attempt, started_at, ended_at, outcome, message, "
                               "started_by) VALUES (?, 'alert', 1, ?, ?, 'failed', ?, 'agenda') RETURNING id",
                               [RECOVERY_ALERT, now, now, message]))
        tx.audit("recovery_point_late", "job_run", run_id, None, {"message": message})
    store.write("agenda", run)
    notify_failure(store, settings, Job(RECOVERY_ALERT, JOB_LABELS[RECOVERY_ALERT], lambda *_: ""), message,
                   repeated=False)
    return True
