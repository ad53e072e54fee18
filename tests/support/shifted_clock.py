"""Run the real service with its one clock (`valuation.core.clock.now_utc`) moved forward by whole days:

    python -m tests.support.shifted_clock DAYS service.asgi:app --host 127.0.0.1 --port N

A walk's way to live DAYS later — an unopened intimation past its tacit period — without a knob in the product:
everything the service dates (the store, the jobs' "today", sessions) reads that one clock; the scheduler's own
timers keep the machine's time (`running_service(clock_days=…)`)."""
from __future__ import annotations

import sys
from datetime import timedelta


def main() -> None:
    from valuation.core import clock

    days = int(sys.argv[1])
    real = clock.now_utc
    clock.now_utc = lambda: real() + timedelta(days=days)
    sys.argv = ["uvicorn", *sys.argv[2:]]
    from uvicorn.main import main as uvicorn_main

    uvicorn_main()


if __name__ == "__main__":
    main()
