"""The Commission's demo rounds (issue 3), on top of `valuation.demo.base.seed_demo`.

`seed_commission_demo(store)` plays, through the store API exactly as the users would
(`rounds.open_round`, `import_assessments`, `record_assessment`, `close_round`,
`record_decisions`, `publish_round`, `rates.import_rates`), a short
history of the Interministerial Commission (Lei 7.542/1986 art. 20 §3; art. 21 §2):

- the president (`cmg.tavares`) imports a PTAX-style series of USD/EUR/GBP rates;
- round 1 of DPC-EX-2015/01 (Nau Espírito Santo) over its first 240 items: the six
  members upload their sheets (one member values coins in USD, another ceramics in
  EUR, at the rate of the price date), one member corrects three entries, the
  president closes the round, records the decisions (the consensus, plus one item
  overridden with its reason) and publishes them;
- round 1 of DPC-EX-2021/02 (Galeão Santo Antônio de Pádua) over 120 items: entered
  and closed, waiting for the president's decisions;
- round 2 of DPC-EX-2015/01 over the items flagged in round 1 (split votes, one
  outlying value): open, three members have entered revised values.

Deterministic: the votes and values come from a seeded generator in item-code order,
and the store's clock is held at fixed moments of September–November 2026 while the
demo runs (so the minutes show plausible dates and two runs give the same rows). It
does nothing when the database already has assessment rounds. Small: a few hundred
items, one sheet per member and round (its time: bench/README.md, "Exports and demo").
"""
from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterator
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from valuation.commission.decisions import DecisionInput, record_decisions
from valuation.commission.entries import record_assessment
from valuation.commission.rates import import_rates
from valuation.commission.rounds import Round, close_round, open_round, publish_round
from valuation.commission.sheet_import import import_assessments
from valuation.core.errors import ConflictError
from valuation.db.access import Principal
from valuation.demo.base import DEMO_SEED, DEMO_USERNAMES_BY_ROLE

if TYPE_CHECKING:
    from valuation.db.store import Store

PUBLISHED_CONTRACT = "DPC-EX-2015/01"   # round 1 published, round 2 (flagged items) open
CLOSED_CONTRACT = "DPC-EX-2021/02"      # round 1 closed, waiting for the decisions
ROUND_ITEMS = {PUBLISHED_CONTRACT: 240, CLOSED_CONTRACT: 120}
CURRENCIES = ("USD", "EUR", "GBP")
_START_RATE = {"USD": Decimal("5.4120"), "EUR": Decimal("6.2850"), "GBP": Decimal("7.2310")}
_Q4 = Decimal("0.0001")
_CENT = Decimal("0.01")

# Reference values (R$) of one piece by (category, material); a lot of q pieces is worth
# base × q^0.85 (lots are sold at a discount). Fictional figures of the right order.
_BASE: dict[tuple[str, str], int] = {
    ("moedas", "prata"): 1500, ("moedas", "ouro"): 14000, ("moedas", "cobre"): 120,
    ("cerâmica", "cerâmica"): 900, ("cerâmica", "faiança"): 1600, ("cerâmica", "porcelana"): 4200,
    ("cerâmica", "grés"): 700, ("vidro", "vidro"): 650, ("artilharia", "bronze"): 380000,
    ("artilharia", "ferro"): 45000, ("lingotes", "prata"): 160000, ("lingotes", "cobre"): 6000,
    ("lingotes", "estanho"): 9000, ("instrumentos de navegação", "bronze"): 850000,
    ("objetos pessoais", "ouro"): 12000, ("objetos pessoais", "prata"): 2600,
    ("equipamento de bordo", "bronze"): 48000,
}
_BASE_BY_CATEGORY: dict[str, int] = {
    "munição": 250, "armamento portátil": 3500, "instrumentos de navegação": 18000, "objetos pessoais": 400,
    "ferragens": 150, "equipamento de bordo": 6000, "estrutura do casco": 1200,
}
# Significance (1–5) a member would give, around which the scores vary by one.
_SIGNIFICANCE: dict[str, int] = {
    "instrumentos de navegação": 5, "artilharia": 4, "lingotes": 4, "moedas": 3, "objetos pessoais": 3,
    "equipamento de bordo": 3, "cerâmica": 2, "vidro": 2, "armamento portátil": 3, "munição": 2,
}
SOURCE_NOTES = {
    "venda_comparavel": "Leilão internacional de numismática: lotes comparáveis",
    "catalogo": "Catálogo de leilão especializado em arte e antiguidades",
    "avaliacao_externa": "Laudo de casa de leilões especializada (organização de renome, art. 21 §2)",
}
OVERRIDE_REASON = ("Valor ajustado ao laudo externo apresentado em sessão (art. 21 §2): a dispersão decorreu de "
                   "um único valor isolado, afastado pela Comissão.")


