"""Signed acts on a real deployment, end to end in Debian's Chromium against the real service (issue 43, "Done when").

The database is the demo's (`db init --demo`: building a contract from an empty database through the pages is another
task's), but the signing is configured as on a real deployment, never the demo's: the trust folder is a test PKI made
with `cryptography` (VALUATION_TRUST_DIR), the institutional A1 a PKCS#12 file of that PKI named by
VALUATION_SIGNING_P12 and its password, and the members sign with that PKI's certificates carrying their CPFs.

1. The DPC issues a statement on the page; it says it was signed, and the PDF downloaded is validated by pyHanko as
   signed by the A1's certificate (intact, valid, trusted by the test root with its CRLs).
2. A member downloads the minutes twice: one code, the same bytes. Two members sign, one after the other, each on the
   version the page serves: "assinado por 2 de 6". /verificar given the signed file says it is the registered act with
   2 of 6 signatures (the code alone: the count, never who signed); given the first, unsigned download, that it is
   the registered act's first revision.
3. With a wrong password, then with a missing file, the variable (never the password) is named in the start-up log,
   in /saude and on Tarefas, and issuing a statement says the act went out unsigned.
"""
from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pypdf
import pytest
from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, Encoding, pkcs12

from tests.support.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    check_offline,
    check_page,
    new_page,
    open_from_sidebar,
    readme_logins,
    readme_password,
    wait_idle,
)
from tests.support.db_copies import copy_database
from tests.support.pki import NOW, TestPki, sign
from tests.support.service import running_service
from valuation.core.ids import complete_cpf
from valuation.demo.parties import DEMO_CPFS

pytestmark = pytest.mark.browser
CODE = re.compile(r"\b([0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5})\b")
PASSWORD = "Senha-do-A1-2026"
WRONG = "Nao-E-Esta-987"
MINUTES_CONTRACT = "DPC-EX-2017/02"          # the demo's published round that has no issued minutes yet
SIGNERS = ("cmg.tavares", "cf.rocha")


@dataclass
class Setup:
    db: Path
    pki: TestPki
    trust: Path
    a1: Path
    a1_der: bytes


def _label(username: str) -> str:
    """The test signer's label, which names its signature field: no dot (in a PDF field name a dot is a level of
    the form's hierarchy)."""
    return username.replace(".", "_")


@pytest.fixture(scope="module")
def setup(full_demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Setup:
    tmp = tmp_path_factory.mktemp("signed_acts")
    pki = TestPki.build()
    valid = (NOW - timedelta(days=30), NOW + timedelta(days=365))
    for username in SIGNERS:                  # the members' certificates carry the CPFs their accounts have
        pki.add_person(_label(username), username.upper(), DEMO_CPFS[username], pki.intermediate, valid)
    pki.add_person("a1", "DIRETORIA DE PORTOS E COSTAS", complete_cpf("123456789"), pki.intermediate, valid)
    a1 = pki.person("a1")
    path = tmp / "dpc-a1.p12"
    path.write_bytes(pkcs12.serialize_key_and_certificates(b"dpc", a1.key, a1.cert, a1.chain,
                                                           BestAvailableEncryption(PASSWORD.encode())))
    return Setup(copy_database(full_demo_db, tmp / "deployment.duckdb"), pki, pki.install(tmp / "trust"), path,
                 a1.cert.public_bytes(Encoding.DER))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


def _env(s: Setup, **signing: str) -> dict[str, str]:
    return {"VALUATION_TRUST_DIR": str(s.trust), "VALUATION_SIGNING_P12": str(s.a1),
            "VALUATION_SIGNING_P12_PASSWORD": PASSWORD, **signing}


def _log_in(browser: Any, base: str, who: str) -> tuple[Any, list[str]]:
    """A new browser context logged in as `who`: a role (README's first demo login of it) or a username."""
    logins = readme_logins()
    username, password = logins[who] if who in logins else (who, readme_password(who))
    page, blocked = new_page(browser)
    page.goto(base)
    page.get_by_label("Usuário").fill(username)
    page.get_by_label("Senha").fill(password)
    page.get_by_role("button", name="Entrar").click()
    page.get_by_role("button", name="Sair").wait_for()
    return page, blocked


def _download(page: Any, label: str) -> bytes:
    with page.expect_download() as info:
        page.get_by_test_id("stDownloadButton").filter(has_text=label).first.locator("button").click()
    return Path(info.value.path()).read_bytes()


def _code_of(data: bytes) -> str:
    text = " ".join(" ".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(data)).pages).split())
    found = CODE.search(text)
    assert found, text[:400]
    return found.group(1)


