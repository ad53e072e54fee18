"""Uploads processed off the page script, by a bounded worker (issue 24, item 8).

Decoding photos is the heaviest thing a page asks for. `WORKER` runs such jobs in its own threads —
at most `MAX_RUNNING` at once in the process (one: the server's other core stays with the pages and
the scheduler) and at most `MAX_WAITING` more waiting, one job per user at a time; beyond that a new
job is refused at once ("tente em alguns minutos") rather than queued without end. A job reports
its progress (fraction, text) as it goes; the page polls it to draw a progress bar, and whatever the
page does meanwhile (another page, a closed tab) the job finishes and writes all or nothing, as the
store function it runs does.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from valuation.core.errors import ConflictError

MAX_RUNNING = 1
MAX_WAITING = 3
BUSY_MESSAGE = ("Há envios de fotos demais sendo processados agora. Aguarde alguns minutos e envie de novo; "
                "nada foi anexado.")
MINE_MESSAGE = "Você já tem um envio em processamento; aguarde o fim dele para enviar outro."


@dataclass
class Job:
    owner: str
    label: str
    fraction: float = 0.0
    text: str = "na fila"
    future: Future[Any] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def report(self, fraction: float, text: str) -> None:
        with self._lock:
            self.fraction = min(max(float(fraction), 0.0), 1.0)
            self.text = text

    def progress(self) -> tuple[float, str]:
        with self._lock:
            return self.fraction, self.text

    def done(self) -> bool:
        return self.future is not None and self.future.done()

    def result(self, timeout: float | None = None) -> Any:
        """The job's return value, or its exception raised here."""
        assert self.future is not None
        return self.future.result(timeout)


class Worker:
    def __init__(self, running: int = MAX_RUNNING, waiting: int = MAX_WAITING) -> None:
        self._pool = ThreadPoolExecutor(max_workers=running, thread_name_prefix="uploads")
        self._limit = running + waiting
        self._jobs: list[Job] = []
        self._lock = threading.Lock()

    def pending(self) -> int:
        with self._lock:
            self._jobs = [j for j in self._jobs if not j.done()]
            return len(self._jobs)

    def submit(self, owner: str, label: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Job:
        """Run `fn(*args, progress=job.report, **kwargs)` in the worker; ConflictError (pt-BR) when the
        queue is full or `owner` already has a job not finished."""
        with self._lock:
            self._jobs = [j for j in self._jobs if not j.done()]
            if any(j.owner == owner for j in self._jobs):
                raise ConflictError(MINE_MESSAGE)
            if len(self._jobs) >= self._limit:
                raise ConflictError(BUSY_MESSAGE)
            job = Job(owner, label)
            job.future = self._pool.submit(fn, *args, progress=job.report, **kwargs)
            self._jobs.append(job)
            return job


WORKER = Worker()
