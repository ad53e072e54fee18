"""The notices' store (valuation.notices; docs/decisions/060-notices.md): one notice per person and event, only to
those the event is for, each person's inbox their own, read marks and the e-mail choice — on `small_world`."""
from __future__ import annotations

from typing import Any

import pytest

from valuation.core.errors import InputError, NotFound
from valuation.db.store import Store
from valuation.notices import inbox, kinds, recipients
from valuation.notices.notify import notify
from valuation.notices.text import check, confidential, event_key, parse_link


def _notify(store: Store, key: str, ids: list[int], *, kind: str = "round_opened", title: str = "Rodada 1 aberta",
            body: str = "A rodada 1 foi aberta.", link: str = "commission") -> int:
    return int(store.write("test", lambda tx: notify(tx, key, ids, kind, title, body, link)))


def test_one_notice_per_person_and_event(small_world: Any) -> None:
    p = small_world.principal
    who = [p("commission").id, p("commission_culture").id]
    assert _notify(small_world.store, "round_opened:1", who) == 2
    assert _notify(small_world.store, "round_opened:1", [*who, p("commission_president").id]) == 1   # only the new
    assert _notify(small_world.store, "round_opened:1", who) == 0
    assert small_world.store.scalar("SELECT count(*) FROM notices") == 3


def test_an_inactive_person_or_an_unknown_id_gets_none(small_world: Any) -> None:
    assert _notify(small_world.store, "round_opened:2", [small_world.principal("inactive").id, 999_999]) == 0