# -- the clock -------------------------------------------------------------------------------
@contextlib.contextmanager
def held_clock(store: Store) -> Iterator[Callable[[datetime], None]]:
    """Hold the store's clock at moments the demo sets (restored afterwards)."""
    moment: list[datetime | None] = [None]
    original = getattr(store, "_clock", None)
    if original is None:      # a store without a settable clock: real time
        yield lambda when: None
        return
    store._clock = lambda: moment[0] or original()
    try:
        yield lambda when: moment.__setitem__(0, when)
    finally:
        store._clock = original


def _at(day: date, hour: int = 10, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute))


def _business_days(first: date, last: date) -> list[date]:
    out, d = [], first
    while d <= last:
        if d.weekday() < 5:
            out.append(d)
        d += timedelta(days=1)
    return out


# -- people ------------------------------------------------------------------------------
def _principal(store: Store, username: str) -> Principal:
    row = store.fetch_one("SELECT id, username, full_name, role, organisation_id, commission_body FROM users "
                          "WHERE username = ?", [username])
    if row is None:
        raise ConflictError(f"Usuário {username} da demonstração não encontrado: carregue antes seed_demo.")
    return Principal(id=int(row["id"]), username=row["username"], full_name=row["full_name"], role=row["role"],
                     organisation_id=row["organisation_id"], commission_body=row["commission_body"])


def demo_panel(store: Store) -> tuple[Principal, list[Principal]]:
    """(president, the six members with the president first)."""
    president = _principal(store, DEMO_USERNAMES_BY_ROLE["commission_president"][0])
    others = [_principal(store, u) for u in DEMO_USERNAMES_BY_ROLE["commission"]]
    return president, [president, *others]


# -- rates -----------------------------------------------------------------------------------
def _rate_series(days: list[date], rng: random.Random, start: dict[str, Decimal]) -> tuple[str, dict[str, Decimal]]:
    """A PTAX-style CSV (data;moeda;taxa, decimal comma) of a random walk; returns the last rates."""
    lines = ["data;moeda;taxa"]
    level = dict(start)
    for d in days:
        for cur in CURRENCIES:
            step = Decimal(rng.randint(-300, 300)) / Decimal(10000) * level[cur] / Decimal(10)
            level[cur] = (level[cur] + step).quantize(_Q4, rounding=ROUND_HALF_UP)
            lines.append(f"{d:%d/%m/%Y};{cur};{str(level[cur]).replace('.', ',')}")
    return "\n".join(lines) + "\n", level


def _rates_on(store: Store) -> dict[tuple[str, date], Decimal]:
    return {(r["currency"], r["day"]): r["brl"] for r in store.fetch("SELECT currency, day, brl FROM fx_rates")}


# -- what each member enters -------------------------------------------------------------------
def _reference(item: dict[str, Any]) -> Decimal:
    base = _BASE.get((item["category"], item["material"]), _BASE_BY_CATEGORY.get(item["category"], 1000))
    q = max(int(item["quantity"] or 1), 1)
    lot = Decimal(f"{q ** 0.85:.3f}")        # not money: a size factor, fixed to 3 places
    return (Decimal(base) * lot).quantize(_CENT, rounding=ROUND_HALF_UP)


def _truly_historical(item: dict[str, Any]) -> bool:
    return not (item["category"] == "ferragens" or (item["category"] == "estrutura do casco"
                                                     and item["material"] == "pedra"))


