"""The demo data set: a realistic, deterministic picture of wrecks, contracts and recovered items.

`seed_demo(store)` fills an empty database (schema 001+) in one transaction and
returns the row counts per table. Same seed (7542, the law's number), same
content on every run: ids come from the sequences of a fresh database in a fixed
order and every timestamp is written explicitly. Today, for the demo, is
`DEMO_TODAY` (30/11/2026): no recovery, delivery or decision lies after it.

What is real and what is not:

- Real: the Navy's offices on the coast (Capitanias, Delegacias, Agências), their
  states and naval districts (Decreto 92.607/1986 as changed since: São Paulo and,
  from 2016, Paraná in the 8º DN), a few municipal holidays of the offices' cities,
  the marine protected areas named in the notes, and the shape of the law
  (Lei 7.542/1986 as amended by Lei 10.166/2000; NORMAM-10).
- Fictional: every vessel, person, company, number and event. Ship names only
  look period-plausible. CPFs and CNPJs are made up but carry valid check digits.
  E-mail addresses use the reserved `.example` domain.

Positions are at sea, a few to tens of nautical miles off the coast of the
office that has jurisdiction (checked in tests/test_demo.py against a hand-made
coastline), with degrees, minutes and hundredths, hemisphere and datum
(NORMAM-10 0403 a); some carry "posição aproximada".

Legal consistency kept by the data (rules.md):

- exploração/remoção only of things in the União's domain (L7542 art. 16), each
  preceded by a survey of the same wreck (art. 16 §1); one exploração went to a
  bidder other than the surveyor who located the wreck (art. 16 §2 I; NORMAM 0303 c 2);
- a survey removes nothing (art. 18 sole paragraph): items belong to
  exploração/remoção/demolição contracts only, recovered within the operations;
- payment terms (arts. 20–21, caps 40 % / 70 % since Lei 10.166/2000) only on signed
  exploração/remoção contracts under art. 16; NULL on surveys (which may carry the
  caução of art. 26), on requests not yet decided, on the owner's own removal
  licence (art. 4) and on demolitions (done on the owner's account or after a sale
  under art. 27, not paid with a share of the things);
- deliveries to the Naval Authority (art. 23) recorded for part of the items only,
  so that the pages show items still held by the explorer as depositary.

Passwords are not here: only their argon2id hashes. The logins live in the README.
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from valuation.core import ids
from valuation.core.errors import ConflictError

if TYPE_CHECKING:
    from valuation.db.store import Store

DEMO_SEED = 7542                      # Lei 7.542/1986
DEMO_TODAY = date(2026, 11, 30)       # the demo's "today": nothing recorded after it
DEMO_ACTOR = "demo"
_SYSTEM_START = date(2010, 3, 1)      # wrecks known before it were registered on this day

# --------------------------------------------------------------------------------------
# Registry numbers: made-up bodies, check digits computed (valid by construction).
# --------------------------------------------------------------------------------------


def _cpf(body9: str) -> str:
    """A CPF with the two mod-11 check digits appended to the 9-digit body."""
    nums = [int(c) for c in body9]
    for weights_from in (10, 11):
        total = sum(n * w for n, w in zip(nums, range(weights_from, 1, -1)))
        rest = total % 11
        nums.append(0 if rest < 2 else 11 - rest)
    return "".join(str(n) for n in nums)


def _cnpj(root8: str, branch: str = "0001") -> str:
    """A CNPJ (root + branch) with its check digits (valuation.core.ids)."""
    body = root8 + branch
    return body + ids.cnpj_check_digits(body)


# --------------------------------------------------------------------------------------
# Offices: Capitanias (CP), Delegacias (DL) and Agências (AG) on the coast.
# (code, name, kind, state, city, naval district)
# --------------------------------------------------------------------------------------

OFFICES: tuple[tuple[str, str, str, str, str, int], ...] = (
    # 1º Distrito Naval (Rio de Janeiro): RJ, ES, MG
    ("CPRJ", "Capitania dos Portos do Rio de Janeiro", "CP", "RJ", "Rio de Janeiro", 1),
    ("CPMACAE", "Capitania dos Portos de Macaé", "CP", "RJ", "Macaé", 1),
    ("CPES", "Capitania dos Portos do Espírito Santo", "CP", "ES", "Vitória", 1),
    ("DELAREIS", "Delegacia da Capitania dos Portos em Angra dos Reis", "DL", "RJ", "Angra dos Reis", 1),
    ("DELCFRIO", "Delegacia da Capitania dos Portos em Cabo Frio", "DL", "RJ", "Cabo Frio", 1),
    ("DELITACURUCA", "Delegacia da Capitania dos Portos em Itacuruçá", "DL", "RJ", "Mangaratiba", 1),
    ("AGPARATY", "Agência da Capitania dos Portos em Paraty", "AG", "RJ", "Paraty", 1),
    ("AGSJBARRA", "Agência da Capitania dos Portos em São João da Barra", "AG", "RJ", "São João da Barra", 1),
    # 2º Distrito Naval (Salvador): BA, SE
    ("CPBA", "Capitania dos Portos da Bahia", "CP", "BA", "Salvador", 2),
    ("CPSE", "Capitania dos Portos de Sergipe", "CP", "SE", "Aracaju", 2),
    ("DELILHEUS", "Delegacia da Capitania dos Portos em Ilhéus", "DL", "BA", "Ilhéus", 2),
    ("DELPSEGURO", "Delegacia da Capitania dos Portos em Porto Seguro", "DL", "BA", "Porto Seguro", 2),
    # 3º Distrito Naval (Natal): AL, PE, PB, RN, CE
    ("CPAL", "Capitania dos Portos de Alagoas", "CP", "AL", "Maceió", 3),
    ("CPPE", "Capitania dos Portos de Pernambuco", "CP", "PE", "Recife", 3),
    ("CPPB", "Capitania dos Portos da Paraíba", "CP", "PB", "João Pessoa", 3),
    ("CPRN", "Capitania dos Portos do Rio Grande do Norte", "CP", "RN", "Natal", 3),
    ("CPCE", "Capitania dos Portos do Ceará", "CP", "CE", "Fortaleza", 3),
    ("AGARACATI", "Agência da Capitania dos Portos em Aracati", "AG", "CE", "Aracati", 3),
    ("AGAREIABRANCA", "Agência da Capitania dos Portos em Areia Branca", "AG", "RN", "Areia Branca", 3),
    ("AGCAMOCIM", "Agência da Capitania dos Portos em Camocim", "AG", "CE", "Camocim", 3),
    # 4º Distrito Naval (Belém): PA, AP, MA, PI
    ("CPAOR", "Capitania dos Portos da Amazônia Oriental", "CP", "PA", "Belém", 4),
    ("CPAP", "Capitania dos Portos do Amapá", "CP", "AP", "Santana", 4),
    ("CPMA", "Capitania dos Portos do Maranhão", "CP", "MA", "São Luís", 4),
    ("CPPI", "Capitania dos Portos do Piauí", "CP", "PI", "Parnaíba", 4),
    ("AGOIAPOQUE", "Agência da Capitania dos Portos no Oiapoque", "AG", "AP", "Oiapoque", 4),
    # 5º Distrito Naval (Rio Grande): SC, RS
    ("CPSC", "Capitania dos Portos de Santa Catarina", "CP", "SC", "Florianópolis", 5),
    ("CPRS", "Capitania dos Portos do Rio Grande do Sul", "CP", "RS", "Rio Grande", 5),
    ("DELITAJAI", "Delegacia da Capitania dos Portos em Itajaí", "DL", "SC", "Itajaí", 5),
    ("DELLAGUNA", "Delegacia da Capitania dos Portos em Laguna", "DL", "SC", "Laguna", 5),
    ("DELSFSUL", "Delegacia da Capitania dos Portos em São Francisco do Sul", "DL", "SC", "São Francisco do Sul", 5),
    ("AGTRAMANDAI", "Agência da Capitania dos Portos em Tramandaí", "AG", "RS", "Tramandaí", 5),
    # 8º Distrito Naval (São Paulo): SP, PR
    ("CPSP", "Capitania dos Portos de São Paulo", "CP", "SP", "Santos", 8),
    ("CPPR", "Capitania dos Portos do Paraná", "CP", "PR", "Paranaguá", 8),
    ("DELSSEBASTIAO", "Delegacia da Capitania dos Portos em São Sebastião", "DL", "SP", "São Sebastião", 8),
)

# Municipal holidays of the offices' cities (state and national ones come from the
# `holidays` package in valuation.core.calendar). (office, month, day, name)
_MUNICIPAL_HOLIDAYS: tuple[tuple[str, int, int, str], ...] = (
    ("CPRJ", 1, 20, "Dia de São Sebastião, padroeiro do Rio de Janeiro"),
    ("CPBA", 12, 8, "Nossa Senhora da Conceição da Praia, padroeira de Salvador"),
    ("CPSP", 1, 26, "Aniversário de Santos"),
    ("CPSP", 9, 8, "Nossa Senhora do Monte Serrat, padroeira de Santos"),
    ("CPPE", 7, 16, "Nossa Senhora do Carmo, padroeira do Recife"),
    ("CPCE", 4, 13, "Aniversário de Fortaleza"),
    ("CPCE", 8, 15, "Nossa Senhora da Assunção, padroeira de Fortaleza"),
    ("CPRN", 11, 21, "Nossa Senhora da Apresentação, padroeira de Natal"),
    ("CPES", 9, 8, "Nossa Senhora da Vitória, padroeira de Vitória"),
    ("CPSE", 3, 17, "Aniversário de Aracaju"),
    ("CPMA", 9, 8, "Aniversário de São Luís"),
    ("CPSC", 3, 23, "Aniversário de Florianópolis"),
    ("CPAOR", 1, 12, "Aniversário de Belém"),
    ("DELAREIS", 1, 6, "Aniversário de Angra dos Reis (Santos Reis)"),
    ("DELITAJAI", 6, 15, "Aniversário de Itajaí"),
)
_HOLIDAY_YEARS = (2025, 2026, 2027)

# --------------------------------------------------------------------------------------
# Responsible parties (owners), Lei 7.542 arts. 3–9.
# key -> (name, doc_kind, doc_number, nationality, whereabouts_known, address, notes)
# --------------------------------------------------------------------------------------

OWNERS: dict[str, tuple[str, str, str | None, str, bool, str | None, str | None]] = {
    "coroa_pt": ("Coroa Portuguesa (sucessão: República Portuguesa)", "estrangeiro", None, "portuguesa", True,
                 "Embaixada de Portugal, SES Av. das Nações Qd. 801 Lt. 2, Brasília-DF",
                 "Intimação por edital com cópia à Embaixada (art. 9 §1)."),
    "armada_es": ("Real Armada Española (sucessão: Reino de Espanha)", "estrangeiro", None, "espanhola", True,
                  "Embaixada da Espanha, SES Av. das Nações Qd. 811 Lt. 44, Brasília-DF",
                  "Intimação por edital com cópia à Embaixada (art. 9 §1)."),
    "marine_fr": ("Marine royale française (sucessão: República Francesa)", "estrangeiro", None, "francesa", True,
                  "Embaixada da França, SES Av. das Nações Qd. 801 Lt. 4, Brasília-DF", None),
    "wic": ("West-Indische Compagnie (companhia extinta em 1791)", "estrangeiro", None, "neerlandesa", False,
            None, "Companhia extinta; sem sucessor conhecido. Intimação por edital (art. 9)."),
    "desconhecido": ("Responsável desconhecido", "desconhecido", None, "desconhecida", False, None,
                     "Responsável não identificado (art. 3 II)."),
    "naviera_plata": ("Compañía Naviera del Plata S.A.", "estrangeiro", None, "argentina", True,
                      "Av. Eduardo Madero 940, Buenos Aires, Argentina", None),
    "trasatlantica_sur": ("Compañía Trasatlántica del Sur S.A.", "estrangeiro", None, "espanhola", False,
                          None, "Companhia dissolvida em 1931; paradeiro dos sucessores desconhecido."),
    "nordsee": ("Nordsee Reederei GmbH", "estrangeiro", None, "alemã", True,
                "Große Elbstraße 145, Hamburgo, Alemanha", None),
    "costeira_atlantica": ("Companhia de Navegação Costeira Atlântica S.A. — massa falida", "CNPJ",
                           _cnpj("33418702"), "brasileira", True,
                           "Rua Visconde de Inhaúma 58, Centro, Rio de Janeiro-RJ (administrador judicial)", None),
    "salgado_paraense": ("Navegação Salgado Paraense Ltda.", "CNPJ", _cnpj("04872351"), "brasileira", False,
                         None, "Empresa baixada na Receita Federal em 1991."),
    "mineracao_itaqui": ("Mineração e Navegação Itaqui S.A.", "CNPJ", _cnpj("06275918"), "brasileira", True,
                         "Av. dos Portugueses 1200, Itaqui, São Luís-MA", None),
    "pesqueira_oiapoque": ("Pesqueira Oiapoque Ltda.", "CNPJ", _cnpj("15934027"), "brasileira", True,
                           "Rua Joaquim Caetano da Silva 310, Oiapoque-AP", None),
    "salineira": ("Salineira Potiguar Navegação Ltda.", "CNPJ", _cnpj("08617243"), "brasileira", True,
                  "Rua Coronel Fausto 85, Centro, Areia Branca-RN", None),
    "offshore": ("Atlântica Apoio Marítimo Offshore S.A.", "CNPJ", _cnpj("27351094"), "brasileira", True,
                 "Av. Prefeito Aristeu Ferreira da Silva 1500, Macaé-RJ", None),
    "rebocadores": ("Rebocadores Baía de Guanabara Ltda.", "CNPJ", _cnpj("33152486"), "brasileira", True,
                    "Rua Sacadura Cabral 180, Saúde, Rio de Janeiro-RJ", None),
    "pesca_capixaba": ("Pesca Capixaba Ltda.", "CNPJ", _cnpj("31480652"), "brasileira", True,
                       "Rua Sete de Setembro 420, Centro, Vitória-ES", None),
    "pescados_itajai": ("Pescados Vale do Itajaí Ltda.", "CNPJ", _cnpj("82906314"), "brasileira", True,
                        "Rua Blumenau 1020, Itajaí-SC", None),
    "sul_atlantico": ("Transportes Marítimos Sul-Atlântico Ltda.", "CNPJ", _cnpj("92513478"), "brasileira", True,
                      "Av. Honório Bicalho 300, Rio Grande-RS", None),
    "holanda_maia": ("Francisco Evandro Holanda Maia", "CPF", _cpf("284517390"), "brasileira", True,
                     "Rua dos Pescadores 77, Mucuripe, Fortaleza-CE", None),
    "fagundes": ("Antônio Carlos Fagundes Pereira", "CPF", _cpf("193846205"), "brasileira", True,
                 "Av. Bartolomeu de Gusmão 160, Santos-SP", None),
}

# --------------------------------------------------------------------------------------
# Explorers: the registration sheet (NORMAM-10 0401, Anexo 4-A).
# key -> dict of organisations columns
# --------------------------------------------------------------------------------------

ORGANISATIONS: dict[str, dict[str, Any]] = {
    "arqueonautica": dict(
        name="Arqueonáutica Brasil Pesquisas Subaquáticas Ltda.", trade_name="Arqueonáutica",
        cnpj=_cnpj("12740583"), nationality="brasileira",
        address="Av. Sete de Setembro 3210, Barra", city="Salvador", state="BA", country="Brasil",
        email="contato@arqueonautica.example", phone="+55 71 3012-4410",
        representative_name="Teresa Cristina Pamplona Vilas-Boas", representative_cpf=_cpf("372019584"),
        experience="Arqueologia subaquática desde 1998; levantamentos com sonar de varredura lateral e "
                   "magnetômetro; escavações em sítios dos séculos XVI–XVIII na Bahia.",
        registered_on=date(2009, 4, 14), status="ativo"),
    "salvamar": dict(
        name="Salvamar Serviços Marítimos e Salvatagem S.A.", trade_name="Salvamar",
        cnpj=_cnpj("41093857"), nationality="brasileira",
        address="Av. Rodrigues Alves 303, Saúde", city="Rio de Janeiro", state="RJ", country="Brasil",
        email="operacoes@salvamar.example", phone="+55 21 2516-3300",
        representative_name="Roberto Guimarães Lacerda", representative_cpf=_cpf("105638274"),
        experience="Salvatagem e remoção de cascos desde 1987; mergulho saturado; guindaste flutuante de 400 t.",
        registered_on=date(2001, 9, 3), status="ativo"),
    "costasul": dict(
        name="Costa Sul Mergulho Técnico e Resgate Ltda.", trade_name="Costa Sul Resgate",
        cnpj=_cnpj("09562318"), nationality="brasileira",
        address="Rua Lauro Müller 455, Centro", city="Itajaí", state="SC", country="Brasil",
        email="resgate@costasul.example", phone="+55 47 3348-2217",
        representative_name="Giovani Schmitt Rebelo", representative_cpf=_cpf("630284917"),
        experience="Mergulho técnico e resgate de carga no litoral sul desde 2006.",
        registered_on=date(2012, 2, 27), status="suspenso"),
    "fuem": dict(
        name="Fundação Universitária de Estudos do Mar — Grupo de Pesquisa em Arqueologia Náutica",
        trade_name="FUEM / Arqueologia Náutica", cnpj=_cnpj("10385726"), nationality="brasileira",
        address="Av. Boa Viagem 5000, Boa Viagem", city="Recife", state="PE", country="Brasil",
        email="arqueologia.nautica@fuem.example", phone="+55 81 3271-8800",
        representative_name="Profa. Dra. Lúcia Helena Cavalcanti Brandão", representative_cpf=_cpf("458203716"),
        experience="Grupo de pesquisa universitário (arqueologia náutica e subaquática) com laboratório de "
                   "conservação de materiais encharcados; projetos em PE, PB e AL desde 2003.",
        registered_on=date(2014, 8, 18), status="ativo"),
    "oceanic": dict(
        name="Oceanic Recovery Partners LLC", trade_name="Oceanic Recovery",
        cnpj=None, nationality="estadunidense",
        address="1450 Harbor Boulevard, Suite 210", city="Fort Lauderdale", state=None,
        country="Estados Unidos", email="brasil@oceanicrecovery.example", phone="+1 954 555 0142",
        representative_name="Michael J. Harrington (procurador no Brasil: Ana Paula Meireles Soares)",
        representative_cpf=_cpf("825471093"),
        experience="Pessoa jurídica estrangeira (art. 16 §5): prospecção com ROV e veículo autônomo; "
                   "recuperação de naufrágios coloniais no Caribe e no Atlântico Sul.",
        registered_on=date(2018, 5, 7), status="ativo"),
    "dnanaval": dict(
        name="Demolições Navais Atlântico Ltda.", trade_name="DNA Naval",
        cnpj=_cnpj("52718340"), nationality="brasileira",
        address="Av. Governador Mário Covas Júnior 1200, Macuco", city="Santos", state="SP", country="Brasil",
        email="engenharia@dnanaval.example", phone="+55 13 3219-5060",
        representative_name="Sérgio Nakamura Bittencourt", representative_cpf=_cpf("247195608"),
        experience="Corte submarino, demolição e remoção de cascos em áreas portuárias desde 1994.",
        registered_on=date(2008, 11, 10), status="ativo"),
    "potiguar": dict(
        name="Potiguar Engenharia Submarina Ltda.", trade_name="Potiguar Submarina",
        cnpj=_cnpj("24681357"), nationality="brasileira",
        address="Rua Chile 120, Ribeira", city="Natal", state="RN", country="Brasil",
        email="contato@potiguarsubmarina.example", phone="+55 84 3211-9075",
        representative_name="Cláudio Medeiros Dantas", representative_cpf=_cpf("591730426"),
        experience="Engenharia submarina, inspeção e remoção no litoral do Nordeste desde 2001.",
        registered_on=date(2016, 3, 21), status="ativo"),
    # Registered for underwater tourism (art. 32 §2; NORMAM 0307), no contract yet.
    # Its CNPJ is of the alphanumeric kind issued since July 2026 (IN RFB 2.229/2024).
    "mar_aberto": dict(
        name="Mar Aberto Turismo Subaquático Ltda.", trade_name="Mar Aberto Mergulho",
        cnpj="A7K2M9Q40001" + ids.cnpj_check_digits("A7K2M9Q40001"), nationality="brasileira",
        address="Rua Frei Caneca 95, Centro", city="Porto Seguro", state="BA", country="Brasil",
        email="reservas@maraberto.example", phone="+55 73 3288-1144",
        representative_name="Juliana Prates Okamoto", representative_cpf=_cpf("716042853"),
        experience="Operadora de mergulho recreativo credenciada; excursões a sítios arqueológicos da União.",
        registered_on=date(2026, 9, 14), status="ativo"),
}

# --------------------------------------------------------------------------------------
# Wrecks. Position: (degrees, "minutes.hundredths", hemisphere) per axis.
# --------------------------------------------------------------------------------------

_W_FIELDS = ("code", "name", "vessel_type", "flag", "hull_material", "year", "month", "day", "precision",
             "casualty_type", "lat", "lon", "datum", "approx", "depth", "office", "situation",
             "visible_high_tide", "visible_low_tide", "signalling", "protected", "owner",
             "declared_lost", "licence_requested", "court_known_on", "notes")

_D = date
WRECKS: tuple[tuple[Any, ...], ...] = (
    # --- 4º DN -------------------------------------------------------------------------
    ("AP-001", "Lagosteiro Estrela do Norte", "pesqueiro (lagosteiro)", "Brasil", "aço", 2021, 6, 17, "day",
     "água aberta", (3, "10.35", "N"), (50, "04.80", "W"), "WGS-84", False, "42.00", "AGOIAPOQUE",
     "soçobrada", False, False, None, False, "pesqueira_oiapoque", None, None, _D(2021, 6, 18),
     "Abriu água com mar grosso na plataforma do Amapá; tripulação resgatada."),
    ("PA-001", "Brigue Flor do Pará", "brigue", "Brasil (Império)", "madeira", 1857, 4, None, "month",
     "fortuna do mar", (0, "12.40", "S"), (47, "24.75", "W"), "SAD-69", True, "18.00", "CPAOR",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Perdido em temporal a caminho de São Luís, segundo a imprensa de Belém."),
    ("PA-002", "N/M Marajoara", "navio de carga", "Brasil", "aço", 1979, 10, 22, "day",
     "incêndio", (0, "19.80", "N"), (47, "49.60", "W"), "WGS-84", False, "35.00", "CPAOR",
     "soçobrada", False, False, None, False, "salgado_paraense", None, None, _D(1979, 10, 23), None),
    ("MA-001", "Nau Nossa Senhora do Livramento", "nau", "Portugal", "madeira", 1758, None, None, "year",
     "encalhe", (0, "51.62", "S"), (44, "15.84", "W"), "SAD-69", True, "6.00", "CPMA",
     "encalhada", False, True, None, True, "coroa_pt", None, None, None,
     "Parque Estadual Marinho do Parcel de Manuel Luís. Restos do casco e âncoras aparentes na baixa-mar."),
    ("MA-002", "N/M Itaqui Pioneiro", "graneleiro", "Panamá", "aço", 1998, 2, 11, "day",
     "varação", (2, "05.30", "S"), (44, "00.45", "W"), "WGS-84", False, "8.00", "CPMA",
     "encalhada", True, True,
     "Boia luminosa de perigo isolado, Fl(2) 10s, em 02°05,10'S 044°00,30'W", False, "mineracao_itaqui",
     _D(1999, 6, 30), None, _D(1998, 2, 11),
     "Varado intencionalmente no Banco da Coroa Grande após avaria no casco."),
    ("PI-001", "Barcaça Delta do Parnaíba", "barcaça", "Brasil", "madeira", 1934, 3, None, "month",
     "naufrágio", (2, "35.20", "S"), (41, "35.40", "W"), "SAD-69", True, "14.00", "CPPI",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None, None),
    # --- 3º DN -------------------------------------------------------------------------
    ("CE-001", "Palhabote Camocinense", "palhabote", "Brasil", "madeira", 1911, None, None, "year",
     "arribada", (2, "36.15", "S"), (40, "45.30", "W"), "SAD-69", True, "16.00", "AGCAMOCIM",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Arribou com avaria no leme e afundou fundeado à espera de reboque."),
    ("CE-002", "Lagosteiro Mar de Iracema", "pesqueiro (lagosteiro)", "Brasil", "madeira", 2024, 8, 19, "day",
     "incêndio", (3, "29.85", "S"), (38, "19.60", "W"), "SIRGAS 2000", False, "28.00", "CPCE",
     "soçobrada", False, False, None, False, "holanda_maia", None, None, _D(2024, 8, 20),
     "Inquérito sobre o incêndio remetido ao Tribunal Marítimo."),
    ("CE-003", "Vapor Jaguaribe", "vapor", "Brasil (Império)", "ferro", 1889, 7, 2, "day",
     "água aberta", (4, "15.40", "S"), (37, "24.90", "W"), "SAD-69", False, "22.00", "AGARACATI",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None, None),
    ("RN-001", "Barcaça Salineira III", "barcaça graneleira", "Brasil", "aço", 2020, 7, 9, "day",
     "naufrágio", (4, "40.25", "S"), (37, "00.35", "W"), "WGS-84", False, "12.00", "AGAREIABRANCA",
     "soçobrada", False, False, "Boia cardinal sul, Q(6)+LFl 15s, a 0,2 milha ao S do casco", False,
     "salineira", _D(2021, 2, 1), None, _D(2020, 7, 9),
     "Obstáculo à rota das barcaças do terminal salineiro."),
    ("RN-002", "Fluyt Zeeuwsche Leeuw", "fluyt (urca)", "Províncias Unidas dos Países Baixos", "madeira",
     1640, None, None, "year", "colisão", (5, "00.20", "S"), (35, "15.30", "W"), "SAD-69", True, "18.00",
     "CPRN", "soçobrada", False, False, None, False, "wic", None, None, None,
     "Bateu em cabeço de recife ao largo de Touros durante o domínio holandês."),
    ("RN-003", "Naufrágio não identificado do Atol das Rocas", "veleiro (não identificado)", None, "madeira",
     1850, None, None, "century", "encalhe", (3, "51.45", "S"), (33, "49.20", "W"), "WGS-84", True, "3.00",
     "CPRN", "encalhada", False, True, None, True, "desconhecido", None, None, None,
     "Reserva Biológica do Atol das Rocas. Cavername e âncoras visíveis na baixa-mar; datação pelo tipo de "
     "cavilhame (século XIX)."),
    ("PB-001", "Vapor Cabedelo", "vapor", "Brasil", "ferro", 1902, 11, 5, "day",
     "explosão", (7, "05.10", "S"), (34, "35.20", "W"), "SAD-69", False, "24.00", "CPPB",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Explosão de caldeira na travessia para o Recife."),
    ("PE-001", "Naufrágio do Recife de Fora (século XVII)", "navio mercante", "Províncias Unidas (provável)",
     "madeira", 1645, None, None, "century", "naufrágio", (8, "05.20", "S"), (34, "41.80", "W"), "SAD-69",
     True, "20.00", "CPPE", "soçobrada", False, False, None, False, "wic", None, None, None,
     "Cerâmica e cachimbos holandeses indicam o período do Brasil holandês (1630–1654)."),
    ("PE-002", "Cargueiro Guararapes", "navio de carga", "Brasil", "aço", 1953, 5, 30, "day",
     "abalroação", (8, "25.15", "S"), (34, "46.90", "W"), "WGS-84", False, "32.00", "CPPE",
     "soçobrada", False, False, None, False, "costeira_atlantica", None, None, _D(1953, 5, 30),
     "Abalroado por petroleiro ao largo do Cabo de Santo Agostinho; carga de cobre e louça."),
    ("AL-001", "Sumaca Bom Jesus dos Navegantes", "sumaca", "Portugal (Estado do Brasil)", "madeira",
     1789, 9, 12, "day", "fortuna do mar", (9, "45.30", "S"), (35, "30.10", "W"), "SAD-69", False, "19.00",
     "CPAL", "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Perda registrada no livro da Alfândega de Maceió."),
    # --- 2º DN -------------------------------------------------------------------------
    ("SE-001", "Vapor Itaporanga", "paquete (passageiros e carga)", "Brasil", "aço", 1942, 8, 16, "day",
     "explosão", (11, "05.20", "S"), (36, "50.40", "W"), "WGS-84", True, "38.00", "CPSE",
     "soçobrada", False, False, None, False, "costeira_atlantica", None, None, _D(1942, 8, 17),
     "Torpedeado na II Guerra Mundial; sítio de memória com possíveis restos humanos: sem autorização de "
     "exploração."),
    ("BA-001", "Galeão Santo Antônio de Pádua", "galeão", "Portugal", "madeira", 1686, 5, 5, "day",
     "naufrágio", (13, "06.42", "S"), (38, "30.18", "W"), "SAD-69", False, "28.00", "CPBA",
     "soçobrada", False, False,
     "Boia especial amarela (sítio arqueológico), Fl Y 4s, em 13°06,40'S 038°30,20'W", False, "coroa_pt",
     None, None, _D(2017, 9, 12),
     "Afundou à saída da barra de Salvador com carga de açúcar, tabaco e moedas."),
    ("BA-002", "Navio Hollandia", "navio de guerra", "Províncias Unidas dos Países Baixos", "madeira",
     1625, None, None, "year", "incêndio", (12, "58.10", "S"), (38, "15.30", "W"), "SAD-69", True, "26.00",
     "CPBA", "soçobrada", False, False, None, False, "wic", None, None, None,
     "Incendiado durante a retomada de Salvador pela armada luso-espanhola (1625)."),
    ("BA-003", "Vapor Paraguaçu", "vapor", "Brasil (Império)", "ferro", 1871, 1, 21, "day",
     "encalhe", (13, "25.05", "S"), (38, "44.80", "W"), "SAD-69", False, "17.00", "CPBA",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Encalhou no banco ao largo de Morro de São Paulo e afundou ao ser desencalhado."),
    ("BA-004", "Caravela São Jorge", "caravela", "Portugal", "madeira", 1550, None, None, "century",
     "naufrágio", (14, "50.20", "S"), (38, "50.35", "W"), "SAD-69", True, "21.00", "DELILHEUS",
     "soçobrada", False, False, None, False, "coroa_pt", None, None, None,
     "Citada em crônica da Capitania de São Jorge dos Ilhéus (século XVI)."),
    ("BA-005", "Nau Espírito Santo", "nau", "Portugal", "madeira", 1563, None, None, "year",
     "encalhe", (16, "30.10", "S"), (38, "52.25", "W"), "SAD-69", False, "15.00", "DELPSEGURO",
     "soçobrada", False, False, None, False, "coroa_pt", None, None, _D(2012, 11, 5),
     "Tocou nos recifes ao largo de Porto Seguro e afundou em seguida."),
    ("BA-006", "Restos de embarcação ibérica (c. 1500)", "embarcação ibérica (não identificada)", None,
     "madeira", 1500, None, None, "year", "naufrágio", (16, "55.10", "S"), (38, "55.40", "W"), "SAD-69",
     True, "22.00", "DELPSEGURO", "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Datação c. 1500 por tipologia e C-14: ano 1500 é do século XV, logo o art. 32 §1 não se aplica "
     "(aplica-se o art. 32 caput)."),
    ("BA-007", "Barca Lady Eleanor", "barca", "Reino Unido", "ferro", 1877, 3, 9, "day",
     "encalhe", (17, "51.20", "S"), (38, "51.10", "W"), "WGS-84", False, "12.00", "DELPSEGURO",
     "soçobrada", False, True, None, True, "desconhecido", None, None, None,
     "Parque Nacional Marinho dos Abrolhos. Popa aparente na baixa-mar de sizígia."),
    # --- 1º DN -------------------------------------------------------------------------
    ("ES-001", "Galera Princesa do Mar", "galera", "Portugal", "madeira", 1796, 10, None, "month",
     "fortuna do mar", (19, "40.15", "S"), (39, "35.20", "W"), "SAD-69", True, "20.00", "CPES",
     "soçobrada", False, False, None, False, "desconhecido", None, None, _D(2023, 10, 2), None),
    ("ES-002", "Pesqueiro Netuno II", "pesqueiro", "Brasil", "aço", 2021, 5, 4, "day",
     "água aberta", (20, "20.10", "S"), (40, "05.30", "W"), "SIRGAS 2000", False, "45.00", "CPES",
     "soçobrada", False, False, "Boia cardinal leste, Q(3) 10s, a 0,1 milha a E do casco", False,
     "pesca_capixaba", None, None, _D(2021, 5, 4),
     "Remoção determinada pela Autoridade Naval (art. 5), interrompida por protesto judicial."),
    ("ES-003", "Vapor Bahía Blanca", "vapor", "Argentina", "aço", 1908, 12, 14, "day",
     "abalroação", (20, "45.20", "S"), (40, "20.10", "W"), "SAD-69", False, "38.00", "CPES",
     "soçobrada", False, False, None, False, "naviera_plata", None, _D(1987, 6, 15), None,
     "O armador requereu autorização em 15/06/1987, dentro do prazo do art. 32 caput."),
    ("RJ-001", "Brigue-escuna Campista", "brigue-escuna", "Brasil (Império)", "madeira", 1866, None, None,
     "year", "encalhe", (22, "05.30", "S"), (40, "50.15", "W"), "SAD-69", True, "4.00", "AGSJBARRA",
     "encalhada", False, True, None, False, "desconhecido", None, None, None,
     "Encalhado nos baixios do Cabo de São Tomé; cavername aparente na baixa-mar."),
    ("RJ-002", "AHTS Atlântica Aurora", "rebocador de manuseio de âncoras (AHTS)", "Brasil", "aço",
     2022, 3, 14, "day", "água aberta", (22, "30.20", "S"), (41, "35.10", "W"), "WGS-84", False, "62.00",
     "CPMACAE", "soçobrada", False, False, "Boia cardinal oeste, Q(9) 15s, a 0,2 milha a W do casco",
     False, "offshore", None, _D(2023, 5, 10), _D(2022, 3, 14),
     "Remoção parcial (óleo e equipamentos) feita pelo responsável sob licença."),
    ("RJ-003", "Navire Saint-Malo", "fragata", "França", "madeira", 1711, None, None, "year",
     "naufrágio", (23, "05.15", "S"), (41, "55.30", "W"), "SAD-69", True, "48.00", "DELCFRIO",
     "soçobrada", False, False, None, False, "marine_fr", None, None, None,
     "Da esquadra de Duguay-Trouin (1711), perdida no regresso ao largo de Cabo Frio."),
    ("RJ-004", "Cargueiro Tijuca", "navio de carga", "Brasil", "aço", 1961, 7, 23, "day",
     "abalroação", (23, "08.05", "S"), (43, "12.20", "W"), "WGS-84", False, "34.00", "CPRJ",
     "soçobrada", False, False, None, False, "costeira_atlantica", None, None, _D(1961, 7, 23),
     "Carga de lingotes de cobre e estanho; removida em 2017–2019."),
    ("RJ-005", "Rebocador Guanabara IV", "rebocador", "Brasil", "aço", 1966, None, None, "year",
     "naufrágio", (23, "07.10", "S"), (43, "22.15", "W"), "WGS-84", False, "28.00", "CPRJ",
     "soçobrada", False, False, None, False, "rebocadores", None, None, None,
     "Só o ano é conhecido: 1966 cruza 29/09/1966 (art. 32 caput) e o domínio depende da data exata."),
    ("RJ-006", "Vapor Cidade de Angra", "vapor", "Brasil", "aço", 1923, 8, 17, "day",
     "explosão", (23, "18.10", "S"), (44, "15.20", "W"), "SAD-69", False, "42.00", "DELAREIS",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None, None),
    ("RJ-007", "Sumaca Nossa Senhora dos Remédios", "sumaca", "Portugal (Estado do Brasil)", "madeira",
     1727, 3, None, "month", "naufrágio", (23, "27.10", "S"), (44, "33.25", "W"), "SAD-69", True, "38.00",
     "AGPARATY", "soçobrada", False, False, None, False, "coroa_pt", None, None, None,
     "Levava ouro das Minas de Paraty para o Rio de Janeiro (caminho velho)."),
    # --- 8º DN -------------------------------------------------------------------------
    ("SP-001", "Vapor Infanta Cristina", "paquete", "Espanha", "aço", 1916, 3, 5, "day",
     "colisão", (23, "59.10", "S"), (45, "05.20", "W"), "WGS-84", True, "45.00", "DELSSEBASTIAO",
     "soçobrada", False, False, None, False, "trasatlantica_sur", None, None, None,
     "Bateu em laje submersa com mau tempo ao largo de Ilhabela."),
    ("SP-002", "Iate Maresia", "iate", "Brasil", "fibra", 2019, 1, 12, "day",
     "incêndio", (23, "35.10", "S"), (44, "55.20", "W"), "WGS-84", False, "30.00", "DELSSEBASTIAO",
     "soçobrada", False, False, None, False, "fagundes", _D(2019, 4, 1), None, _D(2019, 1, 12), None),
    ("SP-003", "N/M Santista", "navio de carga", "Brasil", "aço", 1958, 11, 2, "day",
     "abalroação", (24, "10.15", "S"), (46, "15.10", "W"), "WGS-84", False, "27.00", "CPSP",
     "soçobrada", False, False, "Boia cardinal sul, Q(6)+LFl 15s, a 0,1 milha ao S do casco", False,
     "desconhecido", None, None, _D(1958, 11, 2),
     "Obstáculo na área de fundeio da barra de Santos."),
    ("SP-004", "Vapor Itaipu", "vapor", "Brasil", "ferro", 1909, 6, 19, "day",
     "colisão", (24, "21.90", "S"), (46, "13.80", "W"), "SAD-69", False, "22.00", "CPSP",
     "soçobrada", False, False, None, True, "desconhecido", None, None, None,
     "Parque Estadual Marinho da Laje de Santos."),
    ("SP-005", "Nao Santiago de Gibraleón", "nau", "Espanha", "madeira", 1541, None, None, "year",
     "fortuna do mar", (25, "12.20", "S"), (47, "42.10", "W"), "SAD-69", True, "24.00", "CPSP",
     "soçobrada", False, False, None, False, "armada_es", None, None, None,
     "Atribuída a uma das naus da expedição de 1541 ao Rio da Prata."),
    ("PR-001", "Graneleiro Iguaçu", "graneleiro", "Alemanha", "aço", 1987, 4, 12, "day",
     "água aberta", (25, "40.15", "S"), (48, "08.20", "W"), "WGS-84", False, "18.00", "CPPR",
     "soçobrada", False, False, None, False, "nordsee", None, None, _D(1987, 4, 12),
     "Demolido em 2012–2014 por obstruir o canal de acesso a Paranaguá."),
    ("PR-002", "Escuna Paranaguense", "escuna", "Brasil (Império)", "madeira", 1842, None, None, "year",
     "fortuna do mar", (25, "46.05", "S"), (48, "17.10", "W"), "SAD-69", True, "19.00", "CPPR",
     "soçobrada", False, False, None, True, "desconhecido", None, None, None,
     "Parque Nacional Marinho das Ilhas dos Currais."),
    # --- 5º DN -------------------------------------------------------------------------
    ("SC-001", "Vapor Babitonga", "vapor", "Brasil (Império)", "ferro", 1894, 9, 2, "day",
     "água aberta", (26, "20.10", "S"), (48, "20.15", "W"), "SAD-69", False, "24.00", "DELSFSUL",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None, None),
    ("SC-002", "Vapor Blumenau", "vapor (imigrantes)", "Império Alemão", "ferro", 1887, 5, 14, "day",
     "naufrágio", (26, "55.20", "S"), (48, "25.05", "W"), "SAD-69", False, "26.00", "DELITAJAI",
     "soçobrada", False, False, None, False, "desconhecido", None, None, _D(2015, 10, 1), None),
    ("SC-003", "Brigue Albion", "brigue", "Reino Unido", "madeira", 1838, 7, None, "month",
     "naufrágio", (27, "19.85", "S"), (48, "16.90", "W"), "SAD-69", True, "30.00", "CPSC",
     "soçobrada", False, False, None, True, "desconhecido", None, None, None,
     "Reserva Biológica Marinha do Arvoredo."),
    ("SC-004", "Navío Nuestra Señora de Begoña", "navio de linha", "Espanha", "madeira", 1777, 2, None,
     "month", "naufrágio", (27, "40.10", "S"), (48, "15.20", "W"), "SAD-69", False, "38.00", "CPSC",
     "soçobrada", False, False, None, False, "armada_es", None, None, _D(2018, 8, 20),
     "Da expedição de Cevallos que tomou a Ilha de Santa Catarina em 1777."),
    ("SC-005", "Brigue-escuna Lagunense", "brigue-escuna", "República Rio-Grandense", "madeira", 1839, 11,
     15, "day", "incêndio", (28, "35.10", "S"), (48, "35.20", "W"), "SAD-69", True, "25.00", "DELLAGUNA",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Incendiado no combate naval de Laguna (Revolução Farroupilha)."),
    ("RS-001", "Arrasteiro Vale do Itajaí", "pesqueiro (arrasteiro)", "Brasil", "aço", 2018, 6, 22, "day",
     "fortuna do mar", (30, "05.10", "S"), (49, "55.20", "W"), "WGS-84", False, "24.00", "AGTRAMANDAI",
     "soçobrada", False, False, None, False, "pescados_itajai", _D(2019, 3, 12), None, _D(2018, 6, 22),
     "Afundou em ressaca ao largo de Tramandaí."),
    ("RS-002", "Contêineres alijados do N/M Porto Alegre Express", "carga alijada (12 contêineres)",
     "Brasil", "aço", 2023, 7, 28, "day", "alijamento", (32, "15.10", "S"), (51, "50.20", "W"),
     "SIRGAS 2000", True, "20.00", "CPRS", "soçobrada", False, False, None, False, "sul_atlantico",
     None, None, _D(2023, 7, 29), "Alijados para salvar o navio em ciclone extratropical."),
    ("RS-003", "Vapor Montevideano", "vapor", "Uruguai", "ferro", 1896, 8, 3, "day",
     "encalhe", (33, "20.10", "S"), (52, "35.15", "W"), "SAD-69", True, "16.00", "CPRS",
     "soçobrada", False, False, None, False, "desconhecido", None, None, None,
     "Costa do Albardão."),
)

# (wreck, ground, starts_on, ends_on, reason) — art. 6 sole paragraph and, as policy, the Maritime Court.
# ends_on None: still running, no end fixed yet (the five years are stopped; migration 008).
SUSPENSIONS: tuple[tuple[str, str, date, date | None, str], ...] = (
    ("RJ-002", "I", _D(2023, 8, 1), _D(2024, 2, 15),
     "O responsável iniciou a remoção sob licença (art. 6 parágrafo único I)."),
    ("ES-002", "II", _D(2022, 1, 10), _D(2022, 9, 30),
     "A Autoridade Naval determinou a remoção (art. 5; art. 6 parágrafo único II)."),
    ("ES-002", "III", _D(2022, 6, 1), _D(2022, 12, 20),
     "Remoção interrompida por protesto judicial (art. 6 parágrafo único III)."),
    ("CE-002", "tribunal", _D(2024, 9, 1), _D(2025, 10, 15),
     "Processo no Tribunal Marítimo sem decisão (Lei 2.180 art. 20)."),
    ("RS-002", "tribunal", _D(2023, 8, 10), _D(2024, 11, 28),
     "Processo no Tribunal Marítimo sem decisão (Lei 2.180 art. 20)."),
    ("AP-001", "II", _D(2025, 9, 15), None,
     "A Autoridade Naval determinou a remoção (art. 5); prazo de término ainda não fixado "
     "(art. 6 parágrafo único II)."),
)

# --------------------------------------------------------------------------------------
# Contracts. Dates: requested, signed, starts, expires, work ended, cancelled.
# --------------------------------------------------------------------------------------

_C_FIELDS = ("code", "kind", "act", "act_number", "org", "wreck", "office", "requested_on", "signed_on",
             "starts_on", "expires_on", "work_ended_on", "status", "cancelled_on", "cancel_reason",
             "surveyor", "modality", "historical_share", "historical_payment", "other_share",
             "fixed_amount", "salvage_award", "value_fixed", "caution_amount")


def _c(code: str, kind: str, act: str, act_number: str | None, org: str, wreck: str, office: str,
       dates: tuple[date | None, ...], status: str, *, cancelled: tuple[date, str] | None = None,
       surveyor: str | None = None, modality: str | None = None, hist: str | None = None,
       hist_pay: str | None = None, other: str | None = None, fixed: str | None = None,
       award: str | None = None, value_fixed: str | None = None, caution: str | None = None) -> tuple[Any, ...]:
    requested, signed, starts, expires, ended = dates

    def dec(v: str | None) -> Decimal | None:
        return None if v is None else Decimal(v)

    return (code, kind, act, act_number, org, wreck, office, requested, signed, starts, expires, ended,
            status, cancelled[0] if cancelled else None, cancelled[1] if cancelled else None, surveyor,
            modality, dec(hist), hist_pay, dec(other), dec(fixed), dec(award), value_fixed, dec(caution))


CONTRACTS: tuple[tuple[Any, ...], ...] = (
    # Galeão Santo Antônio de Pádua (BA-001): located by Arqueonáutica, exploration won by Salvamar.
    _c("CPBA-PQ-2018/04", "pesquisa", "autorização", "Autorização nº 004/2018-CPBA", "arqueonautica",
       "BA-001", "CPBA", (_D(2017, 9, 12), _D(2018, 2, 5), _D(2018, 3, 1), _D(2019, 2, 28), _D(2019, 1, 25)),
       "concluído", caution="60000.00"),
    _c("DPC-EX-2021/02", "exploração", "contrato", "Contrato nº 002/2021-DPC", "salvamar", "BA-001", "CPBA",
       (_D(2020, 6, 15), _D(2021, 3, 22), _D(2021, 5, 3), _D(2027, 5, 2), None), "vigente",
       surveyor="arqueonautica", modality="III", hist="0.3000", hist_pay="adjudication_with_cash_balance",
       other="0.5500", value_fixed="depois"),
    # Nau Espírito Santo (BA-005): Arqueonáutica surveyed and explored.
    _c("DELPSEGURO-PQ-2013/01", "pesquisa", "autorização", "Autorização nº 001/2013-DelPSeguro",
       "arqueonautica", "BA-005", "DELPSEGURO",
       (_D(2012, 11, 5), _D(2013, 3, 11), _D(2013, 4, 1), _D(2014, 3, 31), _D(2014, 2, 20)), "concluído",
       caution="40000.00"),
    _c("DPC-EX-2015/01", "exploração", "contrato", "Contrato nº 001/2015-DPC", "arqueonautica", "BA-005",
       "DELPSEGURO", (_D(2014, 5, 19), _D(2015, 1, 26), _D(2015, 3, 2), _D(2019, 3, 1), _D(2018, 12, 14)),
       "concluído", surveyor="arqueonautica", modality="II", hist="0.4000", hist_pay="adjudication",
       other="0.6500", value_fixed="depois"),
    # Navío Nuestra Señora de Begoña (SC-004): foreign explorer (art. 16 §5), exploration suspended.
    _c("CPSC-PQ-2019/02", "pesquisa", "autorização", "Autorização nº 002/2019-CPSC", "oceanic", "SC-004",
       "CPSC", (_D(2018, 8, 20), _D(2019, 1, 14), _D(2019, 2, 1), _D(2020, 1, 31), _D(2019, 12, 10)),
       "concluído", caution="120000.00"),
    _c("DPC-EX-2021/05", "exploração", "contrato", "Contrato nº 005/2021-DPC", "oceanic", "SC-004", "CPSC",
       (_D(2020, 3, 2), _D(2021, 9, 13), _D(2021, 11, 1), _D(2027, 10, 31), None), "suspenso",
       surveyor="oceanic", modality="III", hist="0.2500", hist_pay="adjudication", other="0.5000",
       value_fixed="antes"),
    # Vapor Blumenau (SC-002): exploration cancelled under art. 22 III after some recovery.
    _c("DELITAJAI-PQ-2016/01", "pesquisa", "autorização", "Autorização nº 001/2016-DelItajaí", "costasul",
       "SC-002", "DELITAJAI",
       (_D(2015, 10, 1), _D(2016, 2, 15), _D(2016, 3, 1), _D(2017, 2, 28), _D(2017, 1, 20)), "concluído",
       caution="30000.00"),
    _c("DPC-EX-2018/03", "exploração", "contrato", "Contrato nº 003/2018-DPC", "costasul", "SC-002",
       "DELITAJAI", (_D(2017, 5, 8), _D(2018, 4, 9), _D(2018, 5, 2), _D(2022, 5, 1), None), "cancelado",
       cancelled=(_D(2020, 10, 14), "Art. 22 III: emprego de draga de sucção não autorizada, com dano a "
                                    "bens de interesse histórico (NORMAM-10 0305)."),
       surveyor="costasul", modality="II", hist="0.2000", hist_pay="cash", other="0.4500",
       value_fixed="depois"),
    # Cargueiro Tijuca (RJ-004): cargo removal paid by salvage award (modality IV).
    _c("CPRJ-PQ-2015/03", "pesquisa", "autorização", "Autorização nº 003/2015-CPRJ", "salvamar", "RJ-004",
       "CPRJ", (_D(2014, 8, 11), _D(2015, 2, 2), _D(2015, 3, 2), _D(2016, 3, 1), _D(2015, 12, 18)),
       "concluído", caution="80000.00"),
    _c("DPC-RM-2016/04", "remoção", "contrato", "Contrato nº 004/2016-DPC", "salvamar", "RJ-004", "CPRJ",
       (_D(2016, 3, 14), _D(2016, 11, 7), _D(2017, 1, 9), _D(2019, 12, 31), _D(2019, 8, 30)), "concluído",
       surveyor="salvamar", modality="IV", award="1845000.00"),
    # AHTS Atlântica Aurora (RJ-002): the owner's own removal licence (art. 4), no payment terms.
    _c("CPMACAE-LR-2023/11", "remoção", "licença", "Licença nº 011/2023-CPMacaé", "salvamar", "RJ-002",
       "CPMACAE", (_D(2023, 5, 10), _D(2023, 7, 17), _D(2023, 8, 1), _D(2024, 7, 31), _D(2024, 2, 15)),
       "concluído"),
    # Galera Princesa do Mar (ES-001): surveyed, exploration requested.
    _c("CPES-PQ-2024/02", "pesquisa", "autorização", "Autorização nº 002/2024-CPES", "salvamar", "ES-001",
       "CPES", (_D(2023, 10, 2), _D(2024, 2, 19), _D(2024, 3, 4), _D(2025, 3, 3), _D(2025, 1, 31)),
       "concluído", caution="50000.00"),
    _c("CPES-EX-2026/01", "exploração", "contrato", None, "salvamar", "ES-001", "CPES",
       (_D(2026, 9, 21), None, None, None, None), "solicitado", surveyor="salvamar"),
    # N/M Santista (SP-003): removal for a fixed sum (modality I).
    _c("CPSP-PQ-2021/06", "pesquisa", "autorização", "Autorização nº 006/2021-CPSP", "dnanaval", "SP-003",
       "CPSP", (_D(2020, 11, 16), _D(2021, 3, 8), _D(2021, 4, 5), _D(2022, 4, 4), _D(2021, 12, 17)),
       "concluído", caution="35000.00"),
    _c("DPC-RM-2023/01", "remoção", "contrato", "Contrato nº 001/2023-DPC", "dnanaval", "SP-003", "CPSP",
       (_D(2022, 3, 21), _D(2023, 2, 6), _D(2023, 3, 1), _D(2027, 2, 28), None), "vigente",
       surveyor="dnanaval", modality="I", fixed="2400000.00"),
    # Graneleiro Iguaçu (PR-001): demolition after sale under art. 27.
    _c("DPC-DM-2012/07", "demolição", "portaria", "Portaria nº 112/DPC/2012", "dnanaval", "PR-001", "CPPR",
       (_D(2011, 9, 5), _D(2012, 3, 19), _D(2012, 4, 2), _D(2014, 4, 1), _D(2014, 1, 31)), "concluído"),
    # Cargueiro Guararapes (PE-002): cargo removal, modality II, expired unfinished.
    _c("CPPE-PQ-2017/05", "pesquisa", "autorização", "Autorização nº 005/2017-CPPE", "potiguar", "PE-002",
       "CPPE", (_D(2017, 6, 12), _D(2017, 10, 2), _D(2017, 11, 6), _D(2018, 11, 5), _D(2018, 8, 31)),
       "concluído", caution="25000.00"),
    _c("DPC-RM-2019/02", "remoção", "contrato", "Contrato nº 002/2019-DPC", "potiguar", "PE-002", "CPPE",
       (_D(2018, 10, 15), _D(2019, 6, 3), _D(2019, 7, 1), _D(2024, 6, 30), None), "expirado",
       surveyor="potiguar", modality="II", other="0.3500", value_fixed="depois"),
    # Barcaça Salineira III (RN-001): demolition of a hazard, União's since the declaration of loss.
    _c("DPC-DM-2025/03", "demolição", "portaria", "Portaria nº 87/DPC/2025", "potiguar", "RN-001",
       "AGAREIABRANCA", (_D(2024, 10, 7), _D(2025, 4, 14), _D(2025, 5, 5), _D(2027, 5, 4), None), "vigente"),
    # University research group.
    _c("CPAL-PQ-2015/01", "pesquisa", "autorização", "Autorização nº 001/2015-CPAL", "fuem", "AL-001",
       "CPAL", (_D(2015, 3, 2), _D(2015, 8, 3), _D(2015, 9, 1), _D(2016, 8, 31), _D(2016, 6, 30)),
       "concluído"),
    _c("DPC-EX-2017/02", "exploração", "autorização", "Autorização nº 002/2017-DPC", "fuem", "AL-001",
       "CPAL", (_D(2016, 9, 12), _D(2017, 6, 5), _D(2017, 8, 1), _D(2021, 7, 31), _D(2021, 5, 28)),
       "concluído", surveyor="fuem", modality="I", fixed="480000.00", hist="0.1000", hist_pay="cash"),
    _c("CPPE-PQ-2025/03", "pesquisa", "autorização", "Autorização nº 003/2025-CPPE", "fuem", "PE-001",
       "CPPE", (_D(2025, 2, 10), _D(2025, 6, 2), _D(2025, 7, 1), _D(2027, 6, 30), None), "vigente"),
    _c("CPPB-PQ-2023/01", "pesquisa", "autorização", "Autorização nº 001/2023-CPPB", "fuem", "PB-001",
       "CPPB", (_D(2022, 8, 1), _D(2023, 1, 16), _D(2023, 3, 1), _D(2024, 2, 29), None), "cancelado",
       cancelled=(_D(2023, 5, 15), "Art. 22 I: operações não iniciadas no prazo fixado na autorização "
                                   "(NORMAM-10 0305 a).")),
    # Other surveys.
    _c("CPSC-PQ-2019/05", "pesquisa", "autorização", "Autorização nº 005/2019-CPSC", "costasul", "SC-003",
       "CPSC", (_D(2019, 5, 6), _D(2019, 9, 9), _D(2019, 10, 1), _D(2020, 9, 30), None), "expirado",
       caution="30000.00"),
    _c("CPSP-PQ-2026/09", "pesquisa", "autorização", None, "oceanic", "SP-005", "CPSP",
       (_D(2026, 10, 19), None, None, None, None), "solicitado"),
)

# Operations window of each recovery contract with items: (first day, last day).
# Vigente: until a few days before the demo's today; suspended: until the suspension.
_OPS_END: dict[str, date] = {
    "DPC-EX-2021/02": _D(2026, 11, 27),
    "DPC-EX-2015/01": _D(2018, 12, 14),
    "DPC-EX-2021/05": _D(2025, 4, 11),
    "DPC-EX-2018/03": _D(2020, 10, 9),
    "DPC-RM-2016/04": _D(2019, 8, 30),
    "DPC-RM-2023/01": _D(2026, 11, 27),
    "DPC-DM-2012/07": _D(2014, 1, 31),
    "DPC-RM-2019/02": _D(2024, 6, 28),
    "DPC-DM-2025/03": _D(2026, 11, 27),
    "DPC-EX-2017/02": _D(2021, 5, 28),
}

# --------------------------------------------------------------------------------------
# Recovered items: templates and per-contract profiles.
# template key -> (category, material, description, qty_min, qty_max, unit weight g, weight spread)
# --------------------------------------------------------------------------------------

_T: dict[str, tuple[str, str, str, int, int, float, float]] = {
    # coins (often in lots)
    "8reales": ("moedas", "prata", "Moeda de 8 reales (cunho de Potosí ou do México)", 1, 240, 27.0, 0.08),
    "4reales": ("moedas", "prata", "Moeda de 4 reales", 1, 120, 13.5, 0.08),
    "pataca": ("moedas", "prata", "Pataca portuguesa (640 réis)", 1, 80, 17.9, 0.08),
    "moeda_ouro": ("moedas", "ouro", "Moeda de ouro portuguesa (4.000 réis)", 1, 12, 10.7, 0.03),
    "x_reis": ("moedas", "cobre", "Moeda de cobre (X ou XX réis)", 1, 150, 9.0, 0.15),
    "reis_imperio": ("moedas", "cobre", "Moeda de 40 réis (Império)", 1, 120, 14.0, 0.12),
    "prata_imperio": ("moedas", "prata", "Moeda de 2.000 réis (Império)", 1, 40, 25.5, 0.05),
    "soberano": ("moedas", "ouro", "Libra esterlina de ouro (soberano)", 1, 10, 7.99, 0.01),
    "guilder": ("moedas", "prata", "Moeda neerlandesa (leeuwendaalder)", 1, 60, 27.4, 0.08),
    # ceramics, glass
    "botija": ("cerâmica", "cerâmica", "Botija (ânfora ibérica) de azeite ou vinho", 1, 1, 2600.0, 0.25),
    "ceramica_frag": ("cerâmica", "cerâmica", "Fragmentos de cerâmica utilitária", 1, 40, 35.0, 0.4),
    "faianca_prato": ("cerâmica", "faiança", "Prato de faiança portuguesa azul e branca", 1, 1, 380.0, 0.15),
    "faianca_frag": ("cerâmica", "faiança", "Fragmentos de faiança", 1, 60, 22.0, 0.4),
    "porcelana_taca": ("cerâmica", "porcelana", "Taça de porcelana chinesa de exportação", 1, 1, 140.0, 0.2),
    "porcelana_frag": ("cerâmica", "porcelana", "Fragmentos de porcelana chinesa azul e branca", 1, 50, 18.0, 0.4),
    "louca_inglesa": ("cerâmica", "faiança", "Prato de faiança inglesa com estampa transferida", 1, 1, 420.0, 0.15),
    "louca_frag": ("cerâmica", "faiança", "Fragmentos de louça inglesa", 1, 60, 20.0, 0.4),
    "gres": ("cerâmica", "grés", "Garrafa de grés (genebra ou cerveja)", 1, 6, 900.0, 0.15),
    "louca_bordo": ("cerâmica", "porcelana", "Louça de bordo com monograma da companhia", 1, 12, 310.0, 0.2),
    "garrafa_cebola": ("vidro", "vidro", "Garrafa de vidro soprado (tipo cebola)", 1, 4, 750.0, 0.2),
    "vidro_frag": ("vidro", "vidro", "Fragmentos de vidro", 1, 70, 12.0, 0.5),
    "garrafa_moldada": ("vidro", "vidro", "Garrafa de vidro moldado", 1, 6, 650.0, 0.2),
    "frasco": ("vidro", "vidro", "Frasco de farmácia ou perfume", 1, 10, 110.0, 0.3),
    # armament
    "canhao_bronze": ("artilharia", "bronze", "Canhão de bronze", 1, 1, 1_250_000.0, 0.35),
    "canhao_ferro": ("artilharia", "ferro", "Canhão de ferro fundido concrecionado", 1, 1, 1_600_000.0, 0.3),
    "bala_canhao": ("munição", "ferro", "Balas de canhão de ferro", 1, 30, 4200.0, 0.3),
    "bala_mosquete": ("munição", "chumbo", "Balas de mosquete de chumbo", 5, 400, 19.0, 0.1),
    "mosquete": ("armamento portátil", "ferro", "Cano de mosquete concrecionado", 1, 1, 3800.0, 0.3),
    "espada": ("armamento portátil", "ferro", "Lâmina de espada concrecionada", 1, 1, 1100.0, 0.3),
    "pederneira": ("armamento portátil", "pedra", "Pederneiras de sílex", 1, 40, 9.0, 0.2),
    # ingots and cargo
    "lingote_prata": ("lingotes", "prata", "Lingote de prata com marcas de quinto", 1, 1, 28_000.0, 0.15),
    "lingote_cobre": ("lingotes", "cobre", "Lingote de cobre", 1, 6, 9500.0, 0.2),
    "lingote_estanho": ("lingotes", "estanho", "Lingote de estanho", 1, 10, 25_000.0, 0.1),
    "catodo_cobre": ("lingotes", "cobre", "Placa de cobre eletrolítico (carga)", 1, 8, 95_000.0, 0.1),
    # navigation
    "astrolabio": ("instrumentos de navegação", "bronze", "Astrolábio náutico de bronze", 1, 1, 3300.0, 0.1),
    "compasso": ("instrumentos de navegação", "latão", "Compasso de navegação (divisor) de latão",
                 1, 1, 160.0, 0.1),
    "prumo": ("instrumentos de navegação", "chumbo", "Prumo de sondagem de chumbo", 1, 1, 4500.0, 0.2),
    "ampulheta": ("instrumentos de navegação", "vidro", "Fragmento de ampulheta", 1, 1, 90.0, 0.3),
    "sextante": ("instrumentos de navegação", "latão", "Sextante de latão", 1, 1, 1600.0, 0.1),
    "agulha": ("instrumentos de navegação", "latão", "Agulha magnética em bitácula", 1, 1, 5500.0, 0.15),
    # personal
    "anel": ("objetos pessoais", "ouro", "Anel de ouro", 1, 1, 6.0, 0.3),
    "cachimbo": ("objetos pessoais", "caulim", "Cachimbos de caulim", 1, 25, 14.0, 0.3),
    "botao": ("objetos pessoais", "latão", "Botões de latão", 1, 60, 4.0, 0.2),
    "fivela": ("objetos pessoais", "bronze", "Fivela de cinto ou sapato", 1, 10, 25.0, 0.3),
    "rosario": ("objetos pessoais", "osso", "Contas de rosário", 1, 80, 1.2, 0.3),
    "medalha": ("objetos pessoais", "prata", "Medalha devocional de prata", 1, 1, 9.0, 0.2),
    "dado": ("objetos pessoais", "osso", "Dados de jogo de osso", 1, 6, 3.0, 0.2),
    "relogio": ("objetos pessoais", "prata", "Relógio de bolso", 1, 1, 95.0, 0.15),
    "oculos": ("objetos pessoais", "latão", "Óculos de armação metálica", 1, 1, 30.0, 0.2),
    # fittings and ship's equipment
    "cravo": ("ferragens", "ferro", "Cravos e pregos de ferro concrecionados", 1, 120, 85.0, 0.4),
    "cavilha_cobre": ("ferragens", "cobre", "Pregos e cavilhas de cobre", 1, 150, 45.0, 0.3),
    "forro_chumbo": ("ferragens", "chumbo", "Placa de chumbo do forro do casco", 1, 5, 2400.0, 0.3),
    "rebite": ("ferragens", "ferro", "Rebites e parafusos", 1, 200, 60.0, 0.3),
    "chapa_ferro": ("ferragens", "ferro", "Chapa de casco rebitada", 1, 1, 45_000.0, 0.4),
    "chapa_aco": ("ferragens", "aço", "Chapa de aço do casco (seção cortada)", 1, 1, 850_000.0, 0.4),
    "cabo_cobre": ("ferragens", "cobre", "Cabos elétricos de cobre", 1, 20, 3200.0, 0.3),
    "sucata": ("ferragens", "aço", "Sucata de aço estrutural", 1, 1, 1_200_000.0, 0.4),
    "ancora": ("equipamento de bordo", "ferro", "Âncora de ferro forjado", 1, 1, 850_000.0, 0.3),
    "roldana": ("equipamento de bordo", "madeira", "Roldana ou moitão de madeira", 1, 3, 1200.0, 0.3),
    "sino": ("equipamento de bordo", "bronze", "Sino de bordo de bronze", 1, 1, 18_000.0, 0.3),
    "vigia": ("equipamento de bordo", "latão", "Vigia (olho de boi) de latão", 1, 2, 9000.0, 0.2),
    "telegrafo": ("equipamento de bordo", "latão", "Telégrafo de máquinas", 1, 1, 32_000.0, 0.15),
    "valvula": ("equipamento de bordo", "bronze", "Válvula ou registro de bronze", 1, 3, 6500.0, 0.3),
    "helice": ("equipamento de bordo", "bronze", "Hélice de bronze", 1, 1, 2_800_000.0, 0.3),
    "amarra": ("equipamento de bordo", "ferro", "Trecho de amarra (corrente) de ferro", 1, 4, 180_000.0, 0.3),
    "motor": ("equipamento de bordo", "ferro", "Peças de motor (bloco e cabeçote)", 1, 1, 400_000.0, 0.3),
    # hull
    "madeira_casco": ("estrutura do casco", "madeira", "Fragmento de tabuado ou cavername", 1, 1, 14_000.0, 0.5),
    "lastro": ("estrutura do casco", "pedra", "Pedras de lastro", 1, 30, 6000.0, 0.4),
}

_COLONIAL_PT = {"8reales": 14, "4reales": 8, "pataca": 8, "moeda_ouro": 1.2, "x_reis": 5, "botija": 5,
                "ceramica_frag": 7, "faianca_prato": 4, "faianca_frag": 6, "porcelana_taca": 3,
                "porcelana_frag": 5, "canhao_bronze": 0.15, "canhao_ferro": 0.25, "bala_canhao": 3,
                "bala_mosquete": 3, "mosquete": 0.8, "espada": 0.6, "pederneira": 1.5, "lingote_prata": 0.4,
                "lingote_cobre": 0.8, "astrolabio": 0.04, "compasso": 0.3, "prumo": 0.4, "ampulheta": 0.2,
                "anel": 0.6, "cachimbo": 1.2, "botao": 2, "fivela": 1.5, "rosario": 1.5, "medalha": 0.7,
                "dado": 0.4, "cravo": 7, "cavilha_cobre": 4, "forro_chumbo": 1.5, "ancora": 0.05,
                "roldana": 0.7, "sino": 0.03, "garrafa_cebola": 2, "vidro_frag": 4, "madeira_casco": 2,
                "lastro": 1.5}
_COLONIAL_ES = dict(_COLONIAL_PT, **{"8reales": 22, "4reales": 12, "pataca": 1, "x_reis": 1,
                                      "lingote_prata": 0.9, "porcelana_taca": 4, "porcelana_frag": 7})
_STEAMER_1800S = {"reis_imperio": 8, "prata_imperio": 3, "soberano": 0.6, "louca_inglesa": 8,
                  "louca_frag": 12, "gres": 6, "garrafa_moldada": 9, "frasco": 7, "vidro_frag": 8,
                  "sextante": 0.2, "agulha": 0.2, "telegrafo": 0.1, "vigia": 1.5, "sino": 0.05,
                  "rebite": 9, "chapa_ferro": 4, "valvula": 2, "relogio": 0.8, "botao": 4, "oculos": 0.8,
                  "cachimbo": 2, "ancora": 0.05}
_CARGO_1900S = {"catodo_cobre": 20, "lingote_estanho": 12, "louca_bordo": 8, "garrafa_moldada": 6,
                "vidro_frag": 5, "vigia": 3, "telegrafo": 0.2, "agulha": 0.3, "sino": 0.1, "valvula": 5,
                "cabo_cobre": 6, "rebite": 6, "chapa_aco": 3, "relogio": 0.6, "oculos": 0.6, "amarra": 1.5}
_DEMOLITION = {"chapa_aco": 30, "sucata": 18, "cabo_cobre": 16, "amarra": 8, "valvula": 10, "motor": 4,
               "helice": 0.6, "vigia": 3, "rebite": 10}

# contract code -> (item count, profile, wreck depth is used for item depths)
_ITEM_PLAN: dict[str, tuple[int, dict[str, float]]] = {
    "DPC-EX-2021/02": (7200, _COLONIAL_PT),
    "DPC-EX-2015/01": (5600, dict(_COLONIAL_PT, **{"porcelana_taca": 0.5, "porcelana_frag": 1, "pataca": 1,
                                                     "8reales": 4, "4reales": 2, "astrolabio": 0.08})),
    "DPC-EX-2021/05": (3300, _COLONIAL_ES),
    "DPC-EX-2018/03": (700, _STEAMER_1800S),
    "DPC-EX-2017/02": (1800, dict(_COLONIAL_PT, **{"lingote_prata": 0, "canhao_bronze": 0.05})),
    "DPC-RM-2016/04": (1500, _CARGO_1900S),
    "DPC-RM-2023/01": (1400, _CARGO_1900S),
    "DPC-RM-2019/02": (1200, dict(_CARGO_1900S, **{"catodo_cobre": 24, "louca_bordo": 12})),
    "DPC-DM-2012/07": (900, _DEMOLITION),
    "DPC-DM-2025/03": (500, _DEMOLITION),
}

# Deliveries to the Naval Authority (art. 23): the last recovery day whose items were
# delivered; later ones are still with the explorer as depositary (overdue on the pages).
_DELIVERY_UNTIL: dict[str, date] = {
    "DPC-EX-2021/02": _D(2024, 12, 31),
    "DPC-EX-2015/01": _D(2018, 12, 14),
    "DPC-EX-2021/05": _D(2023, 12, 31),
    "DPC-EX-2018/03": _D(2019, 12, 31),
    "DPC-EX-2017/02": _D(2021, 5, 28),
    "DPC-RM-2016/04": _D(2019, 8, 30),
    "DPC-RM-2023/01": _D(2024, 12, 31),
    "DPC-RM-2019/02": _D(2022, 12, 31),
    "DPC-DM-2012/07": _D(2014, 1, 31),
    "DPC-DM-2025/03": _D(2025, 12, 31),
}

_CONDITIONS = ("bom", "regular", "concrecionado", "fragmentado", "frágil")
_CONDITION_P = (0.34, 0.30, 0.18, 0.12, 0.06)
_NOTES = ("Em dessalinização no laboratório de conservação.", "Registro fotográfico completo.",
          "Necessita conservação preventiva.", "Marcas de fabricante legíveis.")

# --------------------------------------------------------------------------------------
# Users: one strong password each, kept in the README only; here the argon2id hashes.
# (username, full name, e-mail, role, organisation key, commission body)
# --------------------------------------------------------------------------------------

USERS: tuple[tuple[str, str, str, str, str | None, str | None], ...] = (
    ("cmg.tavares", "CMG Ricardo Almeida Tavares (DPHCM) — Presidente da Comissão", "r.tavares@marinha.example",
     "commission_president", None, "navy"),
    ("cf.rocha", "CF Helena Barbosa Rocha (DPHCM)", "h.rocha@marinha.example", "commission", None, "navy"),
    ("cc.lima", "CC Marcos Cordeiro Lima (DPHCM)", "m.lima@marinha.example", "commission", None, "navy"),
    ("minc.ferraz", "Dra. Luciana Dantas Ferraz (IPHAN/MinC)", "l.ferraz@cultura.example", "commission", None,
     "culture"),
    ("minc.nogueira", "Dr. Paulo Esteves Nogueira (MinC)", "p.nogueira@cultura.example", "commission", None,
     "culture"),
    ("minc.amaral", "Dra. Beatriz Figueiredo Amaral (Ibram/MinC)", "b.amaral@cultura.example", "commission",
     None, "culture"),
    ("dpc.prado", "CF Eduardo Gouveia Prado (DPC)", "e.prado@marinha.example", "dpc", None, None),
    ("dpc.reis", "CC Camila Hollanda Reis (DPC)", "c.reis@marinha.example", "dpc", None, None),
    ("exp.arqueonautica", "Teresa Cristina Pamplona Vilas-Boas (Arqueonáutica)",
     "teresa.vilasboas@arqueonautica.example", "explorer", "arqueonautica", None),
    ("exp.salvamar", "Roberto Guimarães Lacerda (Salvamar)", "roberto.lacerda@salvamar.example", "explorer",
     "salvamar", None),
    ("exp.costasul", "Giovani Schmitt Rebelo (Costa Sul Resgate)", "giovani@costasul.example", "explorer",
     "costasul", None),
    ("exp.fuem", "Profa. Dra. Lúcia Helena Cavalcanti Brandão (FUEM)", "lucia.brandao@fuem.example",
     "explorer", "fuem", None),
    ("exp.oceanic", "Ana Paula Meireles Soares (Oceanic Recovery)", "ana.soares@oceanicrecovery.example",
     "explorer", "oceanic", None),
    ("exp.dnanaval", "Sérgio Nakamura Bittencourt (DNA Naval)", "sergio.bittencourt@dnanaval.example",
     "explorer", "dnanaval", None),
    ("exp.potiguar", "Cláudio Medeiros Dantas (Potiguar Submarina)", "claudio.dantas@potiguarsubmarina.example",
     "explorer", "potiguar", None),
    ("admin", "Administrador do sistema", "admin@valuation.example", "admin", None, None),
)

_PASSWORD_HASHES: dict[str, str] = {
    "cmg.tavares": "$argon2id$v=19$m=65536,t=3,p=4$Wra3k/c0Ed89f3ZmzzROpQ$BdXv4hywhIDbk+GQh80gW8wmnE0w/VEIsKAGyX3oLv4",
    "cf.rocha": "$argon2id$v=19$m=65536,t=3,p=4$aMkc6Jn4aRwNiGoiXQX3HA$3rB3OHtLr+D9Uacuou1S7lWQY2cT1Nob9S9ywfAi1pk",
    "cc.lima": "$argon2id$v=19$m=65536,t=3,p=4$cFGAiEBizmYmXxTBOpALww$o7RCCRUUyZRst9+91GcV7af5Ue1p3KJc5O0EimzAmzo",
    "minc.ferraz": "$argon2id$v=19$m=65536,t=3,p=4$P82fqoMQ2cVdR0YcBV4WQQ$icQEjEJYeO3cUjRTQl9HwE5ivhwW1r8HFFZC5Y90fDM",
    "minc.nogueira": "$argon2id$v=19$m=65536,t=3,p=4$W5KcexoCwvqWCKN0gWx8nQ$eqToScUQV1b22tAaZYhTUUsS22ic3/xV/vEO4yBD+88",
    "minc.amaral": "$argon2id$v=19$m=65536,t=3,p=4$gdxIE9IwJFRNrnYPldGnnQ$ddwpZ7h7nOxdXlZUI3ZxDuLAqiUWC5BzeXcnPesWZC0",
    "dpc.prado": "$argon2id$v=19$m=65536,t=3,p=4$Dg5o5UCAQ85ezxA73FYw9Q$dnOrpMpeotQDzFMbnuLy+82I3+KShaz+ohbEVuLGl8A",
    "dpc.reis": "$argon2id$v=19$m=65536,t=3,p=4$RO9ywcquhNKVTREZN0ddQg$HN/Cu1gBGSHtDnlm8M23uPsLYahNxI0OiKZALaNSxNM",
    "exp.arqueonautica": "$argon2id$v=19$m=65536,t=3,p=4$CdCiIwukkU+L9qMOjxXhtw$c8a3jcZmshPr/4GI4R4i+qHnWrkyJWbhG91EYz8qCLg",
    "exp.salvamar": "$argon2id$v=19$m=65536,t=3,p=4$+TAKHvvXhhLc7Mg/KMjBiw$bIY0htfy2ApF9BONG7NnMetQDhp5m5Y4PZor3Rorpnc",
    "exp.costasul": "$argon2id$v=19$m=65536,t=3,p=4$y99BAHwvsjq0U1H6vcW3lQ$8B65uZ3exdPuPFdLK0oom5X0++TGyhX3dAApOXcqiv0",
    "exp.fuem": "$argon2id$v=19$m=65536,t=3,p=4$2jLwuY5nePlcEKJoMJYf4A$q+iskuf9qqShFlMtavtKoL045VHoRwqwK7O2vvNdIlc",
    "exp.oceanic": "$argon2id$v=19$m=65536,t=3,p=4$LXypetC4bpm0Yo1oVuL+zw$VJ1U4wIvv6XyxDRVvCncXhUOjrq02hJ7pMZ0bUFXrkk",
    "exp.dnanaval": "$argon2id$v=19$m=65536,t=3,p=4$g8qpQAh8qyZS/ht5rfS8pQ$SNgsnB/+KEGXRMWUoZi7FJTG4jyvoqXY6zlCDyxhSNY",
    "exp.potiguar": "$argon2id$v=19$m=65536,t=3,p=4$Jn3fFQuYSb385s6AU96Psg$/gNgpgVQjd6in+63rAMz7wl/QE7VY8I0CNIXwBl2bsM",
    "admin": "$argon2id$v=19$m=65536,t=3,p=4$ZFLRQS71fPKjHh3zJRMHyg$W4UIWddhGbK5AkFpZ8zTp4Ptlsbw9ptUJb+ZISmh8iM",
}

DEMO_USERNAMES_BY_ROLE: dict[str, list[str]] = {}
for _u in USERS:
    DEMO_USERNAMES_BY_ROLE.setdefault(_u[3], []).append(_u[0])
del _u

# Tables the demo fills, in insertion order.
DEMO_TABLES: tuple[str, ...] = ("offices", "local_holidays", "owners", "organisations", "wrecks",
                                "wreck_suspensions", "contracts", "items", "item_deliveries", "users")

# --------------------------------------------------------------------------------------
# Seeding
# --------------------------------------------------------------------------------------


def is_seeded(store: Store) -> bool:
    """True when the database already holds offices or wrecks (the demo's or anyone's)."""
    rows = store.fetch("SELECT (SELECT count(*) FROM offices) + (SELECT count(*) FROM wrecks) AS n")
    return bool(rows[0]["n"])


def _reserve_ids(cur: Any, sequence: str, n: int) -> list[int]:
    """n consecutive ids taken from `sequence` (deterministic on a database nobody else writes to)."""
    if n == 0:
        return []
    lo, hi, count = cur.execute(
        f"SELECT min(v), max(v), count(*) FROM (SELECT nextval('{sequence}') AS v FROM range({n}))").fetchall()[0]
    if hi - lo + 1 != count:  # another writer took values in between: ids would not be consecutive
        raise ConflictError(f"a sequência {sequence} foi usada por outra gravação durante a carga da demonstração")
    return list(range(int(lo), int(hi) + 1))


def _insert_rows(cur: Any, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> int:
    if rows:
        marks = ", ".join("?" for _ in columns)
        cur.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", [list(r) for r in rows])
    return len(rows)


def _insert_arrow(cur: Any, table: str, arrow: pa.Table, select: str) -> int:
    """INSERT INTO table SELECT … FROM an Arrow table: one statement for the whole batch."""
    view = f"_demo_{table}"
    cur.register(view, arrow)
    try:
        cur.execute(f"INSERT INTO {table} {select.format(view=view)}").fetchall()
    finally:
        cur.unregister(view)
    return arrow.num_rows


def _position(axis: tuple[int, str, str]) -> tuple[int, Decimal, str]:
    deg, minutes, hem = axis
    return deg, Decimal(minutes), hem


def _at(day: date, hour: int = 9, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute))


def _item_frame(rng: np.random.Generator, contract_id: int, code: str, start: date, end: date,
                depth: Decimal, count: int, profile: dict[str, float], deliver_until: date,
                place: str, received_by: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Columns of `count` items recovered under one contract between `start` and `end`, and of
    the deliveries of those recovered up to `deliver_until` (vectorised: no per-row Python)."""
    keys = [k for k, w in profile.items() if w > 0]
    weights = np.array([profile[k] for k in keys], dtype=float)
    pick = rng.choice(len(keys), size=count, p=weights / weights.sum())
    tpl = [_T[k] for k in keys]
    qmin = np.array([t[3] for t in tpl])[pick]
    qmax = np.array([t[4] for t in tpl])[pick]
    unit = np.array([t[5] for t in tpl])[pick]
    spread = np.array([t[6] for t in tpl])[pick]
    # quantities skewed towards small lots; singles stay singles
    u = rng.random(count)
    qty = qmin + np.floor((qmax - qmin + 1) * u ** 3).astype(np.int64)
    single = rng.random(count) < 0.35
    qty = np.where(single & (qmin == 1), 1, qty)
    weight_cg = np.rint(qty * unit * rng.lognormal(0.0, spread) * 100).astype(np.int64)
    weighed = rng.random(count) > 0.04           # a few items not yet weighed (NULL)
    span = (end - start).days
    offsets = np.sort(rng.integers(0, span + 1, size=count))
    depth_cm = np.rint((float(depth) + rng.normal(0.0, 1.2, size=count)) * 100).astype(np.int64)
    depth_cm = np.clip(depth_cm, 50, None)
    cond = rng.choice(len(_CONDITIONS), size=count, p=_CONDITION_P)
    has_note = rng.random(count) < 0.06
    note_idx = rng.integers(0, len(_NOTES), size=count)
    grid_l = rng.integers(0, 8, size=count)
    grid_n = rng.integers(1, 13, size=count)

    days = [start + timedelta(days=int(o)) for o in offsets]
    archaeological = code.startswith("DPC-EX")
    lots = [(f"{d.year}/{d.month:02d} · quadrícula {'ABCDEFGH'[gl]}{gn}" if archaeological
             else f"Campanha {d.year}/{d.month:02d}") for d, gl, gn in zip(days, grid_l, grid_n)]
    items = {
        "contract_id": np.full(count, contract_id, dtype=np.int64),
        "item_code": [f"{code}-{i + 1:05d}" for i in range(count)],
        "description": [_T[keys[p]][2] for p in pick],
        "category": [_T[keys[p]][0] for p in pick],
        "material": [_T[keys[p]][1] for p in pick],
        "quantity": qty.astype(np.int32),
        "weight_g": [f"{w // 100}.{w % 100:02d}" if ok else None for w, ok in zip(weight_cg, weighed)],
        "recovered_on": days,
        "depth_m": [f"{d // 100}.{d % 100:02d}" for d in depth_cm],
        "lot": lots,
        "condition": [_CONDITIONS[c] for c in cond],
        "notes": [_NOTES[n] if h else None for n, h in zip(note_idx, has_note)],
    }
    # Deliveries: the items recovered up to `deliver_until`, handed over in monthly batches
    # on the 10th of the month after recovery (never after the demo's today).
    delivered_idx = [i for i, d in enumerate(days) if d <= deliver_until]
    deliveries: dict[str, Any] = {"item_code": [], "delivered_on": []}
    for i in delivered_idx:
        d = days[i]
        nxt = date(d.year + (d.month == 12), d.month % 12 + 1, 10)
        deliveries["item_code"].append(items["item_code"][i])
        deliveries["delivered_on"].append(min(nxt, DEMO_TODAY))
    deliveries["place"] = [place] * len(delivered_idx)
    deliveries["received_by"] = [received_by] * len(delivered_idx)
    return items, deliveries


