"""The directory of the Maritime Authority's offices that ships with the product (reference data).

Capitanias (dos Portos and Fluviais: both are a Capitania, kind CP), Delegacias (DL) and Agências (AG) — the
military organisations (OM) with which requests and reports are filed (NORMAM-10 (ed. 2002) 0401: companies are
registered "na CP, DL ou AG com jurisdição na área"; 0301–0303: requests are handed in at the OM and forwarded to
DPC) — with their state, city and naval district, and the municipal holidays of their cities (Lei 9.093/1995
art. 2: each municipality declares its own religious holidays, up to four). `db init` loads them into every
database, demo or not (`valuation.registry.offices.load_directory`); what is loaded is then the office's to
maintain on the "Capitanias" page (add, correct, close from a date): a later load never changes a row already
there.

The list is reference data compiled from the Navy's public pages (each OM's page at marinha.mil.br) for this
version of the product; the Directorate confirms it on the page, where every correction is a dated version
(docs/decisions/002-office-directory.md).
"""
from __future__ import annotations

# Where the directory comes from (stored with every office it loads: `offices.source`).
DIRECTORY_SOURCE = ("Relação de referência das Capitanias, Delegacias e Agências da Autoridade Marítima, compilada "
                    "das páginas públicas da Marinha do Brasil (valuation 2026-12); conferir e manter na página "
                    "Capitanias")
HOLIDAY_SOURCE = "Lei municipal da cidade sede (Lei 9.093/1995 art. 2); relação de referência (valuation 2026-12)"

