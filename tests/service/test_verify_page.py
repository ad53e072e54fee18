"""What /verificar's page says (issue 43, item 12), in process: the Navy's and the DPC's heading; a statement's
standing — in force, or replaced by a later version (a superseded statement read as any other)."""
from __future__ import annotations

from typing import Any

from service import verify
from tests.support.partition import AS_OF, T1, T2, prepare, ready_a1
from valuation.authenticity import registry
from valuation.partition import statements


def _code(world: Any, statement_id: int) -> str:
    return str(world.store.scalar("SELECT code FROM issued_documents WHERE record_table = 'statements' AND "
                                  "record_id = ?", [statement_id]))


def test_a_superseded_statement_says_so_and_the_one_in_force_too(small_world: Any) -> None:
    prepare(small_world)
    ready_a1(small_world)
    dpc = small_world.principal("dpc")
    v1 = statements.issue_statement(small_world.store, dpc, statements.create_draft(
        small_world.store, dpc, "A-1", as_of=AS_OF, now=T1), now=T1)
    first = verify.with_standing(small_world.store, registry.lookup(small_world.store, _code(small_world, v1.id)))
    assert first is not None and first.standing == "em vigor (nenhuma versão posterior emitida)"
    v2 = statements.issue_statement(small_world.store, dpc, statements.create_draft(
        small_world.store, dpc, "A-1", as_of=AS_OF, now=T2), correction_reason="Correção do valor de um item.", now=T2)
    old = verify.with_standing(small_world.store, registry.lookup(small_world.store, _code(small_world, v1.id)))
    assert old is not None and old.standing is not None
    assert old.standing.startswith("SUBSTITUÍDO pela versão 2 deste demonstrativo, emitida em")
    page = verify.answer_html(old)
    assert "Situação" in page and "não está mais em vigor" in page and v2.number not in page
    new = verify.with_standing(small_world.store, registry.lookup(small_world.store, _code(small_world, v2.id)))
    assert new is not None and new.standing == "em vigor (nenhuma versão posterior emitida)"


def test_an_act_that_is_not_a_statement_has_no_standing_line(small_world: Any) -> None:
    stamp = registry.new_stamp()
    from valuation.exports import PdfReport

    registry.issue(small_world.store, "admin", stamp, PdfReport("Mapa", stamp=stamp).paragraph("x").bytes(),
                   kind="wreck_map", record=("offices", None, "CPRJ|2026"), office="CPRJ")
    answer = verify.with_standing(small_world.store, registry.lookup(small_world.store, stamp.code))
    assert answer is not None and answer.standing is None and "Situação" not in verify.answer_html(answer)


def test_the_page_carries_the_navys_and_the_dpcs_heading() -> None:
    body = verify.page_document("<p>corpo</p>")
    assert "MARINHA DO BRASIL" in body and "Diretoria de Portos e Costas" in body
    assert body.index("MARINHA DO BRASIL") < body.index("<h1>") < body.index("corpo")
