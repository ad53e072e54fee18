"""What the user feels in the browser (issue 17): Debian's Chromium through Playwright against the real
service (`uvicorn service.asgi:app`, as scripts/start.sh runs it), never in the test suite.

    .venv/bin/python bench/browser.py --db /tmp/x/demo.duckdb                  # a copy is served
    .venv/bin/python bench/browser.py --db /tmp/x/bench_1000000.duckdb --label 1M --passes 3
    .venv/bin/python bench/browser.py --db … --roles dpc,explorer --json out.json

For every role (one demo login each, bench/live.py `ACCOUNTS`), in a fresh browser context: the
login — from the click on "Entrar" to the first page settled — then every page the sidebar
offers the role, clicked in sidebar order, from the click to settled (bench/live.py defines
*settled*), `--passes` times (the first pass loads the page's JavaScript — charts, tables — into
the context: it is reported apart as "first"). Then a few widget changes that rerun a page
(the wreck detail on the registry, the inventory's contract and its next page). The service's
own time for each run (the script run, `ui/run_timing.py`) is read from its run log.

Targets: login ≤ 2 s; the wreck registry with its map ≤ 1.0 s; every other page ≤ 1.0 s. A figure is
the median over the passes after the first and over the roles that see the page; `max` is the
worst of all its visits (the first included). The database is copied to the scratch folder
first (the service owns the file it serves; the original stays untouched).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import live  # noqa: E402  (bench/ is not a package: its folder is on sys.path)

LOGIN_TARGET_S = 2.0
PAGE_TARGET_S = 1.0
ROLES = ("dpc", "explorer", "commission", "commission_president", "admin")
LOGIN_FORM = live.LOGIN_FORM
BEGIN, END = "<!-- browser:begin (written by bench/browser.py --readme) -->", "<!-- browser:end -->"


def settle(page: Any, path: str | None, *, absent: str | None = None, timeout_s: float = 60) -> float:
    """Seconds from the last click to settled (bench/live.py); raises on a Streamlit exception box."""
    got = page.evaluate(live.WAIT_JS, live.settle_args(path, absent=absent, timeout_s=timeout_s))
    if got["ms"] is None:
        raise RuntimeError(f"{page.url} did not settle in {timeout_s:.0f} s (waiting for: {got['why']})")
    box = page.locator(live.EXCEPTION_BOX)
    if box.count():
        raise RuntimeError(f"{page.url}: exception box: {box.first.inner_text()[:300]}")
    return round(got["ms"] / 1000, 3)


def new_context(browser: Any) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="pt-BR")
    blocked = live.local_only(context)
    context.add_init_script(live.INIT_JS)
    page = context.new_page()
    page.set_default_timeout(120_000)
    return context, page, blocked


TYPING_MS = 40   # per key: a fast typist (a person types at 150–300 ms per key)


def login(page: Any, base: str, username: str, password: str, typing_ms: int | None = None) -> float:
    """Seconds from the click on "Entrar" to the first page settled. The credentials are typed key by key
    (`typing_ms` per key; 0: pasted at once), as a person does while the login page is shown — the page
    fetches the first page's front-end code meanwhile (ui/front_end_warmup.py)."""
    delay = TYPING_MS if typing_ms is None else typing_ms
    page.goto(base)
    page.locator(LOGIN_FORM).wait_for()
    for label, text in (("Usuário", username), ("Senha", password)):
        field = page.get_by_label(label)
        if delay:
            field.press_sequentially(text, delay=delay)
        else:
            field.fill(text)
    page.get_by_role("button", name="Entrar").click()
    seconds = settle(page, None, absent=LOGIN_FORM)
    page.get_by_role("button", name="Sair").wait_for(timeout=5_000)
    return seconds


def open_page(page: Any, title: str, key: str, *, default: bool = False) -> float:
    """Click the sidebar link; the navigation's first page lives at the root address."""
    page.get_by_role("link", name=title, exact=True).first.click()
    return settle(page, "" if default else key)


def choose(page: Any, label: str, option: str | int) -> bool:
    """Open the selectbox `label` and click an option (by its text, or its place); False if absent."""
    box = page.get_by_label(label, exact=True)
    if not box.count():
        return False
    box.first.click()
    page.keyboard.press("ArrowDown")   # opens the list
    target = page.get_by_role("option").nth(option) if isinstance(option, int) else \
        page.get_by_role("option", name=option, exact=True)
    if not target.count():
        page.keyboard.press("Escape")
        return False
    target.first.click()
    return True


