"""The Avisos page (AppTest), for every role: the person's own notices, unread first, the unread count, marking one
and all read, and the e-mail choice — nobody else's notice on it."""
from __future__ import annotations

from typing import Any

import pytest

from tests.support.ui import page_as, texts
from ui.safe import md
from valuation.notices import inbox
from valuation.notices.kinds import MAIL_DAILY, MAIL_NOW
from valuation.notices.notify import notify

# principal key → (kind, link) of the notice seeded for it
ROLES = {"commission": ("round_opened", "commission"), "commission_president": ("act_to_sign", "commission"),
         "dpc": ("filing_received", "deadlines"), "office_rj": ("filing_received", "deadlines"),
         "explorer_a": ("statement_issued", "statements"), "admin": ("filing_received", "overview")}


def _seed(world: Any, key: str, title: str, n: int = 2) -> None:
    kind, link = ROLES[key]
    me, other = world.principal(key), world.principal("explorer_b")

    def run(tx: Any) -> None:
        for i in range(n):
            notify(tx, f"test:{key}:{i}", [me.id], kind, f"{title} {i}", "O que aconteceu e onde ver.", link)
        notify(tx, "test:other", [other.id], "statement_issued", "Aviso de outra pessoa", "Não é seu.", "statements")
    world.store.write("test", run)


@pytest.mark.parametrize("key", list(ROLES))
def test_the_inbox_of_each_role(small_world: Any, key: str) -> None:
    _seed(small_world, key, "Aviso de teste")
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal(key), "notices")
    assert not at.exception, at.exception
    shown = texts(at)
    assert "Avisos" in shown and "Aviso de teste 0" in shown and "Aviso de teste 1" in shown
    assert "Aviso de outra pessoa" not in shown
    assert {m.label: m.value for m in at.metric} == {"Não lidos": "2", "Avisos": "2"}
    page = {"commission": "Avaliação da Comissão", "deadlines": "Prazos", "statements": "Demonstrativos",
            "overview": "Visão geral"}[ROLES[key][1]]
    assert [p.label for p in at.get("page_link")] == [f"Abrir {page}"] * 2
    next(b for b in at.button if b.label == "Marcar como lido").click()
    at.run()
    assert not at.exception and {m.label: m.value for m in at.metric}["Não lidos"] == "1"
    next(b for b in at.button if b.label == "Marcar todos como lidos").click()
    at.run()
    assert {m.label: m.value for m in at.metric}["Não lidos"] == "0" and "Lido em" in texts(at)
    assert not [b for b in at.button if b.label in ("Marcar como lido", "Marcar todos como lidos")]


def test_the_mail_choice_on_the_page(small_world: Any) -> None:
    dpc = small_world.principal("dpc")
    small_world.store.close()
    at = page_as(small_world.path, dpc, "notices")
    assert "Você não tem avisos." in texts(at) and "não tem endereço de e-mail" in texts(at)
    assert at.radio[0].value == MAIL_NOW
    at.radio[0].set_value(MAIL_DAILY)
    next(b for b in at.button if b.label == "Salvar escolha").click()
    at.run()
    assert not at.exception and "Escolha salva: Por e-mail, num resumo diário." in texts(at)
    from valuation.db.store import Store

    with Store(small_world.path) as store:
        assert inbox.mail_setting(store, dpc).choice == MAIL_DAILY


def test_a_title_a_user_wrote_is_not_markdown(small_world: Any) -> None:
    title = "**Naufrágio** [x](https://evil.example) :red[y]"
    _seed(small_world, "explorer_a", title, n=1)
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("explorer_a"), "notices")
    titles = [str(m.value) for m in at.markdown if "Naufrágio" in str(m.value)]
    assert titles == [f"**{md(title + ' 0')}**"] and r"\*\*Naufrágio\*\*" in titles[0], titles
