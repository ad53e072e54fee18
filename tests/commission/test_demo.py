"""The Commission's demo (valuation.demo.commission) on top of the base demo data set.

Checks what the demo promises (rounds in every state, one published, values in foreign
currencies converted at the rate of the price date or earlier, corrections, one
override with its reason), that it is deterministic and fast, that the stored
consensus equals the CLI's answer (`python -m valuation compute consensus`) for the
same items, and that three users can run a round on it from opening to minutes.
"""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pypdf
import pytest

from valuation.accounts.login import principal_from_row
from valuation.commission.decisions import published_decisions, record_decisions
from valuation.commission.minutes import round_minutes_pdf
from valuation.commission.rounds import close_round, open_round, publish_round, round_overview
from valuation.commission.sheet_import import import_assessments
from valuation.core.errors import NotFound
from valuation.db.store import Store
from valuation.demo import base as demo
from valuation.demo import commission as cd
from valuation.demo import suite as demo_suite

ROOT = Path(__file__).resolve().parents[2]
COMMISSION_TABLES = ("fx_rates", "assessment_rounds", "round_items", "assessment_log", "assessment_current",
                     "item_consensus", "decisions", "item_valuation")


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, dict[str, int], float, Path]:
    path = tmp_path_factory.mktemp("commission_demo") / "demo.duckdb"
    store = Store(path)
    demo.seed_demo(store)
    started = time.perf_counter()
    counts = cd.seed_commission_demo(store)
    elapsed = time.perf_counter() - started
    yield store, counts, elapsed, path
    store.close()


def principal(store: Store, username: str) -> Any:
    return principal_from_row(store.fetch_one("SELECT * FROM users WHERE username = ?", [username]))


def rounds(store: Store) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["code"], r["number"]): r for r in store.fetch(
        "SELECT r.*, c.code FROM assessment_rounds r JOIN contracts c ON c.id = r.contract_id")}


def digest(store: Store) -> list[Any]:
    out = []
    for table in COMMISSION_TABLES:
        cols = [c["column_name"] for c in store.fetch(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
            [table]) if c["column_name"] not in ("computed_at",)]
        out.append(store.fetch(f"SELECT {', '.join(cols)} FROM {table} ORDER BY ALL"))
    return out


def test_the_demo_plays_every_state_of_a_round(seeded: tuple[Store, dict[str, int], float, Path]) -> None:
    store, counts, elapsed, _ = seeded
    r = rounds(store)
    a1, b1, a2 = r[(cd.PUBLISHED_CONTRACT, 1)], r[(cd.CLOSED_CONTRACT, 1)], r[(cd.PUBLISHED_CONTRACT, 2)]
    assert len(r) == counts["rounds"] == 3
    assert (a1["status"], b1["status"], a2["status"]) == ("publicada", "encerrada", "aberta")
    assert a1["opened_at"] < a1["closed_at"] < a1["decided_at"] < a1["published_at"] < b1["opened_at"]
    assert max(x["opened_at"] for x in r.values()).date() <= demo.DEMO_TODAY
    # Round 2 holds exactly the items flagged in round 1, and a few of them.
    flagged = {x["item_id"] for x in store.fetch(
        "SELECT item_id FROM item_consensus WHERE round_id = ? AND flagged", [a1["id"]])}
    assert {x["item_id"] for x in store.fetch("SELECT item_id FROM round_items WHERE round_id = ?", [a2["id"]])} \
        == flagged
    assert 0 < len(flagged) < cd.ROUND_ITEMS[cd.PUBLISHED_CONTRACT] // 4
    assert a2["previous_round_id"] == a1["id"]
    # All six demo members entered every item of round 1; three have started round 2.
    per_member = store.fetch("SELECT member_id, count(*) AS n FROM assessment_current WHERE round_id = ? "
                             "GROUP BY member_id", [a1["id"]])
    assert len(per_member) == 6 and {x["n"] for x in per_member} == {cd.ROUND_ITEMS[cd.PUBLISHED_CONTRACT]}
    assert store.scalar("SELECT count(DISTINCT member_id) FROM assessment_current WHERE round_id = ?",
                        [a2["id"]]) == 3
    # Foreign values converted with a rate of the price date or earlier; corrections kept in the trail.
    foreign = store.fetch("SELECT currency, count(*) AS n, bool_and(rate_date <= price_date) AS ok, "
                          "bool_and(value_brl = amount * rate) AS exact FROM assessment_log "
                          "WHERE currency <> 'BRL' GROUP BY currency ORDER BY currency")
    assert [f["currency"] for f in foreign] == ["EUR", "GBP", "USD"]
    assert all(f["ok"] and f["exact"] and f["n"] > 0 for f in foreign)
    assert store.scalar("SELECT count(*) FROM assessment_log WHERE supersedes IS NOT NULL") == 3
    # Disagreement of both kinds, and undecided items without quorum.
    kinds = store.fetch_one("SELECT count(*) FILTER (WHERE decided_by = 'president') AS ties, "
                            "count(*) FILTER (WHERE spread > 0.5) AS spread, "
                            "count(*) FILTER (WHERE decided_by = 'undecided') AS undecided "
                            "FROM item_consensus WHERE round_id IN (?, ?)", [a1["id"], b1["id"]])
    assert kinds["ties"] > 0 and kinds["spread"] > 0 and kinds["undecided"] > 0


