"""Demo data: the recovered items (templates and per-contract profiles) and their deliveries to
the Naval Authority (art. 23), generated vectorised from the demo's seed by `item_frame`."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import numpy as np

from valuation.demo.constants import DEMO_TODAY

_D = date

# --------------------------------------------------------------------------------------
# Recovered items: templates and per-contract profiles.
# template key -> (category, material, description, qty_min, qty_max, unit weight g, weight spread)
# --------------------------------------------------------------------------------------

ITEM_TEMPLATES: dict[str, tuple[str, str, str, int, int, float, float]] = {
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
ITEM_PLAN: dict[str, tuple[int, dict[str, float]]] = {
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
DELIVERY_UNTIL: dict[str, date] = {
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

CONDITIONS = ("bom", "regular", "concrecionado", "fragmentado", "frágil")
CONDITION_P = (0.34, 0.30, 0.18, 0.12, 0.06)
ITEM_NOTES = ("Em dessalinização no laboratório de conservação.", "Registro fotográfico completo.",
          "Necessita conservação preventiva.", "Marcas de fabricante legíveis.")


def item_frame(rng: np.random.Generator, contract_id: int, code: str, start: date, end: date,
                depth: Decimal, count: int, profile: dict[str, float], deliver_until: date,
                place: str, received_by: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Columns of `count` items recovered under one contract between `start` and `end`, and of
    the deliveries of those recovered up to `deliver_until` (vectorised: no per-row Python)."""
    keys = [k for k, w in profile.items() if w > 0]
    weights = np.array([profile[k] for k in keys], dtype=float)
    pick = rng.choice(len(keys), size=count, p=weights / weights.sum())
    tpl = [ITEM_TEMPLATES[k] for k in keys]
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
    cond = rng.choice(len(CONDITIONS), size=count, p=CONDITION_P)
    has_note = rng.random(count) < 0.06
    note_idx = rng.integers(0, len(ITEM_NOTES), size=count)
    grid_l = rng.integers(0, 8, size=count)
    grid_n = rng.integers(1, 13, size=count)

    days = [start + timedelta(days=int(o)) for o in offsets]
    archaeological = code.startswith("DPC-EX")
    lots = [(f"{d.year}/{d.month:02d} · quadrícula {'ABCDEFGH'[gl]}{gn}" if archaeological
             else f"Campanha {d.year}/{d.month:02d}") for d, gl, gn in zip(days, grid_l, grid_n)]
    items: dict[str, Any] = {
        "contract_id": np.full(count, contract_id, dtype=np.int64),
        "item_code": [f"{code}-{i + 1:05d}" for i in range(count)],
        "description": [ITEM_TEMPLATES[keys[p]][2] for p in pick],
        "category": [ITEM_TEMPLATES[keys[p]][0] for p in pick],
        "material": [ITEM_TEMPLATES[keys[p]][1] for p in pick],
        "quantity": qty.astype(np.int32),
        "weight_g": [f"{w // 100}.{w % 100:02d}" if ok else None for w, ok in zip(weight_cg, weighed)],
        "recovered_on": days,
        "depth_m": [f"{d // 100}.{d % 100:02d}" for d in depth_cm],
        "lot": lots,
        "condition": [CONDITIONS[c] for c in cond],
        "notes": [ITEM_NOTES[n] if h else None for n, h in zip(note_idx, has_note)],
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
