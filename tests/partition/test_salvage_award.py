"""Modality IV's award entered with the factors the Naval Authority recorded (Lei 7.542 art. 21 IV; Lei
7.203/1984 art. 10): the pure check (table-driven), the store path (it becomes the contract's award) and the
statement that prints the factors. Expected amounts by hand beside each case."""
from __future__ import annotations

import io
import re
from datetime import datetime
from decimal import Decimal

import pypdf
import pytest

from tests.support.partition import AS_OF, D, prepare
from valuation.core.errors import AccessDenied, InputError
from valuation.partition import salvage, statement_reads, statements, terms

FACTORS = {"success": "Carga removida por inteiro", "efforts": "Mergulho saturado a 34 m",
           "danger": "Casco em colapso sobre o canal", "time_spent": "32 meses de operação",
           "risk": "Desabamento de anteparas", "equipment": "Balsa-guindaste de 300 t",
           "damage_avoided": "38 m³ de óleo retirados"}


# award, useful result, value saved, expenses, factors left out → the fields refused (Lei 7.203/1984 art. 10)
@pytest.mark.parametrize("award, useful, saved, expenses, missing, refused", [
    ("90000.00", True, "103200.00", "20000.00", (), set()),            # within the value saved (§1)
    ("103200.00", True, "103200.00", "20000.00", (), set()),           # exactly the value saved
    ("103200.01", True, "103200.00", "20000.00", (), {"award"}),        # one cent above it (§1)
    ("150000.00", True, None, "20000.00", (), set()),                  # not yet valued: the statement checks it
    ("20000.00", False, "103200.00", "20000.00", (), set()),           # no useful result: the expenses (§2)
    ("20000.01", False, "103200.00", "20000.00", (), {"award"}),        # … and no more
    ("90000.00", True, "103200.00", "20000.00", ("danger", "risk"), {"danger", "risk"}),   # every factor recorded
])
def test_award_problems(award, useful, saved, expenses, missing, refused):
    factors = {k: (None if k in missing else v) for k, v in FACTORS.items()}
    problems = salvage.award_problems(D(award), useful, None if saved is None else D(saved), D(expenses), factors)
    assert {p.path for p in problems} == refused
    assert all("Lei 7.203/1984 art. 10" in p.message for p in problems)


@pytest.fixture
def world(small_world):
    """small_world with its decisions in force (B-1's other items: 100 000 + 2 400 + 800 = R$ 103 200,00 saved)
    and B-1's terms set to modality IV."""
    prepare(small_world)
    small_world.store._clock = lambda: datetime(2025, 6, 30, 12)
    terms.set_contract_terms(small_world.store, small_world.principal("dpc"), "B-1",
                             {"modality": "IV", "salvage_award": "50.000,00", "value_fixed": "depois"})
    return small_world


def _data(award: str, **more):
    return {"award": award, "useful_result": True, "expenses": "20.000,00", "act": "Portaria nº 27/2025-DPC",
            "assessed_on": datetime(2025, 6, 2).date(), **FACTORS, **more}


def test_the_award_is_entered_with_its_factors_and_the_statement_prints_them(world):
    store, dpc = world.store, world.principal("dpc")
    with pytest.raises(InputError) as above:   # R$ 103 200,01 > R$ 103 200,00 saved (art. 10 §1)
        salvage.record_salvage_assessment(store, dpc, "B-1", _data("103.200,01"))
    assert [p.path for p in above.value.problems] == ["award"]
    assert store.scalar("SELECT salvage_award FROM contracts WHERE code = 'B-1'") == Decimal("50000.00")
    salvage.record_salvage_assessment(store, dpc, "B-1", _data("90.000,00"))
    assert store.scalar("SELECT salvage_award FROM contracts WHERE code = 'B-1'") == Decimal("90000.00")
    current = salvage.contract_assessment(store, dpc, "B-1")
    assert (current["award"], current["value_saved"], current["success"]) == ("90000.00", "103200.00",
                                                                               "Carga removida por inteiro")
    draft = statements.create_draft(store, dpc, "B-1", as_of=AS_OF)
    doc = statement_reads.get_statement(store, dpc, draft)
    assert doc.terms["salvage_assessment"]["risk"] == "Desabamento de anteparas"
    text = re.sub(r"\s+", " ", "\n".join(p.extract_text() for p in pypdf.PdfReader(
        io.BytesIO(statement_reads.statement_pdf(store, dpc, draft))).pages))
    for words in ("Remuneração fixada pela Autoridade Naval", "Lei 7.203/1984 art. 10", "Perigo a que estavam",
                  "Casco em colapso sobre o canal", "R$ 90.000,00"):
        assert words in text, words


def test_only_modality_iv_and_only_dpc(world):
    store = world.store
    with pytest.raises(AccessDenied):
        salvage.record_salvage_assessment(store, world.principal("explorer_b"), "B-1", _data("1.000,00"))
    with pytest.raises(InputError) as wrong:   # A-1 is not paid by modality IV
        salvage.record_salvage_assessment(store, world.principal("dpc"), "A-1", _data("1.000,00"))
    assert "modalidade IV" in wrong.value.problems[0].message
    assert store.scalar("SELECT count(*) FROM salvage_assessments") == 0
