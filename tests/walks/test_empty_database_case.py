"""A real office from day one: from an empty database to an issued statement through the pages alone.

The database is made by `db init` (no demo) and its first administrator by `db add-user`; from then on every step is
a person in Debian's Chromium on the real service (uvicorn, `service.asgi`), no SQL and no Python call in between:

1. the administrator reads the first-run steps and creates a DPC headquarters user, the officer of the Capitania dos
   Portos do Rio de Janeiro and the Commission's panel (three Navy members, the president among them, and three
   of the Ministry of Culture);
2. the officer registers a company, its representative's login, a responsible party and a wreck, and corrects the
   wreck's depth (both versions readable, with who, when and why);
3. headquarters registers the exploration contract and its payment terms;
4. the representative imports the inventory;
5. the president opens a round, four members vote and value every item, the president closes it, adopts the
   consensus and publishes the decisions;
6. headquarters records the União's choice and issues the partition statement;
7. the representative downloads it.

A screenshot is taken at every step (`SHOTS`, kept beside the test's files; the session looked at them).
"""
from __future__ import annotations

import io
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import wait_idle
from tests.support.service import cli, running_service
from tests.support.walk import Walk, choose, fill, form, go, open_box, submit, walking

pytestmark = pytest.mark.browser

PASSWORD = "senha-de-teste-forte-2026"
ADMIN = ("admin.cprj", "Administrador do Sistema")
DPC = ("dpc.sede", "CF Laura Menezes (DPC)", "DPC (gestão)", None, None)
OFFICER = ("om.rio", "CT Pedro Siqueira (CPRJ)", "Capitania/Delegacia/Agência", None, "CPRJ")
PANEL = [("cmg.pres", "CMG Rui Barreto (DPHDM)", "Presidente da Comissão", "Marinha (DPHCM)", None),
         ("cf.navy2", "CF Ana Lobo (DPHDM)", "Comissão", "Marinha (DPHCM)", None),
         ("cc.navy3", "CC Caio Dutra (DPHDM)", "Comissão", "Marinha (DPHCM)", None),
         ("minc.um", "Dra. Eva Prado (MinC)", "Comissão", "Ministério da Cultura", None),
         ("minc.dois", "Dr. Igor Sales (MinC)", "Comissão", "Ministério da Cultura", None),
         ("minc.tres", "Dra. Lia Campos (MinC)", "Comissão", "Ministério da Cultura", None)]
VOTERS = ["cmg.pres", "cf.navy2", "minc.um", "minc.dois"]
REP = ("rep.abissal", "Marcos Teixeira (Abissal)", "529.982.247-25")
COMPANY = "Abissal Arqueologia Subaquática Ltda"
CNPJ = "11.222.333/0001-81"
WRECK = ("RJ-2026-001", "Brigue Esperança")
CONTRACT = "DPC-EX-2026/01"
ITEMS = [("BE-001", "Sino de bronze do brigue", "sinos", "bronze", "1", "32.000,00", "10/03/2026", "18,40"),
         ("BE-002", "Garrafa de grés holandesa", "cerâmica", "grés", "1", "820,00", "11/03/2026", "18,10")]
# (item, historical, value) each voter gives
VOTES = {"BE-001": (True, ["120.000,00", "125.000,00", "118.000,00", "122.000,00"]),
         "BE-002": (False, ["1.500,00", "1.450,00", "1.600,00", "1.520,00"])}


def create_user(page: Any, username: str, full_name: str, role: str, body: str | None, office: str | None,
                cpf: str | None = None) -> None:
    f = form(page, "Criar")
    fill(f, "Usuário", username)
    fill(f, "Nome completo", full_name)
    if cpf:
        fill(f, "CPF", cpf)
    choose(f, "Perfil", role)
    choose(f, "Órgão (Comissão)", body or "—")         # the form keeps the previous person's choices
    choose(f, "Capitania (perfil Capitania/Delegacia/Agência)", office or "—")
    fill(f, "Senha inicial", PASSWORD)
    submit(page, "Criar", "Usuário criado.")


