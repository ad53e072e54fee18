"""What /verificar says of a file (issue 43, item 2): the file from "Baixar a versão assinada mais recente" was told
"NÃO é o documento registrado … pode ter sido alterado" — only the first, unsigned bytes matched. A valid signed
revision of a registered document is that document, with its signatures listed. Real minutes, the test PKI, pyHanko
signatures; the page's words (`service.verify.verdict_html`) on each verdict."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.verify import verdict_html
from tests.support.commission import run_round
from tests.support.pki import TestPki, overwrite_first_page, sign
from valuation.accounts import users
from valuation.commission import minutes
from valuation.signatures import file_check, records
from valuation.signatures.trust import Trust, load_trust


@pytest.fixture
def minutes_act(small_world: Any, pki: TestPki, tmp_path: Path) -> dict[str, Any]:
    panel, round_id = run_round(small_world)
    admin = small_world.principal("admin")
    users.set_cpf(small_world.store, admin, panel["pres"].id, pki.person("ana").cpf)
    users.set_cpf(small_world.store, admin, panel["navy1"].id, pki.person("bruno").cpf)
    data = minutes.round_minutes_pdf(small_world.store, panel["pres"], round_id)
    code = small_world.store.scalar("SELECT code FROM issued_documents WHERE kind = 'minutes' AND record_id = ?",
                                    [round_id])
    trust = load_trust(pki.install(tmp_path / "trust"))
    return {"panel": panel, "pdf": data, "code": code, "store": small_world.store, "trust": trust}


def _page(verdict: file_check.FileVerdict | None) -> str:
    return verdict_html(verdict, "0" * 64)


def test_the_signed_file_is_the_registered_act_with_its_signatures(minutes_act: dict[str, Any],
                                                                   pki: TestPki) -> None:
    store, panel, code, trust = minutes_act["store"], minutes_act["panel"], minutes_act["code"], minutes_act["trust"]
    first = sign(minutes_act["pdf"], pki.person("ana"))
    assert records.record_signed_upload(store, panel["pres"], code, first, trust=trust).valid
    second = sign(first, pki.person("bruno"))
    assert records.record_signed_upload(store, panel["navy1"], code, second, trust=trust).valid
    verdict = file_check.check_file(store, code, second, trust=trust)     # the latest signed revision
    assert verdict is not None and verdict.kind == file_check.SIGNED
    assert verdict.progress is not None and verdict.progress.text == "assinado por 2 de 6"
    assert len(verdict.signatures) == 2 and "ANA MARIA DE SOUZA (CPF ***.982.247-**)" in verdict.signatures[0]
    page = _page(verdict)
    assert "é o documento registrado com este código, com assinaturas" in page and "assinado por 2 de 6" in page
    assert "NÃO" not in page and "BRUNO COSTA LIMA" in page
    earlier = file_check.check_file(store, code, first, trust=trust)     # an earlier accepted revision: 1 of 6
    assert earlier is not None and earlier.progress is not None and earlier.progress.text == "assinado por 1 de 6"


def test_the_unsigned_file_is_the_first_revision(minutes_act: dict[str, Any]) -> None:
    verdict = file_check.check_file(minutes_act["store"], minutes_act["code"], minutes_act["pdf"])
    assert verdict is not None and verdict.kind == file_check.REGISTERED
    assert "na sua primeira revisão" in _page(verdict)


def test_a_signed_revision_never_sent_is_verified_on_the_spot(minutes_act: dict[str, Any], pki: TestPki) -> None:
    """Signed by the president, never uploaded: the verifier, not the records, says what it is."""
    signed = sign(minutes_act["pdf"], pki.person("ana"))
    verdict = file_check.check_file(minutes_act["store"], minutes_act["code"], signed, trust=minutes_act["trust"])
    assert verdict is not None and verdict.kind == file_check.SIGNED
    assert verdict.progress is not None and verdict.progress.text == "assinado por 1 de 6"
    stranger = sign(minutes_act["pdf"], pki.person("stranger"))     # a signature the trust folder does not vouch for
    verdict = file_check.check_file(minutes_act["store"], minutes_act["code"], stranger, trust=minutes_act["trust"])
    assert verdict is not None and verdict.kind == file_check.SIGNED and verdict.progress is not None
    assert verdict.progress.text == "assinado por 0 de 6" and "não reconhecida" in verdict.signatures[0]


@pytest.mark.parametrize("make", [
    lambda pdf, pki: sign(pdf, pki.person("ana"), change=overwrite_first_page),      # content changed as it was signed
    lambda pdf, pki: pdf + b"\n% acrescentado depois\n",                               # bytes added, no signature
])
def test_a_changed_file_is_not_the_registered_act(minutes_act: dict[str, Any], pki: TestPki, make: Any) -> None:
    data = make(minutes_act["pdf"], pki)
    verdict = file_check.check_file(minutes_act["store"], minutes_act["code"], data, trust=minutes_act["trust"])
    assert verdict is not None and verdict.kind == file_check.ALTERED and verdict.reasons
    assert "NÃO é o documento registrado" in _page(verdict)


def test_another_document_and_an_unknown_code(minutes_act: dict[str, Any]) -> None:
    store, code = minutes_act["store"], minutes_act["code"]
    assert file_check.check_file(store, code, b"%PDF-1.7 outro documento").kind == file_check.OTHER
    assert file_check.check_file(store, "ZZZZZ-ZZZZZ", minutes_act["pdf"]) is None
    assert "NÃO é o documento registrado" in _page(None)


def test_the_statement_signed_by_the_institutional_a1_is_the_registered_act(small_world: Any, pki: TestPki,
                                                                             trust: Trust, tmp_path: Path) -> None:
    from tests.signatures.test_institutional import _env, _issue, p12
    from valuation.signatures import listing

    doc, signing, registered = _issue(small_world, _env(p12(pki, tmp_path)), trust)
    served = listing.current_copy(small_world.store, small_world.principal("dpc"), "statements", doc.id, registered)
    code = small_world.store.scalar("SELECT code FROM issued_documents WHERE record_table = 'statements'")
    verdict = file_check.check_file(small_world.store, code, served, trust=trust)
    assert signing.signed and verdict is not None and verdict.kind == file_check.SIGNED
    assert verdict.progress is not None and verdict.progress.text == "assinado por 1 de 1"
