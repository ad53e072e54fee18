"""Smoke test of the benchmark (issue 7): `bench/run.py` runs end to end, in-process, at a tiny N
and reports every figure. No timing asserts — speed is shown by the benchmark, never by a
timed unit test; here only that every key is there, every number is finite, the gaps are
non-negative and the data it measured is what it says it built."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from tests.support.bench_modules import bench_module

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 2_000
IMPORT_ROWS = 500
CONTRACTS = 60
PAGES = ("inventory", "statements", "deadlines", "documents")   # the four the figures name


def _bench_run():
    return bench_module("run.py", "valuation_bench_run_smoke")


@pytest.fixture(scope="module")
def outcome(tmp_path_factory, full_demo_db):
    run = _bench_run()
    tmp = tmp_path_factory.mktemp("bench")
    env_before = os.environ.get("VALUATION_DB")
    returned = run.main(["--items", str(ITEMS), "--contracts", str(CONTRACTS), "--import-rows", str(IMPORT_ROWS),
                         "--repeat", "1", "--no-live",   # the browser and load runs: bench/browser.py, load.py
                         "--demo-file", str(full_demo_db),   # the session's demo, not seeded again
                         "--pages", ",".join(PAGES),     # every page on every role: tests/ui (AppTest)
                         "--out", str(tmp / "work"), "--json", str(tmp / "figures.json"),
                         "--readme", str(tmp / "README.md")])
    return run, returned, json.loads((tmp / "figures.json").read_text(encoding="utf-8")), tmp, env_before


def test_every_key_is_present_and_every_figure_is_a_finite_number(outcome):
    run, returned, data, _, _ = outcome
    assert set(run.KEYS) <= set(data)
    for key in run.KEYS:
        value = data[key]
        assert isinstance(value, (int, float)) and not isinstance(value, bool), key
        assert math.isfinite(value), key
        assert value >= 0, key
    assert data["selection_exact_gap"] >= 0 and data["selection_large_gap"] >= 0
    assert returned["items"] == data["items"] == ITEMS
    assert data["import_rows"] == IMPORT_ROWS


def test_the_measured_data_is_the_data_built(outcome):
    _, _, data, _, _ = outcome
    d = data["details"]
    assert d["build"]["value_rows"] == 6 * ITEMS                      # six members' values per item
    # the prototype reads every value row of every round (the demo's rounds too): at least 6 N
    assert d["naive"]["value_rows"] >= 6 * ITEMS and d["naive"]["contracts"] >= 1
    assert d["consensus"]["full"]["items"] == ITEMS
    assert d["consensus"]["full"]["matches_stored"] is True
    assert d["consensus"]["incremental"]["median_checked"] is True
    # the statement covers the decided items, which are the round's decided consensus
    st = d["statement"]
    assert st["historical_items"] + st["other_items"] == d["decide"]["decisions"] <= ITEMS
    assert d["selection_exact"]["items"] == min(1_000, st["historical_items"])
    assert d["selection_large"]["items"] == ITEMS // 10
    assert d["deadlines"]["contracts"] >= CONTRACTS and d["deadlines"]["rows"] > CONTRACTS
    # the generated requests reach what the Authority owes, and the Prazos tab that shows it drew without error
    assert d["authority_deadlines_5k"]["requests"] >= CONTRACTS // 2 and d["authority_deadlines_5k"]["rows"] > 0
    assert d["page_deadlines_requests"]["errors"] == [] and len(d["page_deadlines_requests"]["runs"]) >= 1
    assert set(d["pages"]) == set(PAGES)
    for page in PAGES:
        assert d["pages"][page]["title"], page
    assert all(len(v["runs"]) >= 1 for k, v in d.items() if isinstance(v, dict) and "runs" in v)


def test_targets_and_the_markdown_table(outcome):
    run, _, data, tmp, _ = outcome
    assert set(data["targets"]) == set(run.KEYS) | set(run.LIVE_KEYS)
    assert all(t["met"] in (True, False, None) for t in data["targets"].values())
    text = (tmp / "README.md").read_text(encoding="utf-8")
    assert run.BEGIN in text and run.END in text
    for key in run.KEYS:
        assert f"`{key}`" in text
    for key in run.LIVE_KEYS:   # --no-live: in the table, said not run, never a made-up figure
        assert data[key] is None and data["targets"][key]["met"] is None
        assert f"| `{key}` | {run.LABELS[key]} | not run |" in text
    assert "were not run (`--no-live`)" in text
    assert data["details"]["machine"]["duckdb"] in text


def test_the_environment_is_left_as_it_was(outcome):
    *_, env_before = outcome
    assert os.environ.get("VALUATION_DB") == env_before