@pytest.mark.parametrize(("title", "body", "link", "why"), [
    ("Valor R$ 10", "corpo", "commission", "an amount"),
    ("Título", "Decisão: 1.234,56 pelo bem", "commission", "an amount"),
    ("Título", "O naufrágio está a 13° 0,50' S", "commission", "an amount"),
    ("Título", "Posição 13°30 S, 38°31 W", "commission", "a position"),
    ("Título", "latitude -13.008", "commission", "a position"),
    ("Título", "corpo", "https://outro.example/", "page of the app"),
    ("Duas\nlinhas", "corpo", "commission", "one line"),
])
def test_a_notice_never_carries_an_amount_or_a_position(title: str, body: str, link: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check("round_opened:1", "round_opened", title, body, link)


def test_a_notice_refused_by_its_text_writes_nothing_of_its_act(small_world: Any) -> None:
    def act(tx: Any) -> None:
        tx.execute("UPDATE users SET full_name = 'Mudado' WHERE username = 'com.navy'")
        member = small_world.principal("commission").id
        notify(tx, "round_opened:3", [member], "round_opened", "T", "R$ 5", "commission")
    with pytest.raises(ValueError):
        small_world.store.write("test", act)
    assert small_world.store.scalar("SELECT full_name FROM users WHERE username = 'com.navy'") == "Capitão Bruno Costa"
    assert small_world.store.scalar("SELECT count(*) FROM notices") == 0


def test_text_helpers() -> None:
    assert event_key("deadline", "monthly_report:A-1:2025-03", "due_soon") == \
        "deadline:monthly_report:A-1:2025-03:due_soon"
    spaced = event_key("statement_issued", "um código com espaço")
    assert spaced.startswith("statement_issued:sha256:") and spaced == event_key("statement_issued",
                                                                                "um código com espaço")
    assert parse_link("commission?rodada=3") == ("commission", {"rodada": "3"})
    assert parse_link("javascript:alert(1)") is None
    assert confidential("Rodada 2 do contrato A-1, 6 itens") is None


def test_the_kinds_are_the_tables(store: Store) -> None:
    assert {r["code"] for r in store.fetch("SELECT code FROM notice_kinds")} == set(kinds.BY_CODE)


def test_recipients_follow_the_rights(small_world: Any) -> None:
    p, s = small_world.principal, small_world.store
    assert recipients.company_people(s, small_world.ids["org_a"]) == [p("explorer_a").id]
    assert recipients.company_people(s, small_world.ids["org_b"]) == [p("explorer_b").id]
    members = recipients.commission_members(s)
    assert set(members) == {p("commission").id, p("commission_culture").id, p("commission_president").id}
    # CPRJ: its officer and headquarters DPC (the inactive DPC user never); CPBA: no officer of CPRJ
    assert recipients.office_people(s, "CPRJ") == sorted([p("office_rj").id, p("dpc").id])
    assert recipients.office_people(s, "CPBA") == [p("dpc").id]


def test_each_inbox_is_the_persons_own(small_world: Any) -> None:
    p, s = small_world.principal, small_world.store
    a, b = p("explorer_a"), p("explorer_b")
    for n in range(3):
        _notify(s, f"statement_issued:{n}", [a.id], kind="statement_issued", title=f"Demonstrativo {n}",
                link="statements")
    _notify(s, "statement_issued:9", [b.id], kind="statement_issued", title="Demonstrativo de Beta", link="statements")
    box = inbox.inbox(s, a)
    assert (box.total, box.unread, box.pages) == (3, 3, 1)
    assert [r["title"] for r in box.rows] == ["Demonstrativo 2", "Demonstrativo 1", "Demonstrativo 0"]
    assert inbox.unread_count(s, b) == 1
    beta_id = int(s.scalar("SELECT id FROM notices WHERE user_id = ?", [b.id]))
    with pytest.raises(NotFound):
        inbox.mark_read(s, a, beta_id)                     # another person's notice: "não encontrado"
    assert inbox.unread_count(s, b) == 1
    first = box.rows[0]["id"]
    assert inbox.mark_read(s, a, first) is True and inbox.mark_read(s, a, first) is False
    box = inbox.inbox(s, a)
    assert box.unread == 2 and box.rows[-1]["id"] == first and box.rows[-1]["read_at"] is not None   # read last
    assert inbox.mark_all_read(s, a) == 2 and inbox.unread_count(s, a) == 0 and inbox.mark_all_read(s, a) == 0
    actions = [r["action"] for r in s.fetch("SELECT action FROM audit_log WHERE action LIKE 'notice%' ORDER BY id")]
    assert actions == ["notice_read", "notices_read"]


def test_the_inbox_pages(small_world: Any) -> None:
    a = small_world.principal("explorer_a")
    for n in range(5):
        _notify(small_world.store, f"statement_issued:{n}", [a.id], kind="statement_issued", link="statements")
    box = inbox.inbox(small_world.store, a, page=3, page_size=2)
    assert (box.page, box.pages, len(box.rows)) == (3, 3, 1)


def test_the_mail_choice_applies_to_later_notices(small_world: Any) -> None:
    s, a = small_world.store, small_world.principal("explorer_a")
    s.write("test", lambda tx: tx.execute("UPDATE users SET email = 'eduardo@alfa.example' WHERE id = ?", [a.id]))
    assert inbox.mail_setting(s, a) == inbox.MailSetting(choice=kinds.MAIL_NOW, has_address=True)
    _notify(s, "statement_issued:1", [a.id], kind="statement_issued", link="statements")
    assert inbox.set_mail_choice(s, a, kinds.MAIL_DAILY) is True
    assert inbox.set_mail_choice(s, a, kinds.MAIL_DAILY) is False
    _notify(s, "statement_issued:2", [a.id], kind="statement_issued", link="statements")
    assert [r["mail"] for r in s.fetch("SELECT mail FROM notices ORDER BY id")] == ["now", "daily"]
    with pytest.raises(InputError) as refused:
        inbox.set_mail_choice(s, a, "sempre")
    assert refused.value.problems[0].path == "choice" and "Receber os avisos" in refused.value.problems[0].message
    b = small_world.principal("explorer_b")                     # no address: 'none', whatever the choice
    _notify(s, "statement_issued:3", [b.id], kind="statement_issued", link="statements")
    assert s.scalar("SELECT mail FROM notices WHERE user_id = ?", [b.id]) == "none"
    assert inbox.mail_setting(s, b).has_address is False
