"""A bounded load run against the real service (issue 17): one Chromium, K browser contexts — K people
of different roles — each clicking through its role's pages without pause, on the demo.

    .venv/bin/python bench/load.py --db /tmp/x/demo.duckdb                   # K = 1, 4, 8; 60 s each
    .venv/bin/python bench/load.py --db … --k 8 --seconds 120 --json out.json
    .venv/bin/python bench/load.py --db … --k 32 --light 28 --think 5,15      # 4 Chromium + 28 protocol people

For each K a fresh copy of the database is served by a fresh `uvicorn service.asgi:app` (as
scripts/start.sh) with the script-run log on (`ui/run_timing.py`). One login warms the service
up (imports, first queries; untimed). Then the K contexts log in (`ROTA`: dpc, explorer,
commission, president, then a second dpc, explorer and commission member, and the admin — each a
different demo login) and, once all are in, click the sidebar link of their next page as soon as
the current one is settled (bench/live.py; quiet window 100 ms), for `--seconds`. Without `--think`, their
first clicks are spread evenly over `RAMP_S` (2 s: person n waits n·2/K s), a load test's ramp-up — people
do not all click in the same instant; until 2026-12-05 all K clicked at once, and those K first views,
queued together on one core, made the 95th percentile of a 60 s run of ~100 views by themselves.

Reported per K, over the runs that ended inside the window:
- server time: the script run of each page view as the service measured it (`wall_s`: from the
  first line of app.py to the end of the page, in the script's thread), p50/p95/max, and its
  thread's CPU time — wall far above CPU is time spent waiting (for the GIL, for DuckDB);
- client time: click to settled in the browser, p50/p95;
- errors (an exception box, a page that did not settle within 60 s) and logouts (the login form
  or the "Entrar" page shown to someone who had logged in);
- the service process's CPU (psutil, all its threads, in cores: 1.0 = one core busy) and RSS,
  sampled every 0.5 s.

Target at K = 8: server p95 ≤ 1.0 s, no error, no logout.

`--pin` (issue 28's K = 8 target is measured so): the service's threads on core 0 and this script, the
Playwright driver and Chromium (started after, they inherit it) on core 1 — what the server does when
the clients' browsers do not take its core, as on the users' own machines.

`--think MIN,MAX` (issue 28, "a working office"): each person, after a page has settled, thinks for a
uniform random time in [MIN, MAX] s (its own `random.Random`, seeded by its place in the rota: the same
pauses run after run) before the next click. Client time stays click → settled: thinking is not in it.

`--light N`: N of the K people (the last N of the rota; the first K − N stay Chromium people, so every role
keeps a browser) are protocol clients (bench/light.py): each logs in once in a short-lived Chromium context
(before the window, LOGINS_AT_ONCE at a time), keeps the session cookie, and opens the same pages in the same
order over Streamlit's WebSocket (`/_stcore/stream`, BackMsg.rerun_script with the page's hash), thinking as
`--think` says. Their time is send → script_finished, the protocol time with drawing excluded
(`light_p50_s`, `light_p95_s`), reported apart from the Chromium people's click → settled (`client_*`: the
person's figure). `generator_cpu_cores_mean` is this script's own CPU (the light people, Playwright's
client side, the probe), apart from the browser's. Without `--think` a light person clicks as fast as
the service answers: a far heavier load than a Chromium person, who waits for the drawing.

The `/verificar` probe (issue 28): while a K runs, a thread of this process asks the public route
(service/verify.py) about 2 times a second, alternating a code that does not exist (expected 404) and a
real code of the database's `issued_documents` (expected 200), and reports p50/p95/max latency
(`verify_p50_s`, `verify_p95_s`, `verify_max_s`), the 429s apart and any other status. The route limits
each client address (valuation.authenticity.limiter: after 5 unknown codes an address waits 2 s, 4 s, …;
60 lookups an hour): the probe is the public — many people, each its own address — so every request
carries its own `X-Forwarded-For` (198.18.0.0/15, the benchmarking range), which uvicorn takes as the
client from 127.0.0.1 (its default `--forwarded-allow-ips`), and the limiter never blocks it.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import light  # noqa: E402  (bench/ is not a package: its folder is on sys.path)
import live  # noqa: E402

ROTA: tuple[tuple[str, str], ...] = (
    ("dpc", "dpc.prado"), ("explorer", "exp.salvamar"), ("commission", "cf.rocha"),
    ("commission_president", "cmg.tavares"), ("dpc", "dpc.reis"), ("explorer", "exp.arqueonautica"),
    ("commission", "minc.ferraz"), ("admin", "admin"),
)
P95_TARGET_S = 1.0
QUIET_MS = 100
VIEW_TIMEOUT_S = 60
VERIFY_EVERY_S = 0.5
UNKNOWN_CODE = "ZZZZZ-00000"      # well formed, never issued (a fresh code is random: 1 in 2^50 to collide)


@dataclass
class Person:
    role: str
    user: str
    light: bool = False    # a protocol client (bench/light.py), not a Chromium context
    views: list[tuple[float, str, float]] = field(default_factory=list)   # (end time, page, client s)
    errors: list[str] = field(default_factory=list)
    logouts: list[str] = field(default_factory=list)   # what the login form said, and where


class VerifyProbe(threading.Thread):
    """GET /verificar?codigo=… every VERIFY_EVERY_S s, alternating UNKNOWN_CODE (404) and `real` (200)
    when there is one; each request from an address of its own (X-Forwarded-For)."""

    def __init__(self, base: str, real: str | None) -> None:
        super().__init__(daemon=True)
        self.base, self.real = base, real
        self.times: list[float] = []
        self.limited = 0
        self.unexpected: list[str] = []
        self.stop_event = threading.Event()

    def run(self) -> None:
        i = 0
        while not self.stop_event.wait(VERIFY_EVERY_S):
            code, expected = (self.real, 200) if self.real and i % 2 else (UNKNOWN_CODE, 404)
            req = urllib.request.Request(f"{self.base}/verificar?codigo={code}",
                                         headers={"X-Forwarded-For": f"198.18.{(i // 250) % 250}.{i % 250 + 1}"})
            i += 1
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    r.read()
                    status = r.status
            except urllib.error.HTTPError as exc:
                exc.read()
                status = exc.code
            except OSError as exc:
                self.unexpected.append(f"{code}: {type(exc).__name__}")
                continue
            self.times.append(time.perf_counter() - t)
            if status == 429:
                self.limited += 1
            elif status != expected:
                self.unexpected.append(f"{code}: {status} (expected {expected})")


def real_code(db: Path) -> str | None:
    """One code of the database's issued documents (None when it issued none)."""
    from valuation.db.store import Store

    store = Store(str(db))
    try:
        code = store.scalar("SELECT min(code) FROM issued_documents")
    finally:
        store.close()
    return None if code is None else str(code)