def _issue_statement(page: Any) -> list[str]:
    """As the DPC: a new draft of the contract the page opens on, issued as its next version; the page's words."""
    open_from_sidebar(page, "Demonstrativos", "statements")
    page.get_by_role("button", name="Gerar rascunho").click()
    page.get_by_text(re.compile(r"Rascunho nº \d+ gerado")).wait_for(timeout=120_000)
    wait_idle(page)
    page.get_by_label("Motivo da correção").fill("Nova versão emitida pelo teste de atos assinados.")
    page.get_by_role("button", name="Emitir demonstrativo").click()
    page.get_by_text(re.compile(r"^Emitido DP-")).wait_for(timeout=120_000)
    wait_idle(page)
    check_page(page, "after issuing a statement")
    return page.get_by_test_id("stAlert").all_inner_texts()


def _validated_by(data: bytes, s: Setup) -> Any:
    """pyHanko's own validation of the file's one signature against the test root and its CRLs (no network)."""
    from asn1crypto import x509 as asn1_x509
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    (sig,) = PdfFileReader(io.BytesIO(data)).embedded_signatures
    crls = [s.pki.root.crl().public_bytes(Encoding.DER), s.pki.intermediate.crl().public_bytes(Encoding.DER)]
    context = ValidationContext(trust_roots=[asn1_x509.Certificate.load(s.pki.root.cert.public_bytes(Encoding.DER))],
                                crls=crls, allow_fetching=False, revocation_mode="require")
    return sig.signer_cert.dump(), validate_pdf_signature(sig, context)


def _open_minutes(page: Any) -> None:
    open_from_sidebar(page, "Avaliação da Comissão", "commission")
    page.get_by_test_id("stSelectbox").filter(has_text="Contrato").first.click()
    page.get_by_role("option", name=MINUTES_CONTRACT).first.click()
    wait_idle(page)
    page.get_by_test_id("stSelectbox").filter(has_text="Rodada").first.click()
    page.get_by_role("option", name=re.compile(r"^Rodada 1 — Publicada")).first.click()
    wait_idle(page)
    page.get_by_role("tab", name="Ata", exact=True).first.click()
    wait_idle(page)


def _sign_and_send(page: Any, data: bytes, person: Any, tmp: Path) -> str:
    with ThreadPoolExecutor(1) as pool:      # pyHanko runs its own event loop: not in Playwright's thread
        signed = pool.submit(sign, data, person).result()
    path = tmp / f"ata_{person.label}.pdf"
    path.write_bytes(signed)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    page.get_by_role("button", name="Enviar PDF assinado").click()
    page.get_by_text(re.compile(r"^Assinatura (aceita|recusada)")).first.wait_for(timeout=120_000)
    wait_idle(page)
    return page.get_by_test_id("stAlert").filter(has_text=re.compile(r"Assinatura (aceita|recusada)")).inner_text()


def _verificar(page: Any, base: str, code: str, data: bytes, tmp: Path, name: str) -> str:
    path = tmp / name
    path.write_bytes(data)
    page.goto(f"{base}/verificar?codigo={code}")
    page.locator('input[name="arquivo"]').set_input_files(str(path))
    page.get_by_role("button", name="Conferir", exact=True).click()
    page.locator("table").wait_for()
    return " ".join(page.locator("body").inner_text().split())


