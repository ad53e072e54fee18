"""The strict fields of ui/fields.py and the one time display of ui/fmt.py (issue 23, items 1–3): a date or an
amount is saved as typed, or nothing is saved and the field says why; a stored instant reads in the office's
time zone, converted once."""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from streamlit.testing.v1 import AppTest

from ui.fmt import date_br, moment_br
from valuation.core import clock


def _form_app() -> None:
    from datetime import date

    import streamlit as st

    from ui.fields import date_field, money_field
    from ui.forms import save

    def create(data: dict, *, price_date: object) -> int:
        st.session_state.setdefault("calls", []).append({**data, "price_date": price_date})
        return 1

    with st.form("f"):
        day = date_field("Data do preço", value=date(2026, 3, 10), max_value=date(2026, 3, 17))
        amount = money_field("Valor (R$)")
        ok = st.form_submit_button("Gravar")
    if ok:
        save(create, {"amount": amount}, price_date=day, success="Gravado.")


def _run(day: str, amount: str) -> AppTest:
    at = AppTest.from_function(_form_app)
    at.run()
    at.text_input[0].input(day)
    at.text_input[1].input(amount)
    at.button[0].click()
    at.run()
    return at


def test_a_day_and_an_amount_typed_well_are_saved_as_typed() -> None:
    from datetime import date
    from decimal import Decimal

    at = _run("29/02/2024", "1.001.076,41")
    assert not at.exception and [s.value for s in at.success] == ["Gravado."]
    assert at.session_state["calls"] == [{"amount": Decimal("1001076.41"), "price_date": date(2024, 2, 29)}]
    assert at.text_input[0].placeholder == "dd/mm/aaaa"


@pytest.mark.parametrize(("day", "amount", "says"), [
    ("31/02/2026", "10,00", "Data do preço: “31/02/2026” não existe: fevereiro de 2026 tem 28 dias"),
    ("01/01/2099", "10,00", "Data do preço: 01/01/2099 está fora do intervalo permitido (de 01/01/1900 a 17/03/2026)"),
    ("10/03/2026", "1001.76,41", "Valor (R$): deve ser um valor em reais"),
])
def test_a_bad_field_saves_nothing_and_says_so_under_the_field_and_below_the_form(day: str, amount: str,
                                                                                  says: str) -> None:
    at = _run(day, amount)
    assert not at.exception and not at.success
    assert "calls" not in at.session_state
    errors = [_plain(e.value) for e in at.error]
    assert any(e.startswith(says) for e in errors), errors                    # under the field
    summary = [e for e in errors if e.startswith("Nada foi gravado")]
    assert summary and "acima" in summary[0] and says.split(":")[0] in summary[0]   # below the form, pointing up


def _plain(markdown: str) -> str:
    """The text a reader sees of escaped Markdown (ui.safe.md)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


UTC_INSTANT = datetime(2025, 11, 19, 1, 47)        # stored: naive UTC


def test_a_stored_instant_reads_in_the_office_zone_once() -> None:
    assert moment_br(UTC_INSTANT) == "18/11/2025 22:47"
    assert date_br(UTC_INSTANT) == "18/11/2025 22:47"
    assert moment_br(UTC_INSTANT, zone=True) == "18/11/2025 22:47 (horário de Brasília)"
    # an instant already in the office's zone is the same instant: formatting it again cannot move it
    assert moment_br(clock.local(UTC_INSTANT)) == "18/11/2025 22:47"
    assert moment_br(UTC_INSTANT.replace(tzinfo=UTC).astimezone(timezone(timedelta(hours=5)))) == "18/11/2025 22:47"


def test_the_office_zone_is_valuation_tz(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VALUATION_TZ", "America/Manaus")
    assert moment_br(UTC_INSTANT, zone=True) == "18/11/2025 21:47 (fuso America/Manaus)"
    monkeypatch.setenv("VALUATION_TZ", "Marte/Base")     # unknown (the service refuses it at start): Brasília
    assert moment_br(UTC_INSTANT, zone=True) == "18/11/2025 22:47 (horário de Brasília)"