class Sampler(threading.Thread):
    """psutil samples every `every` s: (time, the service's CPU in cores since the last sample, its RSS
    in MB, the browser's CPU in cores — Chromium and Playwright's driver: this script's child processes —,
    this script's own CPU in cores: the light people, Playwright's client side, the /verificar probe)."""

    def __init__(self, pid: int, every: float = 0.5) -> None:
        super().__init__(daemon=True)
        import psutil

        self.psutil = psutil
        self.proc = psutil.Process(pid)
        self.every = every
        self.samples: list[tuple[float, float, float, float, float]] = []
        self.own = psutil.Process()
        self.stop_event = threading.Event()
        self._browser: dict[int, Any] = {}

    def _browser_cpu(self) -> float:
        total = 0.0
        for child in self.psutil.Process().children(recursive=True):
            if child.pid == self.proc.pid:
                continue
            known = self._browser.setdefault(child.pid, child)
            try:
                total += known.cpu_percent(None) / 100
            except self.psutil.Error:
                self._browser.pop(child.pid, None)
        return total

    def run(self) -> None:
        self.proc.cpu_percent(None)
        self.own.cpu_percent(None)
        self._browser_cpu()
        while not self.stop_event.wait(self.every):
            try:
                cpu = self.proc.cpu_percent(None) / 100
                rss = self.proc.memory_info().rss / 2**20
            except self.psutil.Error:   # the process ended
                return
            self.samples.append((time.time(), cpu, rss, self._browser_cpu(), self.own.cpu_percent(None) / 100))


