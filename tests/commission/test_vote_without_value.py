"""A member's historical vote saved without a value is warned about at once (issue 23 item 4).

Lei 7.542 art. 20 §3: the Commission decides whether each thing is historical AND attributes its value. On
a copy of the full demo a member votes "Histórico" on the first item of the open round and leaves the value
blank: the vote is saved (it counts for the classification) and the page says, with the article, that the
value is missing. With a value, no such warning.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.db_copies import copy_database
from tests.support.ui import first_user, page_as
from valuation.db.shared import using

ARTICLE = "art. 20 §3"


def _widget(items: Any, label: str) -> Any:
    found = [w for w in items if w.label == label]
    assert found, f"no widget {label!r}"
    return found[0]


def _enter(at: Any, value: str) -> None:
    _widget(at.radio, "Voto").set_value(True)
    _widget(at.text_input, "Valor").set_value(value)
    if value:
        _widget(at.selectbox, "Fonte do valor (art. 21 §2)").set_value("catalogo")
    _widget(at.selectbox, "Significância (voto histórico)").set_value(3)
    _widget(at.button, "Gravar avaliação").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]


def test_a_historical_vote_without_a_value_is_saved_with_a_warning(full_demo_db: Path, tmp_path: Path) -> None:
    db = copy_database(full_demo_db, tmp_path / "demo.duckdb")
    member = first_user(db, "commission")
    at = page_as(db, member, "commission")
    assert not at.exception and _widget(at.radio, "Voto"), "no entry form for the member on the demo"
    _enter(at, "")
    warned = [w.value for w in at.warning if ARTICLE in w.value and "sem valor" in w.value]
    assert warned, [w.value for w in at.warning]
    with using(db) as store:
        row = store.fetch_one("SELECT historical, amount FROM assessment_log WHERE member_id = ? "
                              "ORDER BY id DESC LIMIT 1", [member.id])
    assert row == {"historical": True, "amount": None}
    _enter(at, "1.234,56")                        # the value given: saved, no warning
    assert not [w for w in at.warning if ARTICLE in w.value]