def items_csv() -> bytes:
    header = ("Código do item;Descrição;Categoria;Material;Quantidade;Peso (g);Data de recuperação;Profundidade (m);"
              "Lote;Condição;Observações")
    rows = [";".join([*item, "", "bom", ""]) for item in ITEMS]
    return ("\r\n".join([header, *rows]) + "\r\n").encode("cp1252")


@pytest.fixture
def empty_database(tmp_path: Path) -> Path:
    db = tmp_path / "office.duckdb"
    made = cli("db", "init", "--db", str(db))
    assert made.returncode == 0, made.stderr
    admin = cli("db", "add-user", "--db", str(db), "--username", ADMIN[0], "--full-name", ADMIN[1], "--role",
                "admin", "--password-stdin", input=PASSWORD + "\n")
    assert admin.returncode == 0, admin.stderr
    return db


def test_from_an_empty_database_to_an_issued_statement_through_the_pages(empty_database: Path,
                                                                        tmp_path: Path) -> None:
    from playwright.sync_api import expect

    shots = Path(os.environ.get("VALUATION_WALK_SHOTS", tmp_path / "shots"))
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    with running_service(empty_database) as svc, walking(shots, svc.base, password=PASSWORD) as walk:
        _people(walk, expect)
        _registry(walk, expect)
        _contract(walk, expect)
        _inventory(walk)
        _commission(walk, expect)
        _statement(walk, expect)


def _people(walk: Walk, expect: Any) -> None:
    admin = walk.person(ADMIN[0])
    expect(admin.get_by_text("Primeiros passos")).to_be_visible()
    walk.shot(admin, "admin-primeiros-passos")
    go(admin, "Usuários")
    open_box(admin, "Novo usuário")
    for username, name, role, body, office in [DPC, OFFICER, *PANEL]:
        create_user(admin, username, name, role, body, office)
    walk.shot(admin, "admin-usuarios-criados")
    go(admin, "Visão geral")
    expect(admin.get_by_text("Primeiros passos")).to_have_count(0)
    walk.shot(admin, "admin-visao-geral-completa")
    admin.context.close()


def _registry(walk: Walk, expect: Any) -> None:
    om = walk.person(OFFICER[0])
    go(om, "Empresas")
    open_box(om, "Inscrever empresa")
    f = form(om, "Inscrever")
    fill(f, "Razão social", COMPANY)
    fill(f, "CNPJ", CNPJ)
    fill(f, "Endereço", "Rua da Assembleia, 10")
    fill(f, "Cidade", "Rio de Janeiro")
    fill(f, "UF/Estado", "RJ")
    fill(f, "Representante legal", REP[1])
    fill(f, "CPF do representante", REP[2])
    submit(om, "Inscrever", "Empresa inscrita")
    walk.shot(om, "capitania-empresa-inscrita")
    om.reload()
    wait_idle(om)
    open_box(om, "Usuários da empresa")
    f = form(om, "Criar usuário")
    fill(f, "Nome completo do representante", REP[1])
    fill(f, "CPF do representante", REP[2])
    fill(f, "Usuário", REP[0])
    fill(f, "Senha inicial", PASSWORD)
    submit(om, "Criar usuário", "Usuário criado")
    walk.shot(om, "capitania-login-do-representante")

    go(om, "Naufrágios")
    open_box(om, "Responsáveis (cadastrar ou corrigir)")
    f = form(om, "Cadastrar responsável")
    fill(f, "Nome", "Armadora Guanabara S.A.")
    choose(f, "Tipo de documento", "CNPJ")
    fill(f, "Número do documento", "45.723.174/0001-10")
    f.get_by_text("Paradeiro conhecido").click()
    fill(f, "Endereço", "Av. Rio Branco, 1")
    submit(om, "Cadastrar responsável", "Responsável cadastrado")
    open_box(om, "Cadastrar naufrágio")
    f = form(om, "Cadastrar")
    fill(f, "Código", WRECK[0])
    fill(f, "Nome da embarcação", WRECK[1])
    fill(f, "Bandeira", "brasileira")
    choose(f, "Material do casco", "madeira")
    choose(f, "Tipo de sinistro", "naufrágio")
    fill(f, "Ano do sinistro", "1998")
    fill(f, "Mês do sinistro", "6")
    fill(f, "Dia do sinistro", "14")
    fill(f, "Latitude", "22°58,10' S")
    fill(f, "Longitude", "43°09,30' W")
    fill(f, "Profundidade (m)", "18,40")
    choose(f, "Responsável (arts. 3–9)", "Armadora Guanabara")
    fill(f, "Declaração de perda pelo responsável (art. 3 I)", "20/07/1998")
    submit(om, "Cadastrar", "Naufrágio cadastrado")
    walk.shot(om, "capitania-naufragio-cadastrado")
    om.reload()
    wait_idle(om)
    open_box(om, "Corrigir o registro")
    f = form(om, "Salvar correção")
    fill(f, "Profundidade (m)", "19,20")
    fill(f, "Motivo da correção", "Sondagem da lancha da Capitania em 02/12/2026")
    submit(om, "Salvar correção", "Correção registrada: versão 2")
    open_box(om, "Histórico de versões do registro")
    expect(om.get_by_text("Sondagem da lancha da Capitania").first).to_be_visible()
    walk.shot(om, "capitania-naufragio-corrigido-com-historico")
    om.context.close()


