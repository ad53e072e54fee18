"""bench/load.py's light people (`--light`, bench/light.py) against the real service on the demo: two protocol
clients — logged in once in Chromium, then over Streamlit's WebSocket only — open their role's pages for a few
seconds. They must have viewed pages without error or logout, and the service's run log must hold their runs,
of more than one page each: a client that sent nothing the app ran, or reran the same page, fails here.
No timing asserts (speed is what the bench reports)."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.support.bench_modules import bench_module
from tests.support.browser import _free_port
from tests.support.db_copies import copy_database

ROOT = Path(__file__).resolve().parents[2]
SECONDS = 4
pytestmark = pytest.mark.browser


def _bench_load():
    return bench_module("load.py", "valuation_bench_load_light")


def test_two_light_people_view_pages_that_the_service_runs(full_demo_db: Path, tmp_path: Path) -> None:
    load = _bench_load()
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    result = asyncio.run(load.one_k(2, db, _free_port(), SECONDS, tmp_path, load.live.passwords(), n_light=2,
                                    warm=False))   # the warm-up login is the bench's, not needed here

    assert result["errors"] == [] and result["logouts"] == 0
    assert result["light"] == 2 and result["chromium_views"] == 0
    people = {p["user"]: p for p in result["people"]}
    assert set(people) == {"dpc.prado", "exp.salvamar"} and all(p["light"] for p in people.values())
    assert all(p["views"] >= 2 for p in people.values()), people
    assert result["light_views"] == result["views"] and result["light_p95_s"] is not None

    runs = [json.loads(line) for line in (tmp_path / "load-k2.runs.jsonl").read_text(encoding="utf-8").splitlines()]
    for user, person in people.items():
        theirs = [r for r in runs if r["user"] == user]
        assert {r["outcome"] for r in theirs} <= {"ok", "stop"}   # "stop": a page that ends in st.stop()
        assert len(theirs) >= person["views"], (user, len(theirs), person["views"])
        # the pages clicked, in the role's sidebar order: more than the first one ran
        opened = {r["page"] for r in theirs}
        assert len(opened) >= 2 and opened <= {"", *(key for _, key in load.live.role_pages(theirs[0]["role"]))}