async def settle(page: Any, path: str | None, *, absent: str | None = None) -> dict[str, Any]:
    return await page.evaluate(live.WAIT_JS, live.settle_args(path, absent=absent, timeout_s=VIEW_TIMEOUT_S,
                                                               quiet_ms=QUIET_MS))


async def login(page: Any, base: str, user: str, password: str) -> None:
    await page.goto(base)
    await page.locator(live.LOGIN_FORM).wait_for()
    await page.get_by_label("Usuário").fill(user)
    await page.get_by_label("Senha").fill(password)
    await page.get_by_role("button", name="Entrar").click()
    got = await settle(page, None, absent=live.LOGIN_FORM)
    if got["ms"] is None:
        raise RuntimeError(f"{user} could not log in: {got['why']}")


async def think(rng: random.Random | None, span: tuple[float, float] | None, end_at: float) -> None:
    """The pause before the next click (never past the end of the window)."""
    if rng is None or span is None:
        return
    await asyncio.sleep(max(0.0, min(rng.uniform(*span), end_at - time.time())))


LOGINS_AT_ONCE = 4   # people logging in at the same time before the window starts (not timed)
RAMP_S = 2.0         # without thinking, the K people's first clicks spread evenly over this (a ramp-up)


async def person(browser: Any, base: str, who: Person, password: str, start: asyncio.Event,
                 ready: list[int], end_at: list[float], span: tuple[float, float] | None = None,
                 seed: int = 0, gate: asyncio.Semaphore | None = None, offset: float = 0.0) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000}, locale="pt-BR")
    await context.add_init_script(live.INIT_JS)
    page = await context.new_page()
    page.set_default_timeout(VIEW_TIMEOUT_S * 1000)
    try:
        async with gate or contextlib.nullcontext():   # a few logins at a time: an office does not log in at once
            await login(page, base, who.user, password)
        ready[0] += 1
        await start.wait()
        pages = live.role_pages(who.role)
        rng = random.Random(seed) if span is not None else None
        i = 1   # the login opened the first page
        await asyncio.sleep(offset)   # the ramp-up: people do not all click at the same instant
        await think(rng, span, end_at[0])
        while time.time() < end_at[0]:
            title, key = pages[i % len(pages)]
            i += 1
            await page.get_by_role("link", name=title, exact=True).first.click()
            got = await settle(page, "" if key == pages[0][1] else key)
            if await page.locator(live.LOGIN_FORM).count():
                said = await page.locator('[data-testid="stAlert"]').all_inner_texts()
                who.logouts.append(f"{key} at {time.time() - end_at[0]:+.0f} s from the end: "
                                   f"{' / '.join(said) or 'no message'}")
                await login(page, base, who.user, password)
                continue
            if got["ms"] is None:
                who.errors.append(f"{key}: not settled in {VIEW_TIMEOUT_S} s ({got['why']})")
                continue
            if await page.locator(live.EXCEPTION_BOX).count():
                who.errors.append(f"{key}: exception box")
            elif await page.locator('[data-testid="stAlert"]', has_text=light.INCIDENT).count():
                who.errors.append(f"{key}: incident message")
            who.views.append((time.time(), key, got["ms"] / 1000))
            await think(rng, span, end_at[0])
    except Exception as exc:  # noqa: BLE001 - reported, not raised: the other people go on
        who.errors.append(f"{type(exc).__name__}: {str(exc)[:200]}")
    finally:
        await context.close()