ITEM_CHOICES = 4   # the member chooses the next item this many times (issue 28: median and worst)
SAVES = 5          # and saves a value this many times (the target is a median: one save was one sample)


def member_interactions(page: Any, treasure: str | None) -> dict[str, float]:
    """What a Commission member repeats hundreds of times per round (issue 28): choose the next item of the
    page's list (click on the option → the item's form settled) and save a value (click on "Gravar
    avaliação" → the confirmation settled)."""
    out: dict[str, float] = {}
    open_page(page, "Avaliação da Comissão", "commission")
    if treasure and choose(page, "Contrato", treasure):
        settle(page, "commission")
    chosen = []
    for k in range(1, ITEM_CHOICES + 1):
        if not choose(page, "Item", k):
            break
        chosen.append(settle(page, "commission"))
    if chosen:
        out["commission: escolher o próximo item (mediana)"] = median(chosen)
        out["commission: escolher o próximo item (pior)"] = max(chosen)
    saved = []
    for k in range(SAVES):   # each save moves on to the next item, whose value is then typed and saved
        value = page.get_by_label("Valor", exact=True)
        if not value.count():
            break
        value.first.fill(f"1.234,{56 + k}")
        page.get_by_role("button", name="Gravar avaliação").first.click()
        saved.append(settle(page, "commission"))
    if saved:
        out["commission: gravar um valor (mediana)"] = median(saved)
        out["commission: gravar um valor (pior)"] = max(saved)
    return out


ADDRESS_TABS = 3   # fresh tabs per page and role (the target is a median: one tab is one noisy sample)


def by_address(browser_context: Any, base: str, role: str, tabs: int = ADDRESS_TABS) -> dict[str, list[float]]:
    """Every page the role is offered, opened by its address in a fresh tab of the logged-in context (a
    bookmark, a link in the digest e-mail): from the navigation's start to settled — `tabs` times, the role's
    pages in turn each time."""
    out: dict[str, list[float]] = {}
    for _ in range(tabs):
        for i, (_title, key) in enumerate(live.role_pages(role)):
            tab = browser_context.new_page()
            tab.set_default_timeout(120_000)
            try:
                tab.goto(f"{base}/{'' if i == 0 else key}")
                out.setdefault(key, []).append(settle(tab, "" if i == 0 else key))
            finally:
                tab.close()
    return out


def interactions(page: Any, role: str, treasure: str | None) -> dict[str, float]:
    """Widget changes that rerun a page, timed from the change (its click) to settled."""
    out: dict[str, float] = {}
    if role == "commission":
        return member_interactions(page, treasure)
    if role not in ("dpc", "explorer"):
        return out
    open_page(page, "Naufrágios", "wrecks")
    if choose(page, "Naufrágio", 1):
        out["wrecks: outro naufrágio no detalhe"] = settle(page, "wrecks")
    open_page(page, "Inventário de bens", "inventory")
    if treasure and choose(page, "Contrato", treasure):
        out["inventory: o contrato de 1M itens"] = settle(page, "inventory")
    page.locator('[data-testid="stNumberInputStepUp"]').first.click()   # the page number's +
    out["inventory: página seguinte"] = settle(page, "inventory")
    return out


def run_role(browser: Any, base: str, role: str, username: str, password: str, passes: int,
             treasure: str | None) -> dict[str, Any]:
    context, page, blocked = new_context(browser)
    try:
        result: dict[str, Any] = {"role": role, "user": username, "login_s": login(page, base, username, password),
                                  "pages": defaultdict(list)}
        c0, p0, b0 = new_context(browser)   # the same login pasted at once: no time to fetch anything first
        try:
            result["pasted_login_s"] = login(p0, base, username, password, typing_ms=0)
        finally:
            blocked += b0
            c0.close()
        for _ in range(passes):
            for i, (title, key) in enumerate(live.role_pages(role)):
                result["pages"][key].append(open_page(page, title, key, default=i == 0))
        result["interactions"] = interactions(page, role, treasure)
        result["by_address"] = by_address(context, base, role)
        for _ in range(2):   # two more logins, each in a fresh context (its own cache, as a new browser)
            c2, p2, b2 = new_context(browser)
            try:
                result.setdefault("more_logins_s", []).append(login(p2, base, username, password))
            finally:
                blocked += b2
                c2.close()
        result["blocked"] = sorted(set(blocked))
        result["pages"] = dict(result["pages"])
        return result
    finally:
        context.close()


