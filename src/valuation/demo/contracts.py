"""Demo data: the authorisations and contracts (surveys, explorations, removals, demolitions) with
their payment terms (Lei 7.542 arts. 20–21) and the operations window of those with items.
Seeded by `valuation.demo.base.seed_demo`."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

_D = date

# --------------------------------------------------------------------------------------
# Contracts. Dates: requested, signed, starts, expires, work ended, cancelled.
# --------------------------------------------------------------------------------------

CONTRACT_FIELDS = ("code", "kind", "act", "act_number", "org", "wreck", "office", "requested_on", "signed_on",
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
    # A competing request for the same galera (art. 16 §2): Salvamar located it (I), Oceanic did not.
    _c("CPES-EX-2026/02", "exploração", "contrato", None, "oceanic", "ES-001", "CPES",
       (_D(2026, 10, 9), None, None, None, None), "solicitado", surveyor="salvamar"),
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
OPS_END: dict[str, date] = {
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