async def light_person(browser: Any, base: str, who: Person, password: str, start: asyncio.Event,
                       ready: list[int], end_at: list[float], span: tuple[float, float] | None = None,
                       seed: int = 0, gate: asyncio.Semaphore | None = None) -> None:
    """A light person (bench/light.py): logs in once in a short-lived Chromium context (a few at a time,
    `gate`), then opens the same pages in the same order as a Chromium person of its role, over
    Streamlit's WebSocket protocol; `views` hold send → script_finished (drawing excluded)."""
    async def cookie() -> str:
        async with gate or contextlib.nullcontext():
            return await light.cookie_login(browser, base, who.user, password, login)

    token = await _guarded(who, cookie)
    if token is None:
        return
    conn = light.Connection(base, token, timeout_s=VIEW_TIMEOUT_S)
    try:
        first = await conn.view("", "")   # the address the login left it on: the navigation's first page
        if first.seconds is None or first.login_shown or first.exceptions:
            raise RuntimeError(f"{who.user}: the first page over the protocol: {first.why or first.exceptions}"
                               f"{' (login page)' if first.login_shown else ''}")
        ready[0] += 1
        await start.wait()
        pages = live.role_pages(who.role)
        rng = random.Random(seed) if span is not None else None
        i = 1
        await think(rng, span, end_at[0])
        while time.time() < end_at[0]:
            _title, key = pages[i % len(pages)]
            i += 1
            path = "" if key == pages[0][1] else key
            want = conn.pages.get(path)
            if want is None:
                who.errors.append(f"{key}: not offered by the navigation")
                continue
            try:
                got = await conn.view(want, "")
            except Exception as exc:  # noqa: BLE001 - a closed socket: counted, then a new connection
                who.errors.append(f"{key}: {type(exc).__name__}: {str(exc)[:200]}")
                await conn.close()
                await conn.open()
                continue
            if got.login_shown:
                who.logouts.append(f"{key} at {time.time() - end_at[0]:+.0f} s from the end: login page")
                await conn.close()
                conn = light.Connection(base, await cookie(), timeout_s=VIEW_TIMEOUT_S)
                await conn.view("", "")
                continue
            if got.seconds is None:
                who.errors.append(f"{key}: {got.why}")
                continue
            if got.exceptions:
                who.errors.append(f"{key}: {' / '.join(got.exceptions)}")
            elif got.page_hash != want:
                who.errors.append(f"{key}: another page ran")
            who.views.append((time.time(), key, got.seconds))
            await think(rng, span, end_at[0])
    except Exception as exc:  # noqa: BLE001 - reported, not raised: the other people go on
        who.errors.append(f"{type(exc).__name__}: {str(exc)[:200]}")
    finally:
        await conn.close()


async def _guarded(who: Person, make: Any) -> Any:
    """`await make()`, its exception noted in `who.errors` (the person then does not take part)."""
    try:
        return await make()
    except Exception as exc:  # noqa: BLE001
        who.errors.append(f"login: {type(exc).__name__}: {str(exc)[:200]}")
        return None


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 3)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], 3)


