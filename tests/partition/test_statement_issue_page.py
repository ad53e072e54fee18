"""Issuing a statement on the page (AppTest): after "Emitir demonstrativo" the page stays on the contract and the
statement just issued, and says what was issued (issue 43, item 5: it jumped to another contract's statement with
no confirmation, so an office could issue again)."""
from __future__ import annotations

from typing import Any

from tests.support.partition import A1_TERMS, AS_OF, T1, prepare, ready_a1
from tests.support.ui import page_as, texts
from valuation.partition import statements, terms


def _selectbox(at: Any, label: str) -> Any:
    return next(s for s in at.selectbox if s.label == label)


def test_after_issuing_the_page_stays_on_the_contract_and_confirms(small_world: Any) -> None:
    prepare(small_world)
    ready_a1(small_world)                      # A-1 is where the page opens (the first ready contract)
    dpc = small_world.principal("dpc")
    terms.set_contract_terms(small_world.store, dpc, "B-1", A1_TERMS)
    draft = statements.create_draft(small_world.store, dpc, "B-1", as_of=AS_OF, now=T1)
    small_world.store.close()
    at = page_as(small_world.path, dpc, "statements")
    assert _selectbox(at, "Contrato").value == "A-1"
    _selectbox(at, "Contrato").set_value("B-1").run()
    assert _selectbox(at, "Abrir").value == draft
    next(b for b in at.button if b.label == "Emitir demonstrativo").click().run()
    assert not at.exception, at.exception
    assert _selectbox(at, "Contrato").value == "B-1"
    assert _selectbox(at, "Abrir").value != draft
    assert {m.label: m.value for m in at.metric}["Situação"] == "DP-2026/0001 v1"     # the statement just issued
    body = texts(at).replace("\\", "")
    assert "Emitido DP-2026/0001 v1" in body, body[:1500]
    assert not any(b.label == "Emitir demonstrativo" for b in at.button)     # nothing left to issue again


def test_an_a1_that_cannot_be_opened_is_named_when_issuing(small_world: Any, monkeypatch: Any, tmp_path: Any) -> None:
    """Issue 43, item 1: with VALUATION_SIGNING_P12 naming no file the statement still goes out, and the page says it
    went out unsigned and why (the variable)."""
    monkeypatch.setenv("VALUATION_SIGNING_P12", str(tmp_path / "nao-existe.p12"))
    monkeypatch.setenv("VALUATION_SIGNING_P12_PASSWORD", "Segredo-123")
    prepare(small_world)
    ready_a1(small_world)
    statements.create_draft(small_world.store, small_world.principal("dpc"), "A-1", as_of=AS_OF, now=T1)
    small_world.store.close()
    at = page_as(small_world.path, small_world.principal("dpc"), "statements")
    next(b for b in at.button if b.label == "Emitir demonstrativo").click().run()
    assert not at.exception, at.exception
    warnings = " ".join(str(w.value) for w in at.warning).replace("\\", "")
    assert "O ato saiu SEM assinatura eletrônica" in warnings and "VALUATION_SIGNING_P12:" in warnings, warnings
    assert "Segredo-123" not in texts(at)
    assert "Emitido DP-2026/0001 v1" in texts(at).replace("\\", "")
