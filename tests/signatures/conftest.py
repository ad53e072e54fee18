"""The signatures' fixtures: one test PKI per module, an issued PDF, the admin's trust folder."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pki import TestPki
from valuation.authenticity.codes import Stamp
from valuation.exports import PdfReport
from valuation.signatures.trust import Trust, load_trust


def issued_pdf(title: str = "Ata da rodada 1 de avaliação — contrato A-1", code: str = "ABCDE12345") -> bytes:
    """A PDF issued by the product's report builder with its authenticity stamp (as the minutes are)."""
    report = PdfReport(title, "Comissão Interministerial — Lei 7.542/1986, art. 20 §3", orientation="L",
                       stamp=Stamp(code=code, base_url="https://painel.teste", nup="00000.000001/2026-11"))
    report.heading("1. Identificação")
    report.key_values([("Contrato", "A-1"), ("Rodada", "1ª"), ("Situação", "publicada")])
    report.heading("2. Itens avaliados")
    report.table(["Item", "Descrição", "Valor"], [("A1-001", "Ânfora de cerâmica", "R$ 12.345,60")],
                 col_widths=[1, 5, 2])
    report.signature_lines([("ANA MARIA DE SOUZA", "Presidente"), ("BRUNO COSTA LIMA", "Membro")])
    return report.bytes()


@pytest.fixture(scope="module")
def pki() -> TestPki:
    return TestPki.build()


@pytest.fixture(scope="module")
def registered() -> bytes:
    return issued_pdf()


@pytest.fixture(scope="module")
def trust_folder(pki: TestPki, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pki.install(tmp_path_factory.mktemp("trust"))


@pytest.fixture(scope="module")
def trust(trust_folder: Path) -> Trust:
    loaded = load_trust(trust_folder)
    assert len(loaded.anchors) == 1 and len(loaded.crls) == 2 and not loaded.problems
    return loaded