def _contract(walk: Walk, expect: Any) -> None:
    dpc = walk.person(DPC[0])
    go(dpc, "Contratos e autorizações")
    open_box(dpc, "Cadastrar contrato ou autorização")
    f = form(dpc, "Cadastrar")
    fill(f, "Código do contrato", CONTRACT)
    choose(f, "Operação", "Exploração")
    choose(f, "Ato", "Contrato")
    fill(f, "Número do ato", "Contrato nº 01/2026-DPC")
    choose(f, "Empresa autorizada", COMPANY)
    choose(f, "Naufrágio", WRECK[0])
    fill(f, "Data do requerimento", "05/01/2026")
    fill(f, "Data da assinatura", "02/02/2026")
    fill(f, "Início das operações (art. 22 I)", "01/03/2026")
    fill(f, "Vencimento", "01/03/2028")
    fill(f, "Caução (R$) (art. 26)", "50.000,00")
    submit(dpc, "Cadastrar", f"Contrato {CONTRACT} cadastrado")
    walk.shot(dpc, "dpc-contrato-cadastrado")
    go(dpc, "Termos do contrato")
    f = form(dpc, "Gravar termos")
    choose(f, "Modalidade (art. 21)", "II — soma")
    fill(f, "Recompensa pelos bens históricos (%)", "40")
    choose(f, "Forma de pagamento da recompensa", "adjudicação de bens com saldo")
    fill(f, "Parcela dos demais bens (%)", "50")
    dpc.get_by_role("button", name="Gravar termos").click()
    metric = dpc.locator('[data-testid="stMetric"]').filter(has_text="Modalidade").first
    expect(metric.locator('[data-testid="stMetricValue"]')).to_have_text("II")
    wait_idle(dpc)
    walk.shot(dpc, "dpc-termos-gravados")
    dpc.context.close()


def _inventory(walk: Walk) -> None:
    rep = walk.person(REP[0])
    go(rep, "Inventário de bens")
    rep.get_by_role("tab", name="Importar").click()
    wait_idle(rep)
    choose(rep, "Contrato vigente", CONTRACT)      # no form chooses a contract for the person
    wait_idle(rep)
    rep.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        {"name": "itens_brigue.csv", "mimeType": "text/csv", "buffer": items_csv()})
    wait_idle(rep)
    submit(rep, "Importar", "2 itens importados")
    walk.shot(rep, "representante-inventario-importado")
    rep.context.close()


