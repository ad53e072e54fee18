"""The work one upload may cost: decoded pixels per upload and per user per hour (issue 24, item 8).

Decoding and re-encoding an image costs CPU and memory in proportion to its pixels (here ~45 ms and
4 bytes a megapixel), not its bytes: a ZIP of 100 single-colour 50-megapixel WebP photos weighs 8.9 MB
and took 226 s of a core. So before any pixel is decoded every image of an upload is sniffed and its
size read from its header (`images.declared_size`), and the upload is refused when

- its images add up to more than `MAX_UPLOAD_PIXELS`, or
- with what the same user had decoded in the last hour, more than `MAX_HOURLY_PIXELS`.

The hour is counted in this process (`LEDGER`, per database and username): what an upload decodes is
spent before it is decoded, refused or not afterwards, so a file made to fail after its decoding still
costs its sender. A restart forgets the hour (the service is one process; a restart is rare and the
per-upload bound still holds). The clock is `time.monotonic` unless a test gives another.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from valuation.core.errors import InputError, Problem

MAX_UPLOAD_PIXELS = 1_000_000_000        # 1 000 megapixels an upload: ~45 s of a core here (20 × 50 MP)
MAX_HOURLY_PIXELS = 3_000_000_000        # 3 000 megapixels a user an hour (~2 ¼ min of a core)
HOUR_S = 3600.0


def megapixels(n: int) -> str:
    return f"{n / 1_000_000:,.0f}".replace(",", ".") + " megapixels"


class Ledger:
    """Pixels decoded per (database, username) in the last hour."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._spent: dict[tuple[str, str], deque[tuple[float, int]]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: tuple[str, str], now: float) -> deque[tuple[float, int]]:
        entries = self._spent.setdefault(key, deque())
        while entries and entries[0][0] <= now - HOUR_S:
            entries.popleft()
        return entries

    def spent(self, key: tuple[str, str]) -> int:
        with self._lock:
            return sum(n for _at, n in self._recent(key, self.clock()))

    def charge(self, key: tuple[str, str], pixels: int, *, file_name: str) -> None:
        """Spend `pixels` for `key`, or InputError (nothing spent) when an upload or the hour's budget
        would be exceeded."""
        if pixels > MAX_UPLOAD_PIXELS:
            raise InputError(Problem(file_name, f"{file_name}: as imagens somam {megapixels(pixels)}, acima do "
                                                f"limite de {megapixels(MAX_UPLOAD_PIXELS)} por envio — divida o "
                                                "envio em partes menores. Nenhuma imagem foi processada."))
        with self._lock:
            now = self.clock()
            entries = self._recent(key, now)
            used = sum(n for _at, n in entries)
            if used + pixels > MAX_HOURLY_PIXELS:
                free = max(MAX_HOURLY_PIXELS - used, 0)
                raise InputError(Problem(file_name, f"{file_name}: as imagens somam {megapixels(pixels)}; nesta "
                                                    f"hora ainda cabem {megapixels(free)} dos "
                                                    f"{megapixels(MAX_HOURLY_PIXELS)} por usuário — tente mais "
                                                    "tarde. Nenhuma imagem foi processada."))
            entries.append((now, pixels))

    def clear(self) -> None:
        with self._lock:
            self._spent.clear()


LEDGER = Ledger()


def charge(db_path: object, username: str, pixels: Sequence[int], *, file_name: str) -> None:
    """The budget check of one upload (`pixels`: each image's declared size), before any decoding."""
    LEDGER.charge((str(db_path), username), sum(pixels), file_name=file_name)
