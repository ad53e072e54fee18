"""Server-side timing of every script run, for the benchmarks (bench/load.py, bench/browser.py).

Off unless the environment variable `VALUATION_RUN_LOG` names a file: then every run of app.py
appends one JSON line to it —

    {"t": unix time at the end, "page": url path, "role": …, "user": …, "wall_s": …, "cpu_s": …,
     "outcome": "ok" | "stop" | "rerun" | "error", "thread": script thread id}

`wall_s` runs from the first line of app.py to the end of the page (login check, sidebar, the
page itself); `cpu_s` is the script thread's own CPU time over the same span (`time.thread_time`):
wall much larger than CPU means the run waited — for the GIL held by other sessions' runs, or for
DuckDB. Nothing is recorded under AppTest unless the variable is set.

With `VALUATION_RUN_PROFILE` naming a folder as well, every run is also profiled in its own
thread with pyinstrument (a bench tool: it slows the run down) and the text profile written
to `<folder>/<page>-<role>-<n>.txt`.
"""
from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

ENV = "VALUATION_RUN_LOG"
PROFILE_ENV = "VALUATION_RUN_PROFILE"
_lock = threading.Lock()
_profiled = [0]


@dataclass
class Started:
    wall: float
    cpu: float


def start() -> Started:
    """Call at the top of app.py."""
    return Started(time.perf_counter(), time.thread_time())


def _outcome(exc: BaseException | None) -> str:
    if exc is None:
        return "ok"
    name = type(exc).__name__
    if name == "StopException":
        return "stop"
    if name == "RerunException":
        return "rerun"
    return "error"


def _write(path: str, record: dict[str, Any]) -> None:
    line = json.dumps(record, separators=(",", ":")) + "\n"
    with _lock, open(path, "a", encoding="utf-8") as f:
        f.write(line)


@contextmanager
def recorded(started: Started, page: str, user: Any) -> Iterator[None]:
    """Around `nav.run()`: appends the run's record when the log is on (also when the run stops)."""
    path = os.environ.get(ENV)
    if not path:
        yield
        return
    exc: BaseException | None = None
    profiler = _profiler()
    try:
        yield
    except BaseException as e:  # recorded, then re-raised unchanged
        exc = e
        raise
    finally:
        if profiler is not None:
            _save_profile(profiler, page, user)
        _write(path, {"t": round(time.time(), 3), "page": page or "",
                      "role": getattr(user, "role", None), "user": getattr(user, "username", None),
                      "wall_s": round(time.perf_counter() - started.wall, 4),
                      "cpu_s": round(time.thread_time() - started.cpu, 4),
                      "outcome": _outcome(exc), "thread": threading.get_ident()})


def _profiler() -> Any:
    if not os.environ.get(PROFILE_ENV):
        return None
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.001, async_mode="disabled")
    profiler.start()
    return profiler


def _save_profile(profiler: Any, page: str, user: Any) -> None:
    profiler.stop()
    folder = os.environ[PROFILE_ENV]
    os.makedirs(folder, exist_ok=True)
    with _lock:
        _profiled[0] += 1
        n = _profiled[0]
    name = f"{page or 'entrar'}-{getattr(user, 'role', None) or 'anon'}-{n:04d}.txt"
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        f.write(profiler.output_text(unicode=True, show_all=False))
