"""The service's alert when the audit chain refuses a write (issue 14, item 2).

`valuation.db.audit` refuses every write whose anchor seal does not verify and calls its
`SEAL_ALERT_HOOKS`. The service registers `SealAlert`: inside the refused transaction it only
hands the message to a thread (the write lock is still held there), which records a failed
`job_runs` row (Tarefas page, admin overview) and e-mails the active admins
(`valuation.jobs.runs.record_seal_alert`), at most once per `EVERY_S` seconds.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any

log = logging.getLogger("valuation.service")
EVERY_S = 600


class SealAlert:
    def __init__(self, store: Any, settings: Any, *, every_s: float = EVERY_S) -> None:
        self.store = store
        self.settings = settings
        self.every_s = every_s
        self._last = float("-inf")
        self._lock = threading.Lock()
        self.threads: list[threading.Thread] = []

    def __call__(self, message: str) -> None:
        with self._lock:
            if time.monotonic() - self._last < self.every_s:
                return
            self._last = time.monotonic()
        worker = threading.Thread(target=self._record, args=(message,), name="seal-alert", daemon=True)
        self.threads.append(worker)
        worker.start()

    def _record(self, message: str) -> None:
        from valuation.jobs.runs import record_seal_alert

        try:
            record_seal_alert(self.store, self.settings, message)
        except Exception:  # noqa: BLE001 - logged; the refusal itself already happened
            log.exception("could not record the audit seal alert")

    def join(self, timeout: float = 10.0) -> None:
        for worker in self.threads:
            worker.join(timeout)


def install(store: Any, settings: Any) -> SealAlert:
    from valuation.db import audit

    hook = SealAlert(store, settings)
    audit.SEAL_ALERT_HOOKS.append(hook)
    return hook


def uninstall(hook: SealAlert) -> None:
    from valuation.db import audit

    if hook in audit.SEAL_ALERT_HOOKS:
        audit.SEAL_ALERT_HOOKS.remove(hook)
    hook.join()