def seed_demo(store: Store) -> dict[str, int]:
    """Fill an empty database with the demo data set in one transaction; returns rows per table.

    Raises ConflictError when the database already holds offices or wrecks (the demo
    is loaded once, into a fresh database). Deterministic: same content every run."""
    if is_seeded(store):
        raise ConflictError("O banco de dados já contém dados: a demonstração só é carregada num banco vazio.")
    rnd = random.Random(DEMO_SEED)
    rng = np.random.default_rng(DEMO_SEED)
    counts: dict[str, int] = {}
    with store.transaction(actor=DEMO_ACTOR) as tx:
        cur = tx.cur
        # offices and municipal holidays
        counts["offices"] = _insert_rows(cur, "offices", ("code", "name", "kind", "state", "city", "naval_district"),
                                         OFFICES)
        holidays = [(o, date(y, m, d), name) for y in _HOLIDAY_YEARS for o, m, d, name in _MUNICIPAL_HOLIDAYS]
        counts["local_holidays"] = _insert_rows(cur, "local_holidays", ("office_code", "day", "name"), holidays)

        # owners
        owner_keys = list(OWNERS)
        owner_id = dict(zip(owner_keys, _reserve_ids(cur, "seq_owners", len(owner_keys))))
        counts["owners"] = _insert_rows(
            cur, "owners", ("id", "name", "doc_kind", "doc_number", "nationality", "whereabouts_known", "address",
                            "notes"),
            [(owner_id[k], *OWNERS[k]) for k in owner_keys])

        # organisations (explorers)
        org_keys = list(ORGANISATIONS)
        org_id = dict(zip(org_keys, _reserve_ids(cur, "seq_organisations", len(org_keys))))
        org_cols = ("name", "trade_name", "cnpj", "nationality", "address", "city", "state", "country", "email",
                    "phone", "representative_name", "representative_cpf", "experience", "registered_on", "status")
        counts["organisations"] = _insert_rows(
            cur, "organisations", ("id",) + org_cols,
            [(org_id[k], *(ORGANISATIONS[k][c] for c in org_cols)) for k in org_keys])

        # wrecks
        wreck_id = dict(zip((w[0] for w in WRECKS), _reserve_ids(cur, "seq_wrecks", len(WRECKS))))
        wreck_rows = []
        wreck_depth: dict[str, Decimal] = {}
        for w in WRECKS:
            r = dict(zip(_W_FIELDS, w))
            lat, lon = _position(r["lat"]), _position(r["lon"])
            depth = Decimal(r["depth"]) if r["depth"] is not None else None
            wreck_depth[r["code"]] = depth or Decimal("10")
            created = _at(max(r["court_known_on"] or _SYSTEM_START, _SYSTEM_START), 10)
            wreck_rows.append((
                wreck_id[r["code"]], r["code"], r["name"], r["vessel_type"], r["flag"], r["hull_material"],
                r["year"], r["month"], r["day"], r["precision"], r["casualty_type"], *lat, *lon, r["datum"],
                r["approx"], depth, r["office"], r["situation"], r["visible_high_tide"], r["visible_low_tide"],
                r["signalling"], r["protected"], owner_id[r["owner"]] if r["owner"] else None,
                r["declared_lost"], r["licence_requested"], r["court_known_on"], r["notes"], created))
        counts["wrecks"] = _insert_rows(cur, "wrecks", (
            "id", "code", "name", "vessel_type", "flag", "hull_material", "casualty_year", "casualty_month",
            "casualty_day", "casualty_precision", "casualty_type", "lat_deg", "lat_min", "lat_hem", "lon_deg",
            "lon_min", "lon_hem", "datum", "position_approximate", "depth_m", "office_code", "situation",
            "visible_high_tide", "visible_low_tide", "signalling", "protected_area", "owner_id",
            "owner_declared_lost", "owner_licence_requested", "court_known_on", "notes", "created_at"), wreck_rows)

        susp_ids = _reserve_ids(cur, "seq_suspensions", len(SUSPENSIONS))
        counts["wreck_suspensions"] = _insert_rows(
            cur, "wreck_suspensions", ("id", "wreck_id", "ground", "starts_on", "ends_on", "reason"),
            [(i, wreck_id[s[0]], *s[1:]) for i, s in zip(susp_ids, SUSPENSIONS)])

        # contracts
        contract_id = dict(zip((c[0] for c in CONTRACTS), _reserve_ids(cur, "seq_contracts", len(CONTRACTS))))
        contract_rows = []
        contract_office: dict[str, str] = {}
        for c in CONTRACTS:
            r = dict(zip(_C_FIELDS, c))
            contract_office[r["code"]] = r["office"]
            contract_rows.append((
                contract_id[r["code"]], r["code"], r["kind"], r["act"], r["act_number"], org_id[r["org"]],
                wreck_id[r["wreck"]], r["office"], r["requested_on"], r["signed_on"], r["starts_on"],
                r["expires_on"], r["work_ended_on"], r["status"], r["cancelled_on"], r["cancel_reason"],
                org_id[r["surveyor"]] if r["surveyor"] else None, r["modality"], r["historical_share"],
                r["historical_payment"], r["other_share"], r["fixed_amount"], r["salvage_award"],
                r["value_fixed"], r["caution_amount"], _at(r["requested_on"], 9, 30)))
        counts["contracts"] = _insert_rows(cur, "contracts", (
            "id", "code", "kind", "act", "act_number", "organisation_id", "wreck_id", "office_code",
            "requested_on", "signed_on", "starts_on", "expires_on", "work_ended_on", "status", "cancelled_on",
            "cancel_reason", "surveyor_organisation_id", "modality", "historical_share", "historical_payment",
            "other_share", "fixed_amount", "salvage_award", "value_fixed", "caution_amount", "created_at"),
            contract_rows)

        # recovered items and their deliveries, in bulk
        office_by_code = {o[0]: o for o in OFFICES}
        wreck_of = {c[0]: c[5] for c in CONTRACTS}
        starts_of = {c[0]: c[9] for c in CONTRACTS}
        item_parts: list[dict[str, Any]] = []
        delivery_parts: list[dict[str, Any]] = []
        for code, (n, profile) in _ITEM_PLAN.items():
            office = office_by_code[contract_office[code]]
            place = f"Depósito de bens resgatados — {office[1]}, {office[4]}/{office[3]}"
            receiver = rnd.choice(("CT (T) Renata Moura Lisboa", "CC (T) André Fontes Carvalho",
                                   "1T (RM2-T) Priscila Ramos Duarte", "SO-MO Valdir Souza Bezerra"))
            items, deliveries = _item_frame(rng, contract_id[code], code, starts_of[code], _OPS_END[code],
                                            wreck_depth[wreck_of[code]], n, profile, _DELIVERY_UNTIL[code],
                                            place, f"{receiver} — Encarregado(a) do depósito")
            item_parts.append(items)
            delivery_parts.append(deliveries)
        n_items = sum(len(p["item_code"]) for p in item_parts)
        item_ids = _reserve_ids(cur, "seq_items", n_items)
        items_tbl = pa.table({
            "id": pa.array(item_ids, pa.int64()),
            **{col: pa.array(np.concatenate([p[col] for p in item_parts]))
               if col in ("contract_id", "quantity")
               else pa.array([v for p in item_parts for v in p[col]])
               for col in item_parts[0]},
        })
        counts["items"] = _insert_arrow(cur, "items", items_tbl, (
            "(id, contract_id, item_code, description, category, material, quantity, weight_g, recovered_on, "
            "depth_m, lot, condition, notes) SELECT id, contract_id, item_code, description, category, material, "
            "quantity, CAST(weight_g AS DECIMAL(12,2)), recovered_on, CAST(depth_m AS DECIMAL(7,2)), lot, "
            "condition, notes FROM {view}"))
        code_to_item = dict(zip(items_tbl.column("item_code").to_pylist(), item_ids))
        d_codes = [c for p in delivery_parts for c in p["item_code"]]
        d_ids = _reserve_ids(cur, "seq_deliveries", len(d_codes))
        d_days = [d for p in delivery_parts for d in p["delivered_on"]]
        recorder = DEMO_USERNAMES_BY_ROLE["dpc"]
        deliveries_tbl = pa.table({
            "id": pa.array(d_ids, pa.int64()),
            "item_id": pa.array([code_to_item[c] for c in d_codes], pa.int64()),
            "delivered_on": pa.array(d_days, pa.date32()),
            "received_by": pa.array([v for p in delivery_parts for v in p["received_by"]]),
            "place": pa.array([v for p in delivery_parts for v in p["place"]]),
            "recorded_by": pa.array([recorder[i % len(recorder)] for i in range(len(d_codes))]),
            "recorded_at": pa.array([_at(d, 16, 30) for d in d_days], pa.timestamp("us")),
        })
        counts["item_deliveries"] = _insert_arrow(cur, "item_deliveries", deliveries_tbl, (
            "(id, item_id, delivered_on, received_by, place, recorded_by, recorded_at) "
            "SELECT id, item_id, delivered_on, received_by, place, recorded_by, recorded_at FROM {view}"))

        # users
        user_ids = _reserve_ids(cur, "seq_users", len(USERS))
        counts["users"] = _insert_rows(cur, "users", (
            "id", "username", "full_name", "email", "role", "organisation_id", "commission_body", "password_hash",
            "created_at"),
            [(uid, u, name, email, role, org_id[org] if org else None, body, _PASSWORD_HASHES[u],
              _at(date(2026, 1, 5), 8, 0)) for uid, (u, name, email, role, org, body) in zip(user_ids, USERS)])

        # the audit trail starts here: one row per table loaded
        for table in DEMO_TABLES:
            tx.audit("demo.seed", table, "*", None, {"rows": counts[table], "seed": DEMO_SEED})
    return counts


def content_digest(store: Store) -> str:
    """sha256 of the demo tables' content in a canonical order (for determinism checks)."""
    h = hashlib.sha256()
    for table in DEMO_TABLES:
        cur = store.cursor()
        try:
            rows = cur.execute(f"SELECT * FROM {table} ORDER BY ALL").fetchall()
        finally:
            cur.close()
        h.update(table.encode())
        for row in rows:
            h.update(repr(row).encode("utf-8"))
    return h.hexdigest()


__all__ = ["DEMO_SEED", "DEMO_TODAY", "DEMO_USERNAMES_BY_ROLE", "DEMO_TABLES", "OFFICES", "content_digest",
           "is_seeded", "seed_demo"]
