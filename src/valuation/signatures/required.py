"""Who must sign each kind of issued document, and how far its signing has gone (issue 27 §2). Pure.

    required_signers(kind, president=…, members=…, authority=…)     → the people, in the order printed
    progress(required, signed_user_ids)                              → Progress: 'assinado por 4 de 6', who is missing

- the minutes of a round ("Ata da Comissão de Avaliação"): every member who took part in the round and its
  president — the names under "8. Assinaturas" of the minutes (`commission.minutes`), Lei 7.542/1986
  art. 20 §3 (the Commission's decision is an act of the whole panel);
- a partition statement: the DPC authority who issued it (the user who issued the document). The
  explorer's acknowledgement is not required: the statement is the Naval Authority's act applying the
  contract's payment (Lei 7.542/1986 arts. 20 §§ 2 e 4 and 21), notified to the explorer, who may appeal
  (Lei 9.784/1999 art. 56); making an acknowledgement a condition would let the explorer hold the act back;
- a removal order: the DPC authority who issued it (the Naval Authority's summons, Lei 7.542/1986 art. 24);
- every other kind (the annual wrecks map, the office's deadlines, a photo sheet): no signature required.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SIGNED_KINDS = ("minutes", "statement", "removal_order")


@dataclass(frozen=True)
class RequiredSigner:
    user_id: int
    name: str
    cpf: str | None                # None: the user has no CPF registered yet and cannot sign
    role: str                      # pt-BR: 'Presidente da Comissão', 'Membro da Comissão', 'Autoridade (DPC)'


@dataclass(frozen=True)
class Person:
    user_id: int
    name: str
    cpf: str | None


@dataclass(frozen=True)
class Progress:
    required: tuple[RequiredSigner, ...]
    signed: tuple[RequiredSigner, ...]
    missing: tuple[RequiredSigner, ...]

    @property
    def complete(self) -> bool:
        return bool(self.required) and not self.missing

    @property
    def text(self) -> str:
        if not self.required:
            return "sem assinaturas exigidas"
        return f"assinado por {len(self.signed)} de {len(self.required)}"

    @property
    def missing_text(self) -> str:
        """'falta: Fulano (Membro da Comissão), Beltrano (sem CPF cadastrado)' or ''."""
        if not self.missing:
            return ""
        return "falta: " + ", ".join(f"{m.name} ({m.role}{'' if m.cpf else ', sem CPF cadastrado'})"
                                     for m in self.missing)


def required_signers(kind: str, *, president: Person | None = None, members: Sequence[Person] = (),
                     authority: Person | None = None) -> tuple[RequiredSigner, ...]:
    """The people who must sign a document of `kind` (see the module), each once, president first."""
    out: list[RequiredSigner] = []
    if kind == "minutes":
        if president is not None:
            out.append(RequiredSigner(president.user_id, president.name, president.cpf, "Presidente da Comissão"))
        out += [RequiredSigner(m.user_id, m.name, m.cpf, "Membro da Comissão") for m in members]
    elif kind in ("statement", "removal_order") and authority is not None:
        out.append(RequiredSigner(authority.user_id, authority.name, authority.cpf, "Autoridade (DPC)"))
    seen: set[int] = set()
    unique = []
    for signer in out:
        if signer.user_id not in seen:
            seen.add(signer.user_id)
            unique.append(signer)
    return tuple(unique)


def progress(required: Sequence[RequiredSigner], signed_user_ids: Iterable[int]) -> Progress:
    done = set(signed_user_ids)
    return Progress(tuple(required), tuple(r for r in required if r.user_id in done),
                    tuple(r for r in required if r.user_id not in done))