def test_a_signed_statement_and_minutes_signed_by_two_members(setup: Setup, browser: Any,
                                                              tmp_path: Path) -> None:
    with running_service(setup.db, env=_env(setup)) as svc:
        health = json.loads(svc.get("/saude").read())
        assert health["configuration"] == [], health["configuration"]

        page, blocked = _log_in(browser, svc.base, "dpc")                    # 1. the statement
        alerts = " ".join(_issue_statement(page))
        assert "Assinado com o certificado institucional (DIRETORIA DE PORTOS E COSTAS): assinado por 1 de 1." \
            in alerts, alerts
        statement = _download(page, "Baixar PDF")
        check_offline(blocked)
        page.context.close()

        first, blocked = _log_in(browser, svc.base, SIGNERS[0])            # 2. the minutes, downloaded twice
        _open_minutes(first)
        unsigned = _download(first, "Baixar ata (PDF)")
        again = _download(first, "Baixar ata (PDF)")
        code = _code_of(unsigned)
        assert again == unsigned and _code_of(again) == code
        for tab in ("Concordância", "Ata"):                                 # the tab drawn again lists the act
            first.get_by_role("tab", name=tab, exact=True).first.click()
            wait_idle(first)
        first.get_by_text(f"Código {code}").wait_for()
        first.get_by_text("assinado por 0 de 6").first.wait_for()
        outcome = _sign_and_send(first, unsigned, setup.pki.person(_label(SIGNERS[0])), tmp_path)
        assert f"Documento {code}: assinado por 1 de 6." in outcome, outcome
        check_page(first, "the first signature")
        check_offline(blocked)
        first.context.close()

        second, blocked = _log_in(browser, svc.base, SIGNERS[1])           # the next member signs what is served
        _open_minutes(second)
        served = _download(second, "Baixar ata (PDF)")
        assert served.startswith(unsigned) and served != unsigned and _code_of(served) == code
        outcome = _sign_and_send(second, served, setup.pki.person(_label(SIGNERS[1])), tmp_path)
        assert f"Documento {code}: assinado por 2 de 6." in outcome, outcome
        signed = _download(second, "Baixar ata (PDF)")
        assert signed.startswith(served) and signed != served

        second.goto(f"{svc.base}/verificar?codigo={code}")                  # the code alone: the count, no names
        table = " ".join(second.locator("table").inner_text().split())
        assert "Assinatura eletrônica assinado por 2 de 6" in table and "CMG.TAVARES" not in table, table
        said = _verificar(second, svc.base, code, signed, tmp_path, "ata_assinada.pdf")
        assert "O arquivo enviado é o documento registrado com este código, com assinaturas eletrônicas " \
               "acrescentadas sem alterar o conteúdo: assinado por 2 de 6." in said, said
        assert "NÃO é o documento registrado" not in said and "MARINHA DO BRASIL" in said
        said = _verificar(second, svc.base, code, unsigned, tmp_path, "ata.pdf")
        assert "é o documento registrado com este código, na sua primeira revisão" in said, said
        check_page(second, "/verificar")
        check_offline(blocked)
        second.context.close()
    with ThreadPoolExecutor(1) as pool:
        signer, status = pool.submit(_validated_by, statement, setup).result()
    assert signer == setup.a1_der, "the statement is not signed by the institution's A1"
    assert status.intact and status.valid and status.trusted, status.pretty_print_details()


@pytest.mark.parametrize(("broken", "variable"), [
    ({"VALUATION_SIGNING_P12_PASSWORD": WRONG}, "VALUATION_SIGNING_P12_PASSWORD"),
    ({"VALUATION_SIGNING_P12": "/srv/valuation/nao-existe/dpc-a1.p12"}, "VALUATION_SIGNING_P12"),
])
def test_a_broken_a1_is_named_and_the_act_goes_out_unsigned(setup: Setup, browser: Any, broken: dict[str, str],
                                                            variable: str) -> None:
    with running_service(setup.db, env=_env(setup, **broken)) as svc:
        log = svc.log.read_text(encoding="utf-8", errors="replace")
        assert f"configuration problem: {variable}:" in log, log[-2000:]
        health = json.loads(svc.get("/saude").read())
        assert [p["variable"] for p in health["configuration"]] == [variable], health["configuration"]

        admin, blocked = _log_in(browser, svc.base, "admin")
        open_from_sidebar(admin, "Tarefas", "jobs")
        named = " ".join(admin.get_by_test_id("stAlert").all_inner_texts())
        assert f"{variable}:" in named, named
        check_offline(blocked)
        admin.context.close()

        page, blocked = _log_in(browser, svc.base, "dpc")
        alerts = " ".join(_issue_statement(page))
        assert "O ato saiu SEM assinatura eletrônica" in alerts and f"{variable}:" in alerts, alerts
        check_offline(blocked)
        page.context.close()
        for shown in (log + svc.log.read_text(encoding="utf-8", errors="replace"), json.dumps(health), named,
                      alerts):
            assert PASSWORD not in shown and WRONG not in shown                # never the password