def _source(item: dict[str, Any]) -> str:
    if item["category"] == "moedas":
        return "venda_comparavel"
    if item["category"] in ("artilharia", "instrumentos de navegação", "lingotes"):
        return "avaliacao_externa"
    return "catalogo"


def plan_round(items: list[dict[str, Any]], members: list[Principal], rng: random.Random) -> dict[int, list[dict]]:
    """Per member id, the entries of every item: votes (with ties, dissents, abstentions) and
    values around each item's reference (one outlier now and then)."""
    n = len(members)
    plan: dict[int, list[dict]] = {m.id: [] for m in members}
    for item in items:
        truth = _truly_historical(item)
        ref = _reference(item)
        u = rng.random()
        votes: list[bool | None] = [truth] * n
        outlier: int | None = None
        if u < 0.04:                                   # split 3–3: the president's vote decides
            votes = [truth, truth, truth, not truth, not truth, not truth]
        elif u < 0.08:                                 # one member's value far off
            outlier = 1 + rng.randrange(n - 1)
        elif u < 0.10:                                 # only three vote: no quorum
            votes = [truth, truth, truth, None, None, None]
        elif u < 0.25:                                 # one dissent (5–1)
            votes[1 + rng.randrange(n - 1)] = not truth
        sig_base = _SIGNIFICANCE.get(item["category"], 2)
        for k, m in enumerate(members):
            factor = Decimal(1000 + rng.randint(-120, 120)) / Decimal(1000)
            if k == outlier:
                factor = Decimal("3.2") if rng.random() < 0.5 else Decimal("0.35")
            value = (ref * factor).quantize(_CENT, rounding=ROUND_HALF_UP)
            vote = votes[k]
            sig = min(5, max(1, sig_base + rng.choice((-1, 0, 0, 1)))) if vote else None
            plan[m.id].append({"item": item, "historical": vote, "brl": value, "significance": sig,
                               "must_keep": bool(vote) and sig == 5, "source": _source(item)})
    return plan


def _currency_for(member_index: int, item: dict[str, Any]) -> str:
    if member_index == 5 and item["category"] == "moedas":
        return "USD"
    if member_index == 4 and item["category"] in ("cerâmica", "vidro"):
        return "EUR"
    if member_index == 3 and item["category"] == "instrumentos de navegação":
        return "GBP"
    return "BRL"


