"""AppTest: Assinatura de calendário — a DPC user and an explorer make, read and revoke their private
calendar address on the page, with the offices offered by name (deadlines.feeds.office_choices)."""
from __future__ import annotations

import re
from typing import Any

from tests.support.ui import page_as, texts
from valuation.db.store import Store
from valuation.deadlines import feeds
from valuation.jobs.settings import JobSettings

ADDRESS = re.compile(r"^(?P<base>.+)/calendario/(?P<token>[A-Za-z0-9_-]{40,128})\.ics$")


def _make_address(world: Any, key: str) -> tuple[Any, str, str]:
    """Open the page as `key`, click "Gerar novo endereço"; (the run, the address's base, its token)."""
    world.store.close()
    at = page_as(world.path, world.principal(key), "subscriptions")
    assert not at.exception, at.exception
    assert "Você não tem assinatura ativa." in texts(at)
    next(b for b in at.button if b.label == "Gerar novo endereço").click().run()
    assert not at.exception, at.exception
    assert [c.value for c in at.code], "the address is shown once, right after it is made"
    found = ADDRESS.match(at.code[0].value)
    assert found, at.code[0].value
    return at, found["base"], found["token"]


def test_a_dpc_user_subscribes_to_one_office_and_the_address_reads_its_deadlines(small_world: Any) -> None:
    world = small_world
    with Store(world.path, migrate=False) as store:
        names = {r["code"]: r["name"] for r in store.fetch("SELECT code, name FROM offices")}
    world.store.close()
    at = page_as(world.path, world.principal("dpc"), "subscriptions")
    office = at.selectbox[0]
    assert office.label == "Prazos de"
    assert office.options == ["Todas as Capitanias", *(f"{names[c]} ({c})" for c in sorted(names))]
    office.set_value("CPRJ").run()
    next(b for b in at.button if b.label == "Gerar novo endereço").click().run()
    assert not at.exception, at.exception
    found = ADDRESS.match(at.code[0].value)
    assert found, at.code[0].value
    # AppTest has no browser behind the run: the address starts with the configured base URL
    assert found["base"] == JobSettings.from_env(world.path).base_url.rstrip("/")
    assert f"prazos da {names['CPRJ']}." in texts(at)
    with Store(world.path, migrate=False) as store:
        feed = feeds.resolve(store, found["token"])
    assert feed is not None and feed.principal.username == world.username("dpc") and feed.office == "CPRJ"


def test_an_explorer_subscribes_to_its_company_and_revokes(small_world: Any) -> None:
    at, _, token = _make_address(small_world, "explorer_a")
    assert not at.selectbox, "an explorer subscribes to its own company's deadlines: no office to choose"
    assert "prazos da sua empresa." in texts(at)
    next(b for b in at.button if b.label == "Revogar assinatura").click().run()
    assert not at.exception, at.exception
    assert "Você não tem assinatura ativa." in texts(at) and not at.code
    with Store(small_world.path, migrate=False) as store:
        assert feeds.resolve(store, token) is None
