"""AppTest: Usuários — the admin chooses, on the page, the offices a DPC user answers for in the daily
digest, from every office by code and name (accounts.users.office_choices)."""
from __future__ import annotations

from typing import Any

from tests.support.ui import page_as
from valuation.accounts import users
from valuation.db.store import Store


def test_the_admin_sets_the_offices_of_a_dpc_user_on_the_page(small_world: Any) -> None:
    world = small_world
    dpc, admin = world.principal("dpc"), world.principal("admin")
    with Store(world.path, migrate=False) as store:
        names = {r["code"]: r["name"] for r in store.fetch("SELECT code, name FROM offices")}
    world.store.close()
    at = page_as(world.path, admin, "users")
    assert not at.exception, at.exception
    pick = next(s for s in at.selectbox if s.label == "Usuário")
    pick.set_value(dpc.id).run()
    chooser = next(m for m in at.multiselect if m.label.startswith("Capitanias pelas quais responde"))
    assert chooser.options == [f"{c} — {names[c]}" for c in sorted(names)]
    chooser.set_value(["CPRJ"])
    next(b for b in at.button if b.label == "Salvar Capitanias").click().run()
    assert not at.exception, at.exception
    assert "Capitanias salvas." in [s.value for s in at.success]
    with Store(world.path, migrate=False) as store:
        assert users.user_offices(store, admin, dpc.id) == ["CPRJ"]
