"""Who answers for a wreck's things on a day: cessions of the owner's rights (Lei 7.542 art. 8) and the
vessel and its cargo (arts. 13 §1 and 14). Pure: no database, no clock.

- Art. 8: the responsible may cede its rights of disposal to third parties; §1 the cedente and the
  cessionário are jointly liable for the risks and damage to navigation, third parties and the
  environment; §2 the cession must be communicated to the Naval Authority "sob pena de ser anulado o ato".
  Reading (docs/decisions/102-cession-joint-liability.md): an uncommunicated cession has no effect against the
  Authority — the cedente stays the responsible it deals with and the cessionário's requests do not count —,
  but §2's sanction is the act's annulment, not its nullity from the start, and §1 binds cedente and
  cessionário from the cession: the cessionário answers jointly from the day of the cession. From the day a
  cession is communicated the cessionário is the responsible whose requests, deadlines and notices count.
- Art. 13 §1: the vessel's responsible answers jointly with the cargo's responsible for the damage the cargo
  may cause. Art. 14: either may ask for the cargo's removal — the vessel's responsible when the cargo's shows
  no interest (I), the cargo's independently of the vessel's (II).
- The five years of art. 6 are the right of "o responsável" (art. 4) over its things: the vessel's and the
  cargo's run apart. Their suspensions are the wreck's, but ground I ("o responsável iniciar a remoção ou
  demolição") is personal: the removal the vessel's responsible started suspends its own five years, not the
  cargo's (`suspends_part`; docs/decisions/103-cargo-lapse-personal-suspension.md). Only the cargo's own
  responsible's request keeps the cargo's right (art. 14 II); a request of the vessel's responsible to remove
  the cargo (art. 14 I) is a request about the cargo, not the cargo responsible's own licence request.

Below the registry and the deadline engine, which both read it (neither imports the other).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from valuation.core.money import format_date_br as fmt

VESSEL, CARGO = "embarcação", "carga"
PARTS: tuple[str, ...] = (VESSEL, CARGO)
PART_LABELS: dict[str, str] = {VESSEL: "embarcação", CARGO: "carga"}
CESSION_BASIS = "Lei 7.542/1986 art. 8"
JOINT_CESSION = "Lei 7.542/1986 art. 8 §1 (cedente e cessionário solidariamente responsáveis)"
VOID_CESSION = ("cessão não comunicada à Autoridade Naval: não vale perante a Autoridade Naval, que trata com o "
                "cedente, sob pena de ser anulado o ato (Lei 7.542/1986 art. 8 §2)")
JOINT_CARGO = "Lei 7.542/1986 art. 13 §1 (o responsável pela embarcação responde solidariamente pelos danos da carga)"
CARGO_REQUEST_I = "Lei 7.542/1986 art. 14 I"
PERSONAL_GROUND = "I"    # art. 6 sole paragraph I: the responsible's own removal or demolition
GROUND_I_NOT_CARGO = ("Remoção ou demolição iniciada pelo responsável pela embarcação (Lei 7.542/1986 art. 6 parágrafo "
                      "único I): suspensão pessoal, não suspende o prazo do responsável pela carga")
CARGO_REQUEST_II = "Lei 7.542/1986 art. 14 II"


@dataclass(frozen=True)
class Cession:
    """A cession of the rights over one part of a wreck's things (`part`: VESSEL or CARGO) from `cedent`
    to `cessionary` (owner ids) on `ceded_on`, communicated to the Naval Authority on `communicated_on`
    (None: not communicated)."""

    part: str
    cedent: int
    cessionary: int
    ceded_on: date
    communicated_on: date | None = None

    def counts_on(self, day: date) -> bool:
        """Whether the cession binds the Authority on `day` (art. 8 §2): communicated by then."""
        return self.communicated_on is not None and self.communicated_on <= day


@dataclass(frozen=True)
class Request:
    """A request filed for one part of the things by `requester` (an owner id) on `day`."""

    part: str
    requester: int
    day: date


def _chain(original: int | None, cessions: Iterable[Cession], part: str, day: date) -> list[tuple[int, Cession]]:
    """The communicated cessions of `part` that bind the Authority on `day`, in the order they took effect,
    each with the responsible it passed the rights from (a cession by someone who was not the responsible
    then does not bind the Authority)."""
    out: list[tuple[int, Cession]] = []
    current = original
    valid = [c for c in cessions if c.part == part and c.counts_on(day)]
    for c in sorted(valid, key=lambda c: (c.communicated_on, c.ceded_on)):
        if current is not None and c.cedent == current:
            out.append((current, c))
            current = c.cessionary
    return out


def suspends_part(ground: str, part: str) -> bool:
    """Whether a stored suspension of the wreck's five years (art. 6 sole paragraph, ground I, II, III, or the
    Maritime Court's) suspends `part`'s: every ground the vessel's, all but the personal ground I the cargo's —
    the removal recorded on the wreck is its responsible's (a cargo responsible that removes its cargo has asked
    for it, art. 14 II, and its request already keeps its right)."""
    return not (part == CARGO and ground == PERSONAL_GROUND)


def responsible_on(original: int | None, cessions: Iterable[Cession], part: str, day: date) -> int | None:
    """The responsible for `part` the Authority deals with on `day`: the original responsible, or the
    cessionário of the last cession communicated by then (art. 8 §2)."""
    chain = _chain(original, list(cessions), part, day)
    return chain[-1][1].cessionary if chain else original


def liable_on(original: int | None, cessions: Iterable[Cession], part: str, day: date) -> tuple[int, ...]:
    """Who answers jointly for `part` on `day` (art. 8 §1): the original responsible and every cedente and
    cessionário of the cessions made by then from it, communicated or not — §1 binds them from the cession; the
    communication (§2) decides only whom the Authority deals with (`responsible_on`). A cession by someone who
    answered for nothing binds no one."""
    people = [original] if original is not None else []
    for c in sorted((c for c in cessions if c.part == part and c.ceded_on <= day), key=lambda c: c.ceded_on):
        if c.cedent in people and c.cessionary not in people:
            people.append(c.cessionary)
    return tuple(people)


def counted_request(original: int | None, cessions: Sequence[Cession], requests: Iterable[Request], part: str,
                    recorded: date | None = None) -> tuple[date | None, tuple[str, ...]]:
    """The licence request that counts for `part` (arts. 4 and 6; art. 8 §2; art. 14 II): the earliest one
    filed by whoever was the responsible for that part on the day it was filed. `recorded`: a request the
    registry holds without a requester (wrecks.owner_licence_requested), taken as the responsible's.
    Returns (its day or None, steps in pt-BR naming the requests that do not count)."""
    steps: list[str] = []
    days = [recorded] if recorded is not None else []
    for r in sorted((r for r in requests if r.part == part), key=lambda r: r.day):
        if r.requester == responsible_on(original, cessions, part, r.day):
            days.append(r.day)
        else:
            steps.append(f"Pedido de {fmt(r.day)} ({PART_LABELS[part]}): de quem não era o responsável perante a "
                         "Autoridade Naval nesse dia — não conta (art. 8 §2" + ("; art. 14 II)" if part == CARGO
                                                                              else ")"))
    return (min(days) if days else None), tuple(steps)


def cargo_request_problem(requester: int, vessel_responsible: int | None, cargo_responsible: int | None,
                          cargo_interest: bool) -> str | None:
    """Art. 14: who may ask for the cargo's removal. The cargo's responsible always (II); the vessel's
    responsible only while the cargo's has shown no interest (I); anyone else never. None when allowed,
    else the reason (pt-BR)."""
    if cargo_responsible is not None and requester == cargo_responsible:
        return None
    if vessel_responsible is not None and requester == vessel_responsible:
        if cargo_interest:
            return ("o responsável pela carga já manifestou interesse: o responsável pela embarcação só pede a "
                    f"remoção da carga quando não há essa manifestação ({CARGO_REQUEST_I})")
        return None
    return (f"só o responsável pela carga ({CARGO_REQUEST_II}) ou o responsável pela embarcação ({CARGO_REQUEST_I}) "
            "pede a remoção da carga")


@dataclass
class WreckParties:
    """The facts of one wreck's parties as the registry holds them: the vessel's original responsible
    (`owner_id`), the cargo (its row: description, owner_id, declared_lost; None without one), its
    cessions and its named requests."""

    owner_id: int | None
    cargo: dict[str, Any] | None = None
    cessions: list[Cession] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)

    def original(self, part: str) -> int | None:
        return self.owner_id if part == VESSEL else (self.cargo or {}).get("owner_id")

    def responsible(self, part: str, day: date) -> int | None:
        return responsible_on(self.original(part), self.cessions, part, day)


def vessel_and_cargo(w: Mapping[str, Any], p: WreckParties | None, names: Mapping[int, str],
                     as_of: date) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """A wreck's row (owner_declared_lost, owner_licence_requested, …) as the vessel's five years read it —
    the request that counts (art. 8 §2: the responsible's on the day it was filed), `owner_name` the
    responsible the Authority deals with on `as_of`, `request_steps` the requests that do not count — and,
    when it has cargo, the same row for the cargo: its responsible's declaration and request (arts. 13 §1,
    14 II), `cargo` its description and responsible. The domain status and the deadline engine both
    read the two rows so (README "Decisions")."""
    if p is None:
        return dict(w), None
    requested, skipped = counted_request(p.owner_id, p.cessions, p.requests, VESSEL, w.get("owner_licence_requested"))
    current = p.responsible(VESSEL, as_of)
    name = names.get(current) if current is not None else None
    if name and current != p.owner_id:
        name += " (cessionário, Lei 7.542 art. 8)"
    vessel = {**w, "owner_licence_requested": requested, "owner_name": name, "request_steps": skipped}
    if name and current != p.owner_id:
        vessel["request_steps"] = (f"Responsável perante a Autoridade Naval: {name}", *skipped)
    if p.cargo is None:
        return vessel, None
    cargo_requested, cargo_skipped = counted_request(p.original(CARGO), p.cessions, p.requests, CARGO)
    holder = p.responsible(CARGO, as_of)
    holder_name = names.get(holder) if holder is not None else None
    text = str(p.cargo["description"]) + (f" — responsável: {holder_name}" if holder_name else "")
    return vessel, {**w, "owner_declared_lost": p.cargo.get("declared_lost"),
                    "owner_licence_requested": cargo_requested,
                    "owner_name": holder_name, "cargo": text,
                    "request_steps": (f"Carga: {text} ({JOINT_CARGO})", *cargo_skipped)}


__all__ = ["CARGO", "PARTS", "PART_LABELS", "VESSEL", "Cession", "Request", "WreckParties", "cargo_request_problem",
           "counted_request", "liable_on", "responsible_on", "suspends_part", "vessel_and_cargo"]
