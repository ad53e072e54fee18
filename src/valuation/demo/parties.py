"""Demo data: the owners (Lei 7.542 arts. 3–9), the explorers' registration sheets (NORMAM-10 0401)
and the users (argon2id hashes only; the logins are in the README). Every person, company and
number is fictional; CPFs and CNPJs carry valid check digits. Seeded by `valuation.demo.base`."""
from __future__ import annotations

from datetime import date
from typing import Any

from valuation.core import ids

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
    ("om.cpba", "CT Marina Vasconcelos Peixoto (CPBA)", "m.peixoto@marinha.example", "officer", None, None),
)

# Fictional CPFs of the demo people (the signer an act expects, the key of a gov.br login; issue 27): nine digits
# of our choosing, their check digits computed. Explorers' representatives sign nothing the Authority issues.
DEMO_CPFS: dict[str, str] = {u: ids.complete_cpf(f"{900_100_000 + 37 * i:09d}") for i, (u, *_rest) in enumerate(USERS)
                             if not u.startswith("exp.")}

PASSWORD_HASHES: dict[str, str] = {
    "cmg.tavares": "$argon2id$v=19$m=65536,t=3,p=4$Wra3k/c0Ed89f3ZmzzROpQ$BdXv4hywhIDbk+GQh80gW8wmnE0w/VEIsKAGyX3oLv4",
    "cf.rocha": "$argon2id$v=19$m=65536,t=3,p=4$aMkc6Jn4aRwNiGoiXQX3HA$3rB3OHtLr+D9Uacuou1S7lWQY2cT1Nob9S9ywfAi1pk",
    "cc.lima": "$argon2id$v=19$m=65536,t=3,p=4$cFGAiEBizmYmXxTBOpALww$o7RCCRUUyZRst9+91GcV7af5Ue1p3KJc5O0EimzAmzo",
    "minc.ferraz": "$argon2id$v=19$m=65536,t=3,p=4$P82fqoMQ2cVdR0YcBV4WQQ$icQEjEJYeO3cUjRTQl9HwE5ivhwW1r8HFFZC5Y90fDM",
    "minc.nogueira":
        "$argon2id$v=19$m=65536,t=3,p=4$W5KcexoCwvqWCKN0gWx8nQ$eqToScUQV1b22tAaZYhTUUsS22ic3/xV/vEO4yBD+88",
    "minc.amaral": "$argon2id$v=19$m=65536,t=3,p=4$gdxIE9IwJFRNrnYPldGnnQ$ddwpZ7h7nOxdXlZUI3ZxDuLAqiUWC5BzeXcnPesWZC0",
    "dpc.prado": "$argon2id$v=19$m=65536,t=3,p=4$Dg5o5UCAQ85ezxA73FYw9Q$dnOrpMpeotQDzFMbnuLy+82I3+KShaz+ohbEVuLGl8A",
    "dpc.reis": "$argon2id$v=19$m=65536,t=3,p=4$RO9ywcquhNKVTREZN0ddQg$HN/Cu1gBGSHtDnlm8M23uPsLYahNxI0OiKZALaNSxNM",
    "om.cpba": "$argon2id$v=19$m=65536,t=3,p=4$dwepVDQUusOkRkwrmcuRwA$b0fwhSZtKVewX3hsDni+IgoRRaqXcOxffZPUUV+2/eM",
    "exp.arqueonautica":
        "$argon2id$v=19$m=65536,t=3,p=4$CdCiIwukkU+L9qMOjxXhtw$c8a3jcZmshPr/4GI4R4i+qHnWrkyJWbhG91EYz8qCLg",
    "exp.salvamar": "$argon2id$v=19$m=65536,t=3,p=4$+TAKHvvXhhLc7Mg/KMjBiw$bIY0htfy2ApF9BONG7NnMetQDhp5m5Y4PZor3Rorpnc",
    "exp.costasul": "$argon2id$v=19$m=65536,t=3,p=4$y99BAHwvsjq0U1H6vcW3lQ$8B65uZ3exdPuPFdLK0oom5X0++TGyhX3dAApOXcqiv0",
    "exp.fuem": "$argon2id$v=19$m=65536,t=3,p=4$2jLwuY5nePlcEKJoMJYf4A$q+iskuf9qqShFlMtavtKoL045VHoRwqwK7O2vvNdIlc",
    "exp.oceanic": "$argon2id$v=19$m=65536,t=3,p=4$LXypetC4bpm0Yo1oVuL+zw$VJ1U4wIvv6XyxDRVvCncXhUOjrq02hJ7pMZ0bUFXrkk",
    "exp.dnanaval": "$argon2id$v=19$m=65536,t=3,p=4$g8qpQAh8qyZS/ht5rfS8pQ$SNgsnB/+KEGXRMWUoZi7FJTG4jyvoqXY6zlCDyxhSNY",
    "exp.potiguar": "$argon2id$v=19$m=65536,t=3,p=4$Jn3fFQuYSb385s6AU96Psg$/gNgpgVQjd6in+63rAMz7wl/QE7VY8I0CNIXwBl2bsM",
    "admin": "$argon2id$v=19$m=65536,t=3,p=4$ZFLRQS71fPKjHh3zJRMHyg$W4UIWddhGbK5AkFpZ8zTp4Ptlsbw9ptUJb+ZISmh8iM",
}

# The office of each demo office officer (users.office_code).
OFFICE_OF: dict[str, str] = {"om.cpba": "CPBA"}

DEMO_USERNAMES_BY_ROLE: dict[str, list[str]] = {}
for _u in USERS:
    DEMO_USERNAMES_BY_ROLE.setdefault(_u[3], []).append(_u[0])
del _u