def _sheet(entries: list[dict], member_index: int, price_days: list[date], rates: dict[tuple[str, date], Decimal],
           rng: random.Random) -> bytes:
    """The member's sheet (pt-BR CSV) for `commission.import_assessments`."""
    lines = ["codigo;historico;valor;moeda;data_do_preco;significancia;manter;fonte;observacao"]
    for e in entries:
        item = e["item"]
        cur = _currency_for(member_index, item)
        day = price_days[rng.randrange(len(price_days))]
        amount = e["brl"] if cur == "BRL" else (e["brl"] / rates[(cur, day)]).quantize(_CENT, ROUND_HALF_UP)
        vote = "" if e["historical"] is None else "sim" if e["historical"] else "não"
        sig = "" if e["significance"] is None else str(e["significance"])
        keep = ("sim" if e["must_keep"] else "não") if e["historical"] else ""
        src = e["source"]
        note = SOURCE_NOTES[src] if src == "avaliacao_externa" or rng.random() < 0.3 else ""
        lines.append(f"{item['item_code']};{vote};{str(amount).replace('.', ',')};{cur};{day:%d/%m/%Y};{sig};{keep};"
                     f"{src};{note}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def contract_items(store: Store, contract: str, n: int) -> list[dict[str, Any]]:
    return store.fetch(
        "SELECT i.id, i.item_code, i.description, i.category, i.material, i.quantity FROM items i "
        "JOIN contracts c ON c.id = i.contract_id WHERE c.code = ? ORDER BY i.item_code LIMIT ?", [contract, n])


def _enter_round(store: Store, clock: Callable[[datetime], None], rnd: Round, members: list[Principal],
                 plan: dict[int, list[dict]], first_day: date, price_days: list[date], rng: random.Random) -> int:
    """Each member uploads a sheet on a different day (in the order the panel lists them)."""
    rates = _rates_on(store)
    rows = 0
    for k, m in enumerate(members):
        clock(_at(first_day + timedelta(days=2 * k), 9 + k, 15))
        data = _sheet(plan[m.id], k, price_days, rates, rng)
        result = import_assessments(store, m, rnd.id, data, f"avaliacao_rodada{rnd.number}_{m.username}.csv")
        rows += result.rows
    return rows


# -- the demo --------------------------------------------------------------------------------
Clock = Callable[[datetime], None]


def seed_commission_demo(store: Store) -> dict[str, int]:
    """Play the Commission's demo history (module docstring); returns what was added."""
    if int(store.scalar("SELECT count(*) FROM assessment_rounds")):
        return {"rounds": 0}
    if not store.fetch_one("SELECT 1 AS x FROM contracts WHERE code = ?", [PUBLISHED_CONTRACT]):
        return {"rounds": 0}      # not the demo data set
    president, members = demo_panel(store)
    dpc = _principal(store, DEMO_USERNAMES_BY_ROLE["dpc"][0])
    rng = random.Random(DEMO_SEED * 3 + 20)
    counts: dict[str, int] = {"rates": 0, "rounds": 0, "entries": 0, "decisions": 0, "published_rounds": 0}
    with held_clock(store) as clock:
        a1, items_a, level = _published_round(store, clock, president, members, rng, counts)
        days_2 = _closed_round(store, clock, president, dpc, members, rng, level, counts)
        _flagged_round(store, clock, president, members, rng, a1, items_a, days_2, counts)
        counts["rounds"] = 3
    store.checkpoint()
    return counts


def _published_round(store: Store, clock: Clock, president: Principal, members: list[Principal],
                     rng: random.Random, counts: dict[str, int]) -> tuple[Round, list[dict[str, Any]],
                                                                          dict[str, Decimal]]:
    """The president imports the PTAX series up to the eve of round 1; round 1 of the published
    contract is entered, corrected, closed, decided (one item overridden) and published.
    Returns (the round, its items, the rates' last level)."""
    days_1 = _business_days(date(2026, 8, 3), date(2026, 9, 11))
    csv_1, level = _rate_series(days_1, rng, _START_RATE)
    clock(_at(date(2026, 9, 14), 8, 30))
    counts["rates"] += import_rates(store, president, csv_1.encode("utf-8"), "ptax_2026-08_09.csv").added
    items_a = contract_items(store, PUBLISHED_CONTRACT, ROUND_ITEMS[PUBLISHED_CONTRACT])
    clock(_at(date(2026, 9, 14), 10))
    a1 = open_round(store, president, PUBLISHED_CONTRACT, [int(i["id"]) for i in items_a])
    plan_a = plan_round(items_a, members, rng)
    counts["entries"] += _enter_round(store, clock, a1, members, plan_a, date(2026, 9, 15), days_1[-20:], rng)
    # A member corrects three of her values (each correction is a new row of the trail).
    corrector = members[1]
    for j, e in enumerate(plan_a[corrector.id][3:6]):
        clock(_at(date(2026, 10, 5), 14, 10 * j))
        record_assessment(
            store, corrector, a1.id, int(e["item"]["id"]), historical=e["historical"],
            amount=(e["brl"] * Decimal("1.05")).quantize(_CENT, ROUND_HALF_UP), currency="BRL",
            price_date=days_1[-1], significance=e["significance"],
            must_keep=e["must_keep"] if e["historical"] else None, source="catalogo",
            source_note="Correção: catálogo mais recente")
        counts["entries"] += 1
    clock(_at(date(2026, 10, 6), 17))
    close_round(store, president, a1.id)
    clock(_at(date(2026, 10, 13), 10))
    counts["decisions"] += record_decisions(store, president, a1.id).written
    counts["decisions"] += _override_outlier(store, clock, president, a1, items_a)
    clock(_at(date(2026, 10, 15), 15))
    publish_round(store, president, a1.id)
    counts["published_rounds"] += 1
    return a1, items_a, level


def _override_outlier(store: Store, clock: Clock, president: Principal, rnd: Round,
                      items: list[dict[str, Any]]) -> int:
    """Override one item whose values were far apart, with the reason in the basis (decisions written)."""
    outlier = store.fetch_one(
        "SELECT ic.item_id, ic.historical, ic.value_brl FROM item_consensus ic JOIN items i ON i.id = ic.item_id "
        "WHERE ic.round_id = ? AND ic.flagged AND ic.spread > 0.5 AND ic.historical "
        "ORDER BY i.item_code LIMIT 1", [rnd.id])
    if outlier is None:
        return 0
    ref = next(_reference(i) for i in items if int(i["id"]) == int(outlier["item_id"]))
    clock(_at(date(2026, 10, 13), 10, 30))
    return record_decisions(store, president, rnd.id, [DecisionInput(
        item_id=int(outlier["item_id"]), historical=True, value_brl=ref, significance=4, must_keep=False,
        basis=f"Decisão do presidente, divergente do consenso: {OVERRIDE_REASON}")]).written


def _closed_round(store: Store, clock: Clock, president: Principal, dpc: Principal, members: list[Principal],
                  rng: random.Random, level: dict[str, Decimal], counts: dict[str, int]) -> list[date]:
    """The DPC imports the next rates; round 1 of the second contract is entered and closed.
    Returns the business days of those rates."""
    days_2 = _business_days(date(2026, 9, 14), date(2026, 10, 16))
    csv_2, _ = _rate_series(days_2, rng, level)
    clock(_at(date(2026, 10, 19), 8, 45))
    counts["rates"] += import_rates(store, dpc, csv_2.encode("utf-8"), "ptax_2026-09_10.csv").added
    items_b = contract_items(store, CLOSED_CONTRACT, ROUND_ITEMS[CLOSED_CONTRACT])
    clock(_at(date(2026, 10, 19), 10))
    b1 = open_round(store, president, CLOSED_CONTRACT, [int(i["id"]) for i in items_b])
    plan_b = plan_round(items_b, members, rng)
    counts["entries"] += _enter_round(store, clock, b1, members, plan_b, date(2026, 10, 20), days_2[-15:], rng)
    clock(_at(date(2026, 11, 10), 17))
    close_round(store, president, b1.id)
    return days_2


def _flagged_round(store: Store, clock: Clock, president: Principal, members: list[Principal], rng: random.Random,
                   a1: Round, items_a: list[dict[str, Any]], days_2: list[date], counts: dict[str, int]) -> None:
    """Round 2 over the items flagged in round 1: three members have revised their values."""
    clock(_at(date(2026, 11, 16), 10))
    a2 = open_round(store, president, PUBLISHED_CONTRACT, from_round=a1.id)
    flagged = store.fetch("SELECT ri.item_id, i.item_code FROM round_items ri JOIN items i ON i.id = ri.item_id "
                          "WHERE ri.round_id = ? ORDER BY i.item_code", [a2.id])
    by_id = {int(i["id"]): i for i in items_a}
    revised: dict[int, list[dict[str, Any]]] = {
        m.id: [{"item": by_id[int(f["item_id"])], "historical": _truly_historical(by_id[int(f["item_id"])]),
                "brl": (_reference(by_id[int(f["item_id"])]) * Decimal(1000 + rng.randint(-60, 60))
                        / 1000).quantize(_CENT, ROUND_HALF_UP),
                "significance": None, "must_keep": False, "source": _source(by_id[int(f["item_id"])])}
               for f in flagged] for m in members[:3]}
    for entries in revised.values():
        for e in entries:
            if e["historical"]:
                e["significance"] = _SIGNIFICANCE.get(e["item"]["category"], 2)
    counts["entries"] += _enter_round(store, clock, a2, members[:3], revised, date(2026, 11, 17),
                                      days_2[-5:], rng)


__all__ = ["CLOSED_CONTRACT", "OVERRIDE_REASON", "PUBLISHED_CONTRACT", "ROUND_ITEMS", "seed_commission_demo"]
