"""Refusals in words a member understands, one line per refusal (issue 43, item 9): an unsigned file showed
"0 · assinatura sem titular legível"; one refusal of a file with several signatures came as near-identical lines;
"assinatura 5" stood beside "3 de 6". The page's table has one line per upload; the answer to an upload names the
signer by name, and says a reason once."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.commission import run_round
from tests.support.pki import TestPki, overwrite_first_page, sign
from valuation.accounts import users
from valuation.commission import minutes
from valuation.signatures import listing, uploads
from valuation.signatures.verify import NO_SIGNATURE, SignatureCheck, refusal_lines


def _check(index: int, name: str, *reasons: str) -> SignatureCheck:
    return SignatureCheck(index, f"f{index}", None, name, None, 0, reasons)


@pytest.mark.parametrize(("problems", "refused", "expected"), [
    ((NO_SIGNATURE,), (), (NO_SIGNATURE,)),
    (("alterado",), (_check(1, "ANA", "alterado"), _check(2, "BIA", "alterado")), ("alterado",)),   # the file's, once
    ((), (_check(4, "ANA", "CPF errado"), _check(5, "BIA", "CPF errado"), _check(6, "CAIO", "vencido")),
     ("as assinaturas de ANA e BIA: CPF errado", "a assinatura de CAIO: vencido")),
    ((), (_check(5, "", "sem CPF"),), ("a assinatura de titular não identificado: sem CPF",)),
])
def test_one_line_per_refusal_naming_the_signer(problems: tuple[str, ...], refused: tuple[SignatureCheck, ...],
                                                expected: tuple[str, ...]) -> None:
    lines = refusal_lines(problems, refused)
    assert lines == expected
    assert not any("assinatura 5" in line or "assinatura 4" in line for line in lines)


@pytest.fixture
def act(small_world: Any, pki: TestPki, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.delenv("VALUATION_TRUST_DIR", raising=False)
    panel, rid = run_round(small_world)
    admin = small_world.principal("admin")
    users.set_cpf(small_world.store, admin, panel["pres"].id, pki.person("ana").cpf)
    pki.install(Path(small_world.path).resolve().parent / "trust")
    return {"panel": panel, "rid": rid, "store": small_world.store,
            "pdf": minutes.round_minutes_pdf(small_world.store, panel["pres"], rid)}


def test_the_page_says_each_upload_once_in_words(act: dict[str, Any], pki: TestPki) -> None:
    store, pres, rid, pdf = act["store"], act["panel"]["pres"], act["rid"], act["pdf"]
    unsigned = uploads.submit(store, pres, "assessment_rounds", rid, pdf)
    assert not unsigned.accepted and unsigned.lines[1:] == (NO_SIGNATURE,)
    forged = sign(sign(sign(pdf, pki.person("carla"), change=overwrite_first_page), pki.person("bruno")),
                  pki.person("revoked"))                      # three signatures, one content change under them all
    refused = uploads.submit(store, pres, "assessment_rounds", rid, forged)
    assert not refused.accepted and len(refused.lines) == len(set(refused.lines))
    assert not any(line.startswith("assinatura ") for line in refused.lines), refused.lines
    assert any("CARLA DIAS" in line for line in refused.lines), refused.lines
    (act_,) = listing.documents_of(store, pres, "assessment_rounds", rid)
    assert len(act_.rows) == 2                               # one line per upload
    first, second = sorted(act_.rows, key=lambda r: r.uploaded_at)
    assert first.signatures == "nenhuma assinatura no arquivo" and first.reason == NO_SIGNATURE
    assert first.outcome == "recusada" and "sem titular legível" not in first.signatures
    assert second.signatures.count("recusada") == 3 and "CARLA DIAS" in second.signatures
    assert len(second.reason.split("\n")) == len(set(second.reason.split("\n")))