# (code, name, kind, state, city, naval district). The first 34 in the order the demo numbers its protocol units
# (valuation.demo.process): new offices are appended, never inserted.
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
    # -- appended after the first 34 (the demo's protocol units are numbered in the order above) --
    # 1º Distrito Naval
    ("CFMG", "Capitania Fluvial de Minas Gerais", "CP", "MG", "Pirapora", 1),
    # 2º Distrito Naval
    ("AGJUAZEIRO", "Agência Fluvial de Juazeiro", "AG", "BA", "Juazeiro", 2),
    ("DELVALENCA", "Delegacia da Capitania dos Portos em Valença", "DL", "BA", "Valença", 2),
    # 3º Distrito Naval
    ("AGPENEDO", "Agência Fluvial de Penedo", "AG", "AL", "Penedo", 3),
    ("AGPETROLINA", "Agência Fluvial de Petrolina", "AG", "PE", "Petrolina", 3),
    ("AGMACAU", "Agência da Capitania dos Portos em Macau", "AG", "RN", "Macau", 3),
    # 4º Distrito Naval
    ("CFS", "Capitania Fluvial de Santarém", "CP", "PA", "Santarém", 4),
    ("AGITAITUBA", "Agência Fluvial de Itaituba", "AG", "PA", "Itaituba", 4),
    ("AGMARABA", "Agência Fluvial de Marabá", "AG", "PA", "Marabá", 4),
    ("AGOBIDOS", "Agência Fluvial de Óbidos", "AG", "PA", "Óbidos", 4),
    ("AGIMPERATRIZ", "Agência Fluvial de Imperatriz", "AG", "MA", "Imperatriz", 4),
    ("AGLCORREIA", "Agência da Capitania dos Portos em Luís Correia", "AG", "PI", "Luís Correia", 4),
    # 5º Distrito Naval
    ("CFPA", "Capitania Fluvial de Porto Alegre", "CP", "RS", "Porto Alegre", 5),
    ("DELURUGUAIANA", "Delegacia Fluvial de Uruguaiana", "DL", "RS", "Uruguaiana", 5),
    ("AGCHUI", "Agência da Capitania dos Portos em Chuí", "AG", "RS", "Chuí", 5),
    ("AGPELOTAS", "Agência Fluvial de Pelotas", "AG", "RS", "Pelotas", 5),
    # 6º Distrito Naval (Ladário): MS, MT
    ("CFPN", "Capitania Fluvial do Pantanal", "CP", "MS", "Corumbá", 6),
    ("AGCACERES", "Agência Fluvial de Cáceres", "AG", "MT", "Cáceres", 6),
    ("AGPMURTINHO", "Agência Fluvial de Porto Murtinho", "AG", "MS", "Porto Murtinho", 6),
    # 7º Distrito Naval (Brasília): DF, GO, TO
    ("CFB", "Capitania Fluvial de Brasília", "CP", "DF", "Brasília", 7),
    ("CFAT", "Capitania Fluvial do Araguaia-Tocantins", "CP", "TO", "Palmas", 7),
    # 8º Distrito Naval
    ("CFTP", "Capitania Fluvial do Tietê-Paraná", "CP", "SP", "Barra Bonita", 8),
    ("DELPEPITACIO", "Delegacia Fluvial de Presidente Epitácio", "DL", "SP", "Presidente Epitácio", 8),
    ("DELGUAIRA", "Delegacia Fluvial de Guaíra", "DL", "PR", "Guaíra", 8),
    ("AGFOZ", "Agência Fluvial de Foz do Iguaçu", "AG", "PR", "Foz do Iguaçu", 8),
    ("AGUBATUBA", "Agência da Capitania dos Portos em Ubatuba", "AG", "SP", "Ubatuba", 8),
    # 9º Distrito Naval (Manaus): AM, AC, RO, RR
    ("CFAOC", "Capitania Fluvial da Amazônia Ocidental", "CP", "AM", "Manaus", 9),
    ("CFT", "Capitania Fluvial de Tabatinga", "CP", "AM", "Tabatinga", 9),
    ("CFPV", "Capitania Fluvial de Porto Velho", "CP", "RO", "Porto Velho", 9),
    ("AGPARINTINS", "Agência Fluvial de Parintins", "AG", "AM", "Parintins", 9),
    ("AGITACOATIARA", "Agência Fluvial de Itacoatiara", "AG", "AM", "Itacoatiara", 9),
    ("AGHUMAITA", "Agência Fluvial de Humaitá", "AG", "AM", "Humaitá", 9),
    ("AGEIRUNEPE", "Agência Fluvial de Eirunepé", "AG", "AM", "Eirunepé", 9),
    ("AGBOCADOACRE", "Agência Fluvial de Boca do Acre", "AG", "AM", "Boca do Acre", 9),
    ("AGCRUZEIRODOSUL", "Agência Fluvial de Cruzeiro do Sul", "AG", "AC", "Cruzeiro do Sul", 9),
    ("AGGUAJARAMIRIM", "Agência Fluvial de Guajará-Mirim", "AG", "RO", "Guajará-Mirim", 9),
    ("AGCARACARAI", "Agência Fluvial de Caracaraí", "AG", "RR", "Caracaraí", 9),
)

# Municipal holidays of the offices' cities (state and national ones come from the `holidays` package,
# valuation.core.calendar): (office, month, day, name). Loaded as dated days for the years around the load
# (`HOLIDAY_YEARS_BACK` before and `HOLIDAY_YEARS_AHEAD` after the office's day); a later `db init` adds the years
# that came into range.
MUNICIPAL_HOLIDAYS: tuple[tuple[str, int, int, str], ...] = (
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
    ("CPPB", 8, 5, "Nossa Senhora das Neves, padroeira de João Pessoa"),
    ("CPAL", 8, 27, "Nossa Senhora dos Prazeres, padroeira de Maceió"),
    ("CFPA", 2, 2, "Nossa Senhora dos Navegantes, Porto Alegre"),
    ("CFAOC", 10, 24, "Aniversário de Manaus"),
    ("CFAOC", 12, 8, "Nossa Senhora da Conceição, padroeira de Manaus"),
)
HOLIDAY_YEARS_BACK = 2
HOLIDAY_YEARS_AHEAD = 5