def test_decisions_follow_the_consensus_but_for_the_override(
        seeded: tuple[Store, dict[str, int], float, Path]) -> None:
    store, *_ = seeded
    a1 = rounds(store)[(cd.PUBLISHED_CONTRACT, 1)]
    rows = store.fetch(
        "SELECT ic.item_id, ic.historical AS c_hist, ic.value_brl AS c_value, ic.decided_by, d.historical, "
        "d.value_brl, d.basis, iv.decision_id = d.id AS in_force, iv.published FROM item_consensus ic "
        "LEFT JOIN (SELECT * FROM decisions QUALIFY row_number() OVER (PARTITION BY item_id ORDER BY id DESC) = 1) d "
        "ON d.item_id = ic.item_id AND d.round_id = ic.round_id LEFT JOIN item_valuation iv ON iv.item_id = ic.item_id "
        "WHERE ic.round_id = ?", [a1["id"]])
    overridden = [x for x in rows if x["basis"] and cd.OVERRIDE_REASON in x["basis"]]
    assert len(overridden) == 1
    for x in rows:
        if x["decided_by"] == "undecided":
            assert x["historical"] is None                     # no decision without quorum
            continue
        assert x["in_force"] and x["published"]
        if x is not overridden[0]:
            assert (x["historical"], x["value_brl"]) == (x["c_hist"], x["c_value"])
    assert overridden[0]["value_brl"] != overridden[0]["c_value"]
    # The explorer of the contract sees the published decisions; another explorer does not.
    explorer = principal(store, "exp.arqueonautica")
    df = published_decisions(store, explorer, cd.PUBLISHED_CONTRACT)
    assert len(df) == sum(1 for x in rows if x["decided_by"] != "undecided")
    with pytest.raises(NotFound):
        published_decisions(store, principal(store, "exp.salvamar"), cd.PUBLISHED_CONTRACT)


def cli_case(store: Store, round_id: int) -> dict[str, Any]:
    """The CLI's input for a stored round: its policy, members, the rate table and, per item,
    the votes and the values as entered (amount, currency, price date)."""
    rnd = store.fetch_one("SELECT * FROM assessment_rounds WHERE id = ?", [round_id])
    members = store.fetch("SELECT DISTINCT u.id, u.commission_body FROM assessment_current c JOIN users u "
                          "ON u.id = c.member_id WHERE c.round_id = ? ORDER BY u.id", [round_id])
    entries = store.fetch(
        "SELECT c.item_id, c.member_id, l.historical, l.amount, l.currency, l.price_date FROM assessment_current c "
        "JOIN assessment_log l ON l.id = c.log_id WHERE c.round_id = ? ORDER BY c.item_id, c.member_id", [round_id])
    items: dict[int, dict[str, Any]] = {}
    for e in entries:
        it = items.setdefault(int(e["item_id"]), {"id": str(e["item_id"]), "votes": {}, "values": []})
        it["votes"][f"u{e['member_id']}"] = e["historical"]
        if e["amount"] is not None:
            it["values"].append({"member": f"u{e['member_id']}", "amount": str(e["amount"]),
                                 "currency": e["currency"], "date": e["price_date"].isoformat()})
    return {
        "policy": {"method": rnd["method"], "quorum": rnd["quorum"], "spread_threshold": str(rnd["spread_threshold"])},
        "members": [{"id": f"u{m['id']}", "body": m["commission_body"], "president": m["id"] == rnd["president_id"]}
                    for m in members],
        "rates": [{"currency": r["currency"], "date": r["day"].isoformat(), "brl": str(r["brl"])}
                  for r in store.fetch("SELECT currency, day, brl FROM fx_rates ORDER BY currency, day")],
        "items": list(items.values()),
    }