async def one_k(k: int, db: Path, port: int, seconds: float, scratch: Path, pw: dict[str, str],
                pin: bool = False, span: tuple[float, float] | None = None, n_light: int = 0,
                warm: bool = True) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    copy = scratch / f"load-k{k}.duckdb"
    for suffix in ("", ".wal"):
        src, dst = Path(str(db) + suffix), Path(str(copy) + suffix)
        if src.exists():
            shutil.copyfile(src, dst)
        else:
            dst.unlink(missing_ok=True)
    run_log = scratch / f"load-k{k}.runs.jsonl"
    run_log.unlink(missing_ok=True)
    n_light = min(n_light, k)   # the first K − N of the rota stay Chromium people: every role, the first ones
    people = [Person(role, user, light=n >= k - n_light)
              for n, (role, user) in enumerate((ROTA * (k // len(ROTA) + 1))[:k])]
    code = real_code(copy)
    load_start = [round(x, 2) for x in os.getloadavg()]
    with live.serve(copy, port, run_log=run_log) as svc:
        own = os.sched_getaffinity(0)
        if pin:   # every thread of the service on core 0; this thread (and what it starts) on core 1
            subprocess.run(["taskset", "-a", "-cp", "0", str(svc.pid)], check=True, capture_output=True)
            os.sched_setaffinity(0, {1})
        sampler = Sampler(svc.pid)
        probe = VerifyProbe(svc.base, code)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=live.CHROMIUM, args=live.CHROMIUM_ARGS, headless=True)
            try:
                if warm:   # one login warms the service up (imports, first queries); untimed
                    warm_ctx = await browser.new_context(viewport={"width": 1400, "height": 1000}, locale="pt-BR")
                    await warm_ctx.add_init_script(live.INIT_JS)
                    wp = await warm_ctx.new_page()
                    await login(wp, svc.base, "dpc.prado", pw["dpc.prado"])
                    await warm_ctx.close()
                rss_before = sampler.proc.memory_info().rss / 2**20
                start, ready, end_at = asyncio.Event(), [0], [float("inf")]
                gate = asyncio.Semaphore(LOGINS_AT_ONCE)
                tasks = [asyncio.create_task((light_person if who.light else functools.partial(
                             person, offset=0.0 if span is not None else n * RAMP_S / k))(
                             browser, svc.base, who, pw[who.user], start, ready, end_at, span, seed=n, gate=gate))
                         for n, who in enumerate(people)]
                while ready[0] + sum(t.done() for t in tasks) < k:   # a failed login ends its task
                    await asyncio.sleep(0.2)
                t0 = time.time()
                end_at[0] = t0 + seconds
                sampler.start()
                probe.start()
                start.set()
                await asyncio.gather(*tasks)
                t1 = time.time()
            finally:
                sampler.stop_event.set()
                probe.stop_event.set()
                await browser.close()
                os.sched_setaffinity(0, own)
        runs = [json.loads(line) for line in run_log.read_text(encoding="utf-8").splitlines() if line.strip()]
    in_window = [r for r in runs if t0 <= r["t"] <= t1 and r["role"] is not None]
    walls = [r["wall_s"] for r in in_window]
    cpus = [r["cpu_s"] for r in in_window]
    client = [v[2] for who in people if not who.light for v in who.views]
    protocol = [v[2] for who in people if who.light for v in who.views]
    views = len(client) + len(protocol)
    samples = [s for s in sampler.samples if s[0] <= end_at[0]]
    by_page: dict[str, list[float]] = {}
    for r in in_window:
        by_page.setdefault(live.run_page(r) or "?", []).append(r["wall_s"])
    errors = [f"{who.user}: {e}" for who in people for e in who.errors]
    logouts = [f"{who.user}: {x}" for who in people for x in who.logouts]
    peak_rss = max((s[2] for s in sampler.samples), default=rss_before)
    return {
        "k": k, "light": n_light, "pinned": pin, "think_s": list(span) if span else None,
        "seconds": round(t1 - t0, 1), "views": views, "runs": len(in_window),
        "chromium_views": len(client), "light_views": len(protocol),
        "views_per_s": round(views / (t1 - t0), 2) if t1 > t0 else None,
        "server_p50_s": pct(walls, 50), "server_p95_s": pct(walls, 95), "server_max_s": max(walls, default=None),
        "server_cpu_p50_s": pct(cpus, 50), "server_cpu_p95_s": pct(cpus, 95),
        "client_p50_s": pct(client, 50), "client_p95_s": pct(client, 95),   # the Chromium people's
        "light_p50_s": pct(protocol, 50), "light_p95_s": pct(protocol, 95),
        "light_max_s": round(max(protocol), 3) if protocol else None,
        "verify_n": len(probe.times), "verify_p50_s": pct(probe.times, 50), "verify_p95_s": pct(probe.times, 95),
        "verify_max_s": round(max(probe.times), 3) if probe.times else None, "verify_429": probe.limited,
        "verify_unexpected": probe.unexpected[:20], "verify_real_code": code is not None,
        "errors": errors, "logouts": len(logouts), "logout_details": logouts,
        "cpu_cores_mean": round(statistics.fmean(s[1] for s in samples), 2) if samples else None,
        "cpu_cores_max": round(max(s[1] for s in samples), 2) if samples else None,
        "browser_cpu_cores_mean": round(statistics.fmean(s[3] for s in samples), 2) if samples else None,
        "generator_cpu_cores_mean": round(statistics.fmean(s[4] for s in samples), 2) if samples else None,
        "rss_mb_before": round(rss_before, 1), "rss_mb_peak": round(peak_rss, 1),
        "rss_mb_per_session": round((peak_rss - rss_before) / k, 1),
        "by_page_p95_s": {key: pct(v, 95) for key, v in sorted(by_page.items(), key=lambda kv: -max(kv[1]))},
        "by_page_n": {key: len(v) for key, v in by_page.items()},
        "people": [{"role": w.role, "user": w.user, "light": w.light, "views": len(w.views), "errors": w.errors,
                    "logouts": w.logouts} for w in people],
        "load_avg_start": load_start, "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "met": (pct(walls, 95) or 0) <= P95_TARGET_S and not errors and not logouts,
    }


def print_row(r: dict[str, Any]) -> None:
    mode = ("pinned, " if r.get("pinned") else "") + (f"thinking {r['think_s'][0]:g}–{r['think_s'][1]:g} s, "
                                                      if r.get("think_s") else "without pause, ")
    n_light = r.get("light") or 0
    people = f"{r['k'] - n_light} Chromium + {n_light} light, " if n_light else ""
    protocol = (f"; light (protocol time, drawing excluded) p50 {r['light_p50_s']} s, p95 {r['light_p95_s']} s "
                f"(max {r['light_max_s']})" if n_light else "")
    print(f"K={r['k']} ({people}{mode}{r['views_per_s']} views/s): "
          f"{r['views']} views in {r['seconds']} s; server p50 {r['server_p50_s']} s, "
          f"p95 {r['server_p95_s']} s (max {r['server_max_s']}; CPU p95 {r['server_cpu_p95_s']} s); "
          f"client (Chromium, click → settled) p50 {r['client_p50_s']} s, p95 {r['client_p95_s']} s{protocol}; "
          f"errors {len(r['errors'])}, logouts {r['logouts']}; "
          f"CPU {r['cpu_cores_mean']} cores (max {r['cpu_cores_max']}; browser {r['browser_cpu_cores_mean']}; "
          f"this script {r['generator_cpu_cores_mean']}); "
          f"RSS {r['rss_mb_before']} → "
          f"{r['rss_mb_peak']} MB ({r['rss_mb_per_session']} MB/session); load {r['load_avg_start']} → "
          f"{r['load_avg_end']}", flush=True)
    print(f"   /verificar: {r['verify_n']} requests, p50 {r['verify_p50_s']} s, p95 {r['verify_p95_s']} s, "
          f"max {r['verify_max_s']} s; 429: {r['verify_429']}; unexpected: {r['verify_unexpected'][:5]}", flush=True)
    slow = list(r["by_page_p95_s"].items())[:5]
    print("   slowest pages (server p95): " + ", ".join(f"{k} {v}" for k, v in slow), flush=True)
    for e in r["errors"][:5]:
        print("   error:", e, flush=True)
    for e in r["logout_details"][:5]:
        print("   logout:", e, flush=True)


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="the demo database (copied for every K)")
    ap.add_argument("--k", default="1,4,8")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--port", type=int, default=8672)
    ap.add_argument("--scratch", default="/tmp/valuation-bench-load")
    ap.add_argument("--json", default=None)
    ap.add_argument("--pin", action="store_true", help="the service on core 0, the browser on core 1 (diagnostic)")
    ap.add_argument("--think", default=None, metavar="MIN,MAX",
                    help="each person thinks a uniform random MIN–MAX s between settled page and next click")
    ap.add_argument("--light", type=int, default=0, metavar="N",
                    help="N of the K people (at most K) are protocol clients (bench/light.py), the rest Chromium")
    args = ap.parse_args(argv)
    span: tuple[float, float] | None = None
    if args.think:
        lo, hi = (float(x) for x in args.think.split(","))
        if not 0 <= lo <= hi:
            ap.error("--think MIN,MAX with 0 ≤ MIN ≤ MAX")
        span = (lo, hi)
    if args.light < 0:
        ap.error("--light N with N ≥ 0")
    if args.pin and len(os.sched_getaffinity(0)) < 2:
        ap.error("--pin needs two cores")
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    pw = live.passwords()
    info = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "machine": live.machine(),
            "chromium": live.chromium_version(), "seconds": args.seconds,
            "pinned": args.pin, "think_s": list(span) if span else None, "light": args.light}
    results = []
    for k in (int(x) for x in args.k.split(",")):
        results.append(asyncio.run(one_k(k, Path(args.db), args.port, args.seconds, scratch, pw, args.pin, span,
                                         args.light)))
        print_row(results[-1])
    if args.json:
        Path(args.json).write_text(json.dumps({**info, "runs": results}, indent=1, ensure_ascii=False),
                                   encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