def server_runs(run_log: Path, since: float) -> list[dict[str, Any]]:
    if not run_log.exists():
        return []
    rows = [json.loads(line) for line in run_log.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["t"] >= since]


def median(values: list[float]) -> float:
    return round(statistics.median(values), 3) if values else float("nan")


def summarise(results: list[dict[str, Any]], runs: list[dict[str, Any]]) -> dict[str, Any]:
    pages: dict[str, dict[str, Any]] = {}
    for key in dict.fromkeys(k for r in results for k in r["pages"]):
        visits = [(r["role"], t) for r in results for k, ts in r["pages"].items() if k == key for t in ts]
        warm = [t for r in results for k, ts in r["pages"].items() if k == key for t in ts[1:]]
        first = [ts[0] for r in results for k, ts in r["pages"].items() if k == key]
        server = [x["wall_s"] for x in runs if live.run_page(x) == key and x["outcome"] == "ok"]
        figure = median(warm or first)
        pages[key] = {"median_s": figure, "first_median_s": median(first), "max_s": max(t for _, t in visits),
                      "server_median_s": median(server), "server_max_s": max(server) if server else None,
                      "roles": sorted({r for r, _ in visits}), "target_s": PAGE_TARGET_S,
                      "met": figure <= PAGE_TARGET_S}
    logins = [t for r in results for t in [r["login_s"], *r.get("more_logins_s", [])]]
    pasted = [r["pasted_login_s"] for r in results if "pasted_login_s" in r]
    return {"login": {"median_s": median(logins), "max_s": max(logins), "runs": logins,
                      "target_s": LOGIN_TARGET_S, "met": median(logins) <= LOGIN_TARGET_S,
                      "typing_ms_per_key": TYPING_MS, "pasted_median_s": median(pasted), "pasted_runs": pasted},
            "pages": pages,
            "interactions": {f"{r['role']}: {k}": v for r in results for k, v in r["interactions"].items()},
            "by_address": address_summary(results)}


