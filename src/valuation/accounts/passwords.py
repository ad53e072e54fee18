"""Passwords: argon2id hashes (argon2-cffi defaults, RFC 9106 low-memory profile) and the rule a new
password must meet. Hashes are never logged, returned or audited.

Each hash or check takes 64 MiB and ~0.2 s of a core: at most `MAX_CONCURRENT_HASHES` run at once in
the process (issue 24, item 9: 32 concurrent logins took 1.9 GB). A caller waits up to `HASH_WAIT_S`
for a slot, then gets `HashingBusy` (pt-BR message: try again) — nothing is hashed or checked.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from valuation.core.errors import ConflictError

MIN_PASSWORD_LENGTH = 10         # NIST SP 800-63B asks for at least 8; we ask a little more
MAX_CONCURRENT_HASHES = 2        # argon2 hashes/checks at once (2 × 64 MiB; the server has 2 cores)
HASH_WAIT_S = 10.0               # the longest wait for a free slot
BUSY_MESSAGE = ("O servidor está conferindo muitas senhas ao mesmo tempo. Aguarde alguns segundos e tente "
                "de novo.")
_slots = threading.BoundedSemaphore(MAX_CONCURRENT_HASHES)


class HashingBusy(ConflictError):
    """Every argon2 slot stayed busy for HASH_WAIT_S: nothing was hashed or checked."""

    def __init__(self) -> None:
        super().__init__(BUSY_MESSAGE)


@contextmanager
def hashing_slot() -> Iterator[None]:
    """One of the MAX_CONCURRENT_HASHES slots for an argon2 computation, or HashingBusy."""
    if not _slots.acquire(timeout=HASH_WAIT_S):
        raise HashingBusy()
    try:
        yield
    finally:
        _slots.release()


# -- passwords --------------------------------------------------------------------
_hasher = PasswordHasher()  # argon2id; t=3, m=64 MiB, p=4 (RFC 9106 low-memory profile)


def hash_password(plain: str) -> str:
    """An argon2id hash of `plain` (salted; two calls give different strings); HashingBusy when no slot."""
    with hashing_slot():
        return _hasher.hash(plain)


def verify_password(hash_: str, plain: str) -> bool:
    """True when `plain` matches `hash_`; False for a mismatch or a malformed hash; HashingBusy when
    no slot came free in time."""
    with hashing_slot():
        try:
            return _hasher.verify(hash_, plain)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False


@lru_cache(maxsize=1)
def dummy_hash() -> str:
    """A hash to verify against when there is no user (the same work as a real check: `login`)."""
    with hashing_slot():
        return _hasher.hash("valuation: no such user")


def password_problem(plain: object) -> str | None:
    """Why a new password is refused (pt-BR), or None when acceptable."""
    if not isinstance(plain, str) or len(plain) < MIN_PASSWORD_LENGTH:
        return f"A senha deve ter pelo menos {MIN_PASSWORD_LENGTH} caracteres."
    if len(plain) > 256:
        return "A senha deve ter no máximo 256 caracteres."
    if plain.strip() != plain:
        return "A senha não pode começar nem terminar com espaço."
    return None


def needs_rehash(hash_: str) -> bool:
    """True when `hash_` was made with weaker parameters than today's: re-hash it at the next login."""
    return _hasher.check_needs_rehash(hash_)