def _commission(walk: Walk, expect: Any) -> None:
    pres = walk.person("cmg.pres")
    go(pres, "Avaliação da Comissão")
    pres.get_by_role("button", name="Abrir rodada").click()
    pres.get_by_text("Rodada 1 aberta com 2 itens").first.wait_for()
    wait_idle(pres)
    walk.shot(pres, "presidente-rodada-aberta")
    for i, username in enumerate(VOTERS):
        member = pres if username == "cmg.pres" else walk.person(username)
        if member is not pres:
            go(member, "Avaliação da Comissão")
        for code, (historical, values) in VOTES.items():
            member.get_by_role("heading", name=code).first.wait_for()
            member.get_by_text("Histórico (art. 20 §3)" if historical else "Não histórico", exact=True).first.click()
            fill(member, "Valor", values[i])
            choose(member, "Fonte do valor (art. 21 §2)", "catálogo")
            if historical:
                choose(member, "Significância (voto histórico)", "3")
            member.get_by_role("button", name="Gravar avaliação").click()
            member.get_by_text(f"Avaliação do item {code} gravada.").first.wait_for()
            wait_idle(member)
        if i == 1:
            walk.shot(member, "membro-avaliacoes-gravadas")
        if member is not pres:
            member.context.close()
    pres.reload()
    wait_idle(pres)
    pres.get_by_role("tab", name="Presidência").click()
    wait_idle(pres)
    pres.get_by_text("Confirmo o encerramento").click()
    pres.get_by_role("button", name="Encerrar rodada").click()
    pres.get_by_text("Rodada 1 encerrada").first.wait_for()
    wait_idle(pres)
    pres.get_by_role("tab", name="Presidência").click()
    wait_idle(pres)
    pres.get_by_role("button", name="Adotar o consenso dos itens decididos").click()
    pres.get_by_text("2 decisão(ões) registrada(s)").first.wait_for()
    wait_idle(pres)
    pres.get_by_role("tab", name="Presidência").click()
    wait_idle(pres)
    pres.get_by_role("button", name="Publicar decisões").click()
    pres.get_by_text("Decisões da rodada 1 publicadas").first.wait_for()
    wait_idle(pres)
    walk.shot(pres, "presidente-decisoes-publicadas")
    pres.context.close()


def _statement(walk: Walk, expect: Any) -> None:
    dpc = walk.person(DPC[0])
    go(dpc, "Escolha da União")
    dpc.get_by_role("tab", name="Comparar alternativas").click()
    wait_idle(dpc)
    dpc.get_by_role("button", name="Calcular A e B").click()
    dpc.get_by_role("button", name="Adotar A").wait_for()
    wait_idle(dpc)
    dpc.get_by_role("button", name="Adotar A").click()
    wait_idle(dpc)
    expect(dpc.get_by_text("Nenhuma escolha gravada corresponde")).to_have_count(0)
    walk.shot(dpc, "dpc-escolha-da-uniao")
    go(dpc, "Demonstrativos")
    dpc.get_by_role("button", name="Gerar rascunho").click()
    wait_idle(dpc)
    dpc.get_by_role("button", name="Emitir demonstrativo").click()
    wait_idle(dpc)
    expect(dpc.get_by_text("Emitido").first).to_be_visible()
    walk.shot(dpc, "dpc-demonstrativo-emitido")
    dpc.context.close()

    rep = walk.person(REP[0])
    go(rep, "Demonstrativos")
    with rep.expect_download() as got:
        rep.get_by_role("button", name="Baixar PDF").click()
    pdf = Path(got.value.path()).read_bytes()
    assert pdf.startswith(b"%PDF")
    from pypdf import PdfReader

    text = "\n".join(p.extract_text() or "" for p in PdfReader(io.BytesIO(pdf)).pages)
    assert CONTRACT in text and COMPANY.split()[0] in text
    walk.shot(rep, "representante-demonstrativo")
    rep.context.close()