def address_summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Pages opened by their address in a fresh tab: per page the median of every tab of every role, and the
    worst."""
    pages: dict[str, Any] = {}
    for key in dict.fromkeys(k for r in results for k in r.get("by_address", {})):
        got = [(r["role"], t) for r in results if key in r.get("by_address", {}) for t in r["by_address"][key]]
        times = [t for _, t in got]
        pages[key] = {"median_s": median(times), "max_s": max(times), "roles": sorted({role for role, _ in got}),
                      "target_s": PAGE_TARGET_S, "met": median(times) <= PAGE_TARGET_S}
    return pages


def print_table(summary: dict[str, Any], label: str) -> None:
    lg = summary["login"]
    print(f"\n## {label}\nlogin → first page: median {lg['median_s']:.2f} s, max {lg['max_s']:.2f} s "
          f"(target ≤ {lg['target_s']} s: {'met' if lg['met'] else 'MISSED'}); typed at {lg['typing_ms_per_key']} ms "
          f"per key; pasted at once: median {lg['pasted_median_s']:.2f} s")
    print(f"{'page':16} {'median':>7} {'first':>7} {'max':>7} {'server':>7}  roles")
    for key, p in summary["pages"].items():
        flag = "" if p["met"] else "  MISSED"
        print(f"{key:16} {p['median_s']:7.2f} {p['first_median_s']:7.2f} {p['max_s']:7.2f} "
              f"{p['server_median_s']:7.2f}  {','.join(p['roles'])}{flag}")
    for name, secs in summary["interactions"].items():
        print(f"  {name}: {secs:.2f} s")
    for key, p in summary.get("by_address", {}).items():
        flag = "" if p["met"] else "  MISSED"
        print(f"  by address {key}: median {p['median_s']:.2f} s, max {p['max_s']:.2f} s{flag}")


def markdown(summary: dict[str, Any], info: dict[str, Any]) -> str:
    """The run as bench/README.md shows it (between BEGIN and END)."""
    m, lg = info["machine"], summary["login"]
    lines = [BEGIN, f"Run of {info['date']} — `python bench/browser.py --db {info['db']}` "
             f"({info['label'] or 'no label'}; "
             f"{info['passes']} passes per role; {info['chromium']}). Load average at the start "
             f"{', '.join(map(str, m['load_avg']))}, at the end {', '.join(map(str, m.get('load_avg_end', [])))}.",
             "", "| what | roles | median | first visit | worst | server (script run) | target | |",
             "|---|---|---:|---:|---:|---:|---|---|",
             f"| login → first page settled | all | {lg['median_s']:.2f} s | — | {lg['max_s']:.2f} s | — "
             f"| ≤ {lg['target_s']} s | {'met' if lg['met'] else '**missed**'} |"]
    for key, p in summary["pages"].items():
        server = "—" if p["server_median_s"] != p["server_median_s"] else f"{p['server_median_s']:.2f} s"
        lines.append(f"| `{key}` | {', '.join(p['roles'])} | {p['median_s']:.2f} s | {p['first_median_s']:.2f} s "
                     f"| {p['max_s']:.2f} s | {server} | ≤ {p['target_s']} s | {'met' if p['met'] else '**missed**'} |")
    for name, secs in summary["interactions"].items():
        lines.append(f"| {name} | | {secs:.2f} s | | | | ≤ {PAGE_TARGET_S} s "
                     f"| {'met' if secs <= PAGE_TARGET_S else '**missed**'} |")
    for key, p in summary.get("by_address", {}).items():
        lines.append(f"| `{key}` opened by its address in a fresh tab | {', '.join(p['roles'])} "
                     f"| {p['median_s']:.2f} s "
                     f"| | {p['max_s']:.2f} s | | ≤ {p['target_s']} s | {'met' if p['met'] else '**missed**'} |")
    lines.append(END)
    return "\n".join(lines)


def write_readme(path: Path, block: str) -> None:
    text = path.read_text(encoding="utf-8")
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True, help="the database to serve (copied to --scratch first)")
    ap.add_argument("--scratch", default="/tmp/valuation-bench-browser")
    ap.add_argument("--port", type=int, default=8671)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--roles", default=",".join(ROLES))
    ap.add_argument("--label", default="")
    ap.add_argument("--treasure", default=None, help="the contract code to pick in the inventory (1M file)")
    ap.add_argument("--no-copy", action="store_true", help="serve --db itself (it must not be in use)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--readme", type=Path, default=None, help="write the table into this README (bench/README.md)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    db = Path(args.db)
    if not args.no_copy:
        copy = scratch / f"served-{db.name}"
        for suffix in ("", ".wal"):
            src = Path(str(db) + suffix)
            if src.exists():
                shutil.copyfile(src, Path(str(copy) + suffix))
            elif Path(str(copy) + suffix).exists():
                Path(str(copy) + suffix).unlink()
        db = copy
    run_log = scratch / f"runs-{args.port}.jsonl"
    run_log.unlink(missing_ok=True)
    pw = live.passwords()
    info = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "db": args.db, "label": args.label,
            "machine": live.machine(), "chromium": live.chromium_version(), "passes": args.passes}
    with live.serve(db, args.port, run_log=run_log) as svc, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=live.CHROMIUM, args=live.CHROMIUM_ARGS, headless=True)
        try:
            warm_ctx, warm_page, _ = new_context(browser)   # one login first: the service's own warm-up
            login(warm_page, svc.base, "dpc.prado", pw["dpc.prado"])
            warm_ctx.close()
            since = time.time()
            results = []
            for role in args.roles.split(","):
                user = live.ACCOUNTS[role][0]
                print(f"{role} ({user})…", flush=True)
                results.append(run_role(browser, svc.base, role, user, pw[user], args.passes, args.treasure))
        finally:
            browser.close()
        runs = server_runs(run_log, since)
    info["machine"]["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    summary = summarise(results, runs)
    out = {**info, **summary, "results": results}
    print_table(summary, args.label or args.db)
    blocked = sorted({u for r in results for u in r["blocked"]})
    if blocked:
        print("requests that would leave the machine:", blocked[:5])
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.readme is not None:
        write_readme(args.readme, markdown(summary, info))
    return out


if __name__ == "__main__":
    main()
