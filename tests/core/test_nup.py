"""The NUP's check digits (Portaria Interministerial MJSP/ME nº 11/2019, annex: the modulo-11 digits of the
revoked Portaria SLTI/MP nº 3/2003), against NUPs printed in public documents, and its refusals."""
from __future__ import annotations

import pytest

from valuation.core import nup
from valuation.core.errors import InputError

# (NUP as printed, where it was printed). Each number was copied from the document named, not computed.
REAL_NUPS = (
    ("60041.001093/2020-97", "Portaria GM-MD nº 1.342, de 17/03/2021 (Ministério da Defesa, NUP no âmbito dos Comandos "
                             "da Marinha, Exército e Aeronáutica), preâmbulo: mdlegis.defesa.gov.br/norma_html/"
                             "?ANO=2021&NUM=1342&SER=A"),
    ("48051.004086/2021-11", "ANM, Nota Técnica SEI nº 1948/2024-NUGOR/COPRE/SRG-ANM/DIRC, cabeçalho (sei.anm.gov.br, "
                             "consulta externa)"),
    ("00058.055636/2023-28", "ANAC, Nota Técnica nº 23/2024/CPCON/GTSG/GLOG/SAF, sumário executivo (sei.anac.gov.br, "
                             "consulta externa)"),
    ("10154.131998/2021-26", "AGU, Parecer n. 00780/2022/NUCJUR/E-CJU/PATRIMÔNIO/CGU/AGU, cabeçalho "
                             "(sapiens.agu.gov.br/valida_publico?id=997583996)"),
    ("48610.011686/2004-44", "Decreto de 2005 (Gasoduto Urucu-Manaus, Petrobras), preâmbulo: 'Processo ANP nº ...' "
                             "(planalto.gov.br/CCIVIL_03/_Ato2004-2006/2005/Dnn/Dnn10510.htm)"),
    ("23255.009866/2019-16", "AGU/PGF, Parecer Referencial n. 00001/2021/GABPROC/PFIFCEARÁ/PGF/AGU, cabeçalho"),
    ("99928.000030/2014-35", "CGU/Ouvidoria-Geral da União, parecer sobre recurso de acesso à informação (SERPRO), "
                             "campo Referência"),
)


@pytest.mark.parametrize(("printed", "source"), REAL_NUPS, ids=[n for n, _ in REAL_NUPS])
def test_the_check_digits_of_real_nups(printed: str, source: str) -> None:
    digits = printed.replace(".", "").replace("/", "").replace("-", "")
    assert nup.check_digits(digits[:15]) == digits[15:], source
    parsed = nup.parse(printed)
    assert str(parsed) == printed and parsed.digits == digits
    assert nup.parse(digits) == parsed            # without punctuation too


# (name, base of 15 digits, expected check digits, why) — the two mappings of the annex, worked by hand
MAPPINGS = (
    # 48051.004086/2021 (the ANM number above): the weighted sum of its 15 digits ≡ 0 (mod 11): 11 - 0 = 11 → 1
    ("11 becomes 1", "480510040862021", "11", "first digit: 11 - 0 = 11 → 1"),
    # 00000 000001 2026: sum = 2·6 + 3·2 + 4·0 + 5·2 + 6·1 = 34 ≡ 1 → 11 - 1 = 10 → 0;
    # second over '0000000000120260': 0·2 + 6·3 + 2·4 + 0·5 + 2·6 + 1·7 = 45 ≡ 1 → 10 → 0
    ("10 becomes 0", "000000000012026", "00", "11 - 1 = 10 → 0, twice"),
)


@pytest.mark.parametrize(("name", "base", "expected", "why"), MAPPINGS, ids=[m[0] for m in MAPPINGS])
def test_the_annex_maps_ten_to_zero_and_eleven_to_one(name: str, base: str, expected: str, why: str) -> None:
    assert nup.check_digits(base) == expected, why


def test_make_and_format() -> None:
    made = nup.make("60041", 1093, 2020)
    assert str(made) == "60041.001093/2020-97"
    assert nup.format_nup("60041001093202097") == "60041.001093/2020-97"
    with pytest.raises(ValueError):
        nup.make("6004", 1, 2020)
    with pytest.raises(ValueError):
        nup.make("60041", 1_000_000, 2020)


REFUSED = (
    ("wrong first check digit", "60041.001093/2020-87", "Dígito verificador"),
    ("wrong second check digit", "60041.001093/2020-98", "Dígito verificador"),
    ("two digits swapped", "60041.010093/2020-97", "Dígito verificador"),
    ("16 digits", "60041.001093/2020-9", "17 dígitos"),
    ("letters", "6004A.001093/2020-97", "17 dígitos"),
    ("punctuated otherwise", "600.41001093/2020-97", "se escreve"),
    ("empty", "   ", "Informe o NUP"),
    ("too long", "6" * 41, "longo demais"),
    ("the 21 digits of the revoked Portaria 2.321/2014", "0000806.01000017/2016-58", "17 dígitos"),
)


@pytest.mark.parametrize(("name", "text", "said"), REFUSED, ids=[r[0] for r in REFUSED])
def test_a_wrong_nup_is_refused_naming_the_field(name: str, text: str, said: str) -> None:
    with pytest.raises(InputError) as caught:
        nup.parse(text, field="NUP do processo")
    problem = caught.value.problems[0]
    assert problem.path == "NUP do processo"
    assert said in problem.message
    assert not nup.is_valid(text)
