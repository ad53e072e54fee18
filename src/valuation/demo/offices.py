"""Demo data: the Navy's offices on the coast (real: codes, states, naval districts) and a few
municipal holidays of their cities. Seeded by `valuation.demo.base.seed_demo`."""
from __future__ import annotations

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
)
HOLIDAY_YEARS = (2025, 2026, 2027)
