"""Passwords: argon2id hashes (argon2-cffi defaults, RFC 9106 low-memory profile) and the rule a new
password must meet. Hashes are never logged, returned or audited."""
from __future__ import annotations

from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

MIN_PASSWORD_LENGTH = 10         # NIST SP 800-63B asks for at least 8; we ask a little more


# -- passwords --------------------------------------------------------------------
_hasher = PasswordHasher()  # argon2id; t=3, m=64 MiB, p=4 (RFC 9106 low-memory profile)


def hash_password(plain: str) -> str:
    """An argon2id hash of `plain` (salted; two calls give different strings)."""
    return _hasher.hash(plain)


def verify_password(hash_: str, plain: str) -> bool:
    """True when `plain` matches `hash_`; False for a mismatch or a malformed hash."""
    try:
        return _hasher.verify(hash_, plain)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


@lru_cache(maxsize=1)
def dummy_hash() -> str:
    """A hash to verify against when there is no user (the same work as a real check: `login`)."""
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
