"""The one Store of a process, shared by the service's lifespan, its routes, its jobs and the
Streamlit script (issue 13): one DuckDB connection per process, a cursor per request.

    store = open_shared(path)        # first call opens (and migrates); later calls return the same object
    with using(path, read_only=True) as store:   # CLI handlers: the shared Store when this process
        ...                                      # holds one for `path`, else a Store of their own
    close_shared(path)               # checkpoint and close (the service's shutdown)

Paths are compared resolved, so `data/x.duckdb` and its absolute path are one Store.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from valuation.core.errors import StoreError
from valuation.db.store import Store

_lock = threading.Lock()
_stores: dict[str, Store] = {}
_retired: set[str] = set()   # closed by the service's shutdown: never reopened by this process


def _key(path: str | Path) -> str:
    return str(Path(path).resolve())


def open_shared(path: str | Path, **options: Any) -> Store:
    """The process's Store for `path`, opening it (with `options`) on first use or after a close."""
    key = _key(path)
    with _lock:
        store = _stores.get(key)
        if store is None or store.closed:
            if key in _retired:
                raise StoreError("o serviço está sendo encerrado; tente de novo em instantes")
            store = Store(path, **options)
            _stores[key] = store
        return store


def held(path: str | Path) -> Store | None:
    """The open shared Store for `path`, or None."""
    with _lock:
        store = _stores.get(_key(path))
    return store if store is not None and not store.closed else None


@contextmanager
def using(path: str | Path, **options: Any) -> Iterator[Store]:
    """The shared Store when this process holds `path` (left open), else a private one closed after."""
    store = held(path)
    if store is not None:
        yield store
        return
    with Store(path, **options) as own:
        yield own


def close_shared(path: str | Path | None = None, *, final: bool = False) -> None:
    """Checkpoint and close the shared Store of `path` (every one when None); `final`: this
    process will not open it again (the service's shutdown: a late page run gets an error)."""
    with _lock:
        keys = list(_stores) if path is None else [_key(path)]
        if final:
            _retired.update(keys)
        stores = [_stores.pop(k) for k in keys if k in _stores]
    for store in stores:
        store.shutdown()