def test_the_stored_consensus_equals_the_cli_answer(seeded: tuple[Store, dict[str, int], float, Path],
                                                    tmp_path: Path) -> None:
    store, *_ = seeded
    r = rounds(store)
    for key in ((cd.PUBLISHED_CONTRACT, 1), (cd.CLOSED_CONTRACT, 1)):
        round_id = r[key]["id"]
        case = tmp_path / f"round_{round_id}.json"
        case.write_text(json.dumps(cli_case(store, round_id)), encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "valuation", "compute", "consensus", "--input", str(case)],
                              capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert done.returncode == 0, done.stderr
        answer = {int(x["id"]): x for x in json.loads(done.stdout)["items"]}
        stored = {int(x["item_id"]): x for x in store.fetch("SELECT * FROM item_consensus WHERE round_id = ?",
                                                           [round_id])}
        assert set(answer) == set(stored) and len(stored) == cd.ROUND_ITEMS[key[0]]
        for item_id, cli in answer.items():
            s = stored[item_id]
            assert (s["historical"], s["decided_by"], s["votes_for"], s["votes_against"], s["quorum_met"],
                    s["flagged"]) == (cli["historical"], cli["decided_by"], cli["votes_for"], cli["votes_against"],
                                      cli["quorum_met"], cli["flagged"]), item_id
            assert s["value_brl"] == (None if cli["value_brl"] is None else Decimal(cli["value_brl"])), item_id
            if cli["spread"] is None:
                assert s["spread"] is None
            else:
                assert s["spread"] == pytest.approx(float(cli["spread"]), rel=1e-9, abs=1e-12)


def test_three_users_run_a_round_from_opening_to_minutes(seeded: tuple[Store, dict[str, int], float, Path],
                                                         tmp_path: Path) -> None:
    _, _, _, path = seeded
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(path, copy)
    store = Store(copy)
    try:
        pres, member, dpc = (principal(store, u) for u in ("cmg.tavares", "cf.rocha", "dpc.prado"))
        explorer = principal(store, "exp.fuem")
        code = "DPC-EX-2017/02"
        ids = [int(x["id"]) for x in store.fetch(
            "SELECT i.id FROM items i JOIN contracts c ON c.id = i.contract_id WHERE c.code = ? "
            "ORDER BY i.item_code LIMIT 8", [code])]
        rnd = open_round(store, pres, code, ids)                          # 1. the president opens
        codes = [x["item_code"] for x in store.fetch(
            "SELECT item_code FROM items WHERE id IN (SELECT item_id FROM round_items WHERE round_id = ?) "
            "ORDER BY item_code", [rnd.id])]
        for k, username in enumerate(("cmg.tavares", "cf.rocha", "cc.lima", "minc.ferraz")):
            sheet = "codigo;historico;valor;moeda;data_do_preco;significancia;fonte\n" + "".join(
                f"{c};sim;{1000 + 10 * k + j},00;BRL;02/11/2026;3;catalogo\n" for j, c in enumerate(codes))
            import_assessments(store, principal(store, username), rnd.id, sheet.encode(), "planilha.csv")
        own = round_overview(store, member, rnd.id, page_size=50)       # 2. a member sees own values only
        assert own.visibility == "own" and "median_brl" not in own.items.columns
        close_round(store, pres, rnd.id)
        assert round_overview(store, member, rnd.id).items["median_brl"].notna().all()
        result = record_decisions(store, pres, rnd.id)
        assert result.written == len(ids)                                  # 4 voters = quorum: all decided
        publish_round(store, pres, rnd.id)
        for reader in (dpc, member):                                       # 3. dpc and a member get the minutes
            text = "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(
                round_minutes_pdf(store, reader, rnd.id))).pages)
            assert code in text and "Publicada" in text and "R$ 1.015,00" in text
        decided = published_decisions(store, explorer, code)
        assert list(decided["item_code"]) == codes
        assert decided["value_brl"].iloc[0] == Decimal("1015.00")          # median of 1000, 1010, 1020, 1030
    finally:
        store.close()


def test_deterministic_idempotent_and_in_the_suite(seeded: tuple[Store, dict[str, int], float, Path],
                                                    tmp_path: Path) -> None:
    store, *_ = seeded
    assert cd.seed_commission_demo(store) == {"rounds": 0}                 # a second run adds nothing
    other = Store(tmp_path / "again.duckdb")
    try:
        demo.seed_demo(other)
        cd.seed_commission_demo(other)
        assert digest(other) == digest(store)
    finally:
        other.close()
    steps = [name for name, _ in demo_suite.STEPS]
    at = steps.index("commission.seed_commission_demo")
    assert demo_suite.STEPS[at][1] is cd.seed_commission_demo
    assert "deadlines.seed_deadline_demo" in steps
    assert all("partition" not in m for m in steps[:at])     # decisions exist before the partition step
