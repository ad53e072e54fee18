"""The acts tell the people they concern, inside their own write (issue 42 item 4): a round opened — its members;
the minutes issued — their signers, once; the decisions published and a statement issued — the company of the
contract, never another; a request recorded — the office's people. And what no notice ever says: a wreck's
position, an open round's values, an amount (the leak test reads every notice written by a whole round)."""
from __future__ import annotations

import re
from datetime import date
from typing import Any

from tests.support import partition as P
from tests.support.commission import ROUND_PLAN, run_round
from valuation.commission import minutes
from valuation.commission.decisions import record_decisions
from valuation.commission.rounds import publish_round
from valuation.notices.text import confidential
from valuation.proceedings import requests


def _notices(world: Any) -> list[dict[str, Any]]:
    return world.store.fetch("SELECT n.user_id, u.username, n.event_key, n.kind, n.title, n.body, n.link "
                             "FROM notices n JOIN users u ON u.id = n.user_id ORDER BY n.id")


def _who(rows: list[dict[str, Any]], kind: str) -> set[str]:
    return {r["username"] for r in rows if r["kind"] == kind}


def test_a_round_opened_tells_every_member_but_the_president_who_opened_it(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="open")
    rows = _notices(small_world)
    assert _who(rows, "round_opened") == {m.username for k, m in panel.items() if k != "pres"}
    opened = next(r for r in rows if r["kind"] == "round_opened")
    assert opened["event_key"] == f"round_opened:{round_id}" and opened["link"] == "commission"
    assert opened["title"] == "Rodada 1 aberta — contrato A-1"
    assert "com 6 itens" in opened["body"] and "Avaliação da Comissão" in opened["body"]
    assert {r["kind"] for r in rows} == {"round_opened"}      # no company, no office is told of an open round


def test_the_minutes_tell_their_signers_once(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="closed")
    minutes.round_minutes_pdf(small_world.store, panel["pres"], round_id)
    signers = _who(_notices(small_world), "act_to_sign")
    assert signers == {m.username for m in panel.values()}     # the president and the six who took part
    minutes.round_minutes_pdf(small_world.store, panel["navy1"], round_id)       # served again: nothing new
    assert small_world.store.scalar("SELECT count(*) FROM notices WHERE kind = 'act_to_sign'") == len(signers)


def test_published_decisions_tell_the_contracts_company_only(small_world: Any) -> None:
    run_round(small_world, until="published")
    rows = _notices(small_world)
    assert _who(rows, "decision_published") == {"exp.alfa"}
    told = next(r for r in rows if r["kind"] == "decision_published")
    assert told["link"] == "decisions" and "contrato A-1" in told["title"]


def test_an_issued_statement_tells_the_contracts_company_only(small_world: Any) -> None:
    P.prepare(small_world)
    doc = P.issued_a1(small_world)
    rows = [r for r in _notices(small_world) if r["kind"] == "statement_issued"]
    assert [(r["username"], r["event_key"], r["link"]) for r in rows] == [
        ("exp.alfa", f"statement_issued:{doc.id}", "statements")]
    assert rows[0]["title"] == f"Demonstrativo de partilha {doc.number} v1 emitido — contrato A-1"
    assert confidential(rows[0]["body"]) is None and "7.350" not in rows[0]["body"]   # its net is on the page


def test_a_recorded_request_tells_the_office_but_who_recorded_it(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    request_id = requests.file_request(small_world.store, dpc, {
        "wreck_code": "NAU-1890-02", "organisation_id": small_world.ids["org_b"], "filed_on": date(2026, 9, 1),
        "matter": "pesquisa"})
    rows = _notices(small_world)
    assert [(r["username"], r["kind"], r["event_key"]) for r in rows] == [
        ("om.rio", "filing_received", f"request_received:{request_id}")]
    assert f"nº {request_id}" in rows[0]["body"] and "CPRJ" in rows[0]["body"]
    # an officer of CPRJ recording one: headquarters DPC is told, the officer is not
    requests.file_request(small_world.store, small_world.principal("office_rj"), {
        "wreck_code": "NAU-1750-04", "organisation_id": small_world.ids["org_b"], "filed_on": date(2026, 9, 2),
        "matter": "remoção"})
    assert [r["username"] for r in _notices(small_world)[1:]] == ["dpc.silva"]


# -- what no notice says --------------------------------------------------------------------------------------
def _secrets(world: Any) -> list[re.Pattern[str]]:
    """The positions of every wreck (degrees, minutes as stored and as pt-BR) and every value the round's members
    entered (as typed and as pt-BR money)."""
    out: list[str] = []
    for w in world.store.fetch("SELECT lat_deg, lat_min, lon_deg, lon_min FROM wrecks"):
        out += [f"{w['lat_deg']}°", f"{w['lon_deg']}°", str(w["lat_min"]), str(w["lon_min"]),
                str(w["lat_min"]).replace(".", ","), str(w["lon_min"]).replace(".", ",")]
    for _votes, values in ROUND_PLAN.values():
        for v in values:
            n = int(v)
            out += [f"{n:,}".replace(",", "."), f"{n},00", f"{n}.00"]
    return [re.compile(rf"(?<![\d.,]){re.escape(s)}(?![\d])") for s in set(out) if len(s) > 1]


def test_no_notice_carries_a_position_or_a_value(small_world: Any) -> None:
    panel, round_id = run_round(small_world, until="closed")
    minutes.round_minutes_pdf(small_world.store, panel["pres"], round_id)
    record_decisions(small_world.store, panel["pres"], round_id)
    publish_round(small_world.store, panel["pres"], round_id)
    rows = _notices(small_world)
    assert {r["kind"] for r in rows} == {"round_opened", "act_to_sign", "decision_published"}
    secrets = _secrets(small_world)
    for r in rows:
        text = f"{r['title']}\n{r['body']}"
        assert confidential(text) is None, text
        leaked = [p.pattern for p in secrets if p.search(text)]
        assert not leaked, (leaked, text)
