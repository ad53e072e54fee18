"""What every page view would recompute, kept per database revision (issue 17).

    frame = cache.per_revision(store, user, "deadlines", as_of, office,
                               compute=lambda: engine.compute_deadlines(store, user, as_of=as_of, office=office))

The key is (the file, the store's revision, today's date in Brasília, name, the user, the
arguments): `Store.revision`
changes with every transaction the Store commits and is new for every Store opened, and the
service's process is the only writer of its file — so a value computed at revision r is right
for as long as the revision is r, and the first view after any write computes afresh (nothing to
invalidate by hand, no time-to-live); the day is in the key for what reads "today" (a value of
yesterday is never shown the next morning). The user is the whole `Principal`: a value is never shared
between two people, whatever the row scopes decide.

Two sessions that miss the same key at once compute it once: the second waits for the first.
Entries of older revisions are dropped as soon as a newer one is stored; at most `MAX_ENTRIES`
are kept, and frames of at most `MAX_BYTES` in all (least recently used first out; the newest
entry always stays). A DataFrame is handed out as a shallow copy (pandas'
copy-on-write: a page that adds or changes a column changes its own copy only), also inside a tuple;
any other value is
shared and must be treated as read-only (a plotly figure: build it whole inside `compute`).

`clear()` empties the cache; `stats` counts hits and misses (the benchmarks print them).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar, cast

from valuation.core import clock
from valuation.db.access import Principal
from valuation.db.store import Store

if TYPE_CHECKING:  # the capabilities are imported by the function that reads them (a page imports its own)
    import pandas as pd

    from valuation.commission.views import DecisionTotals
    from valuation.inventory.queries import InventorySummary, ItemFilter
    from valuation.partition.choice import PoolSummary

T = TypeVar("T")
# (the file, its revision, today in Brasília, the name, the user, the arguments)
Key = tuple[str, int, date, str, Principal, tuple[Hashable, ...]]
MAX_ENTRIES = 512
MAX_BYTES = 256 * 2**20   # the frames kept, by pandas' shallow memory_usage (least recently used out first)

_lock = threading.Lock()
_entries: OrderedDict[Key, object] = OrderedDict()
_pending: dict[Key, threading.Event] = {}
_newest: dict[str, int] = {}   # store path → newest revision stored
_sizes: dict[Key, int] = {}
stats = {"hits": 0, "misses": 0}


def _handout(value: T) -> T:
    """`value` as a caller may hold it: a DataFrame as a shallow copy (also inside a tuple), the rest as is."""
    if type(value) is tuple:   # (frame, count) and the like; exactly a tuple (a NamedTuple is handed out whole)
        return cast(T, tuple(_handout(v) for v in cast(tuple[object, ...], value)))
    copy = getattr(value, "copy", None)
    if copy is not None and type(value).__name__ == "DataFrame":
        return cast(T, copy(deep=False))
    return value


def size_of(value: object) -> int:
    """Bytes of the DataFrames in `value` (itself or the items of a tuple), shallow; 0 for the rest."""
    if type(value) is tuple:
        return sum(size_of(v) for v in cast(tuple[object, ...], value))
    usage = getattr(value, "memory_usage", None)
    if usage is not None and type(value).__name__ == "DataFrame":
        return int(usage(index=True, deep=False).sum())
    return 0


def _forget(key: Key) -> None:
    """Called under the lock."""
    _entries.pop(key, None)
    _sizes.pop(key, None)


def _drop_older(path: str, revision: int) -> None:
    """Called under the lock: forget every entry of `path` older than `revision`."""
    if _newest.get(path, -1) >= revision:
        return
    _newest[path] = revision
    for key in [k for k in _entries if k[0] == path and k[1] < revision]:
        _forget(key)


def per_revision(store: Store, user: Principal, name: str, *args: Hashable, compute: Callable[[], T]) -> T:
    """`compute()` once per (store revision, user, name, args); see the module docstring."""
    revision = store.revision            # read before computing: the value is at least this fresh
    key: Key = (str(store.path), revision, clock.today_brasilia(), name, user, args)
    while True:
        with _lock:
            if key in _entries:
                _entries.move_to_end(key)
                stats["hits"] += 1
                return _handout(cast(T, _entries[key]))   # stored under this key by compute() -> T
            waiting = _pending.get(key)
            if waiting is None:
                _pending[key] = threading.Event()
                stats["misses"] += 1
                break
        waiting.wait(timeout=60)         # another session computes it; then read it (or compute)
    try:
        value = compute()
        with _lock:
            _drop_older(key[0], revision)
            if _newest.get(key[0], -1) <= revision:   # a newer revision's value is never displaced
                _entries[key] = value
                _sizes[key] = size_of(value)
                while len(_entries) > 1 and (len(_entries) > MAX_ENTRIES or sum(_sizes.values()) > MAX_BYTES):
                    _forget(next(iter(_entries)))
        return _handout(value)
    finally:
        with _lock:
            _pending.pop(key).set()


def clear() -> None:
    with _lock:
        _entries.clear()
        _sizes.clear()
        _newest.clear()
        stats.update(hits=0, misses=0)


# -- what the pages read through it (each a drop-in for the function it names) ---------------------------
def deadlines(store: Store, user: Principal, *, as_of: date, office: str | None = None) -> pd.DataFrame:
    """`deadlines.engine.compute_deadlines` (Prazos: the whole engine over every contract in scope)."""
    from valuation.deadlines import engine

    return per_revision(store, user, "deadlines", as_of, office,
                        compute=lambda: engine.compute_deadlines(store, user, as_of=as_of, office=office))


def authority_deadlines(store: Store, user: Principal, *, as_of: date, office: str | None = None
                        ) -> list[dict[str, Any]]:
    """`proceedings.requests.authority_deadlines` with both sides (`owed_by=None`: the Authority's and the
    parties'), as Prazos reads them — its overview metrics and the tab "O que a Autoridade deve". Read only."""
    from valuation.proceedings import requests

    return per_revision(store, user, "authority_deadlines", as_of, office,
                        compute=lambda: requests.authority_deadlines(store, user, as_of=as_of, office=office,
                                                                     owed_by=None))


def open_requests(store: Store, user: Principal, *, as_of: date, office: str | None = None) -> list[dict[str, Any]]:
    """`proceedings.requests.open_requests` (the tab "O que a Autoridade deve", by age). Read only."""
    from valuation.proceedings import requests

    return per_revision(store, user, "open_requests", as_of, office,
                        compute=lambda: requests.open_requests(store, user, as_of=as_of, office=office))


def undecided_requests(store: Store, user: Principal, *, office: str | None = None) -> list[dict[str, Any]]:
    """`proceedings.requests.undecided_requests` (the DPC's step form chooses among them). Read only."""
    from valuation.proceedings import requests

    return per_revision(store, user, "undecided_requests", office,
                        compute=lambda: requests.undecided_requests(store, user, office=office))


def decision_times(store: Store, user: Principal, *, as_of: date) -> list[dict[str, Any]]:
    """`proceedings.requests.decision_times` (the DPC's chart of the time to decide). Read only."""
    from valuation.proceedings import requests

    return per_revision(store, user, "decision_times", as_of,
                        compute=lambda: requests.decision_times(store, user, as_of=as_of))


def inventory_summary(store: Store, user: Principal, flt: ItemFilter) -> InventorySummary:
    """`inventory.queries.summarise` (Inventário: the totals and the four charts' groups)."""
    from valuation.inventory import queries

    return per_revision(store, user, "inventory.summary", flt, compute=lambda: queries.summarise(store, user, flt))


def inventory_page(store: Store, user: Principal, flt: ItemFilter, *, page: int, page_size: int,
                   order: str) -> pd.DataFrame:
    """`inventory.queries.page_items` (Inventário: the table's page)."""
    from valuation.inventory import queries

    return per_revision(store, user, "inventory.page", flt, page, page_size, order,
                        compute=lambda: queries.page_items(store, user, flt, page=page, page_size=page_size,
                                                           order=order))


def inventory_contracts(store: Store, user: Principal) -> list[dict[str, Any]]:
    from valuation.inventory import queries

    return per_revision(store, user, "inventory.contracts", compute=lambda: queries.readable_contracts(store, user))


def inventory_options(store: Store, user: Principal, *, contract_code: str | None = None) -> dict[str, list[str]]:
    from valuation.inventory import queries

    return per_revision(store, user, "inventory.options", contract_code,
                        compute=lambda: queries.filter_options(store, user, contract_code=contract_code))


def wreck_list(store: Store, user: Principal, *, office: str | None = None, state: str | None = None,
               hull: str | None = None, century: int | None = None, search: str | None = None) -> pd.DataFrame:
    """`registry.wrecks.list_wrecks` with the registry's filters (Naufrágios: the table and the map)."""
    from valuation.registry import wrecks

    return per_revision(store, user, "wrecks", office, state, hull, century, search,
                        compute=lambda: wrecks.list_wrecks(store, user, office=office, state=state, hull=hull,
                                                           century=century, search=search))


def custody_summary(store: Store, user: Principal, *, as_of: date) -> pd.DataFrame:
    """`inventory.custody.custody_summary` (Entrega e custódia: every item against its deliveries)."""
    from valuation.inventory import custody

    return per_revision(store, user, "custody.summary", as_of,
                        compute=lambda: custody.custody_summary(store, user, as_of=as_of))


def custody_count(store: Store, user: Principal, *, contract_code: str | None = None,
                  lot: str | None = None) -> int:
    from valuation.inventory import custody

    return per_revision(store, user, "custody.count", contract_code, lot,
                        compute=lambda: custody.count_undelivered(store, user, contract_code=contract_code, lot=lot))


def custody_items(store: Store, user: Principal, *, as_of: date, contract_code: str | None = None,
                  lot: str | None = None, page: int = 1, page_size: int = 50) -> pd.DataFrame:
    from valuation.inventory import custody

    return per_revision(store, user, "custody.items", as_of, contract_code, lot, page, page_size,
                        compute=lambda: custody.undelivered_items(store, user, as_of=as_of, contract_code=contract_code,
                                                                  lot=lot, page=page, page_size=page_size))


def custody_recent(store: Store, user: Principal) -> pd.DataFrame:
    from valuation.inventory import custody

    return per_revision(store, user, "custody.recent", compute=lambda: custody.recent_deliveries(store, user))


def selection_contracts(store: Store, user: Principal) -> pd.DataFrame:
    """`partition.statement_reads.statement_contracts` (Escolha da União: the contract selector)."""
    from valuation.partition import statement_reads

    return per_revision(store, user, "selection.contracts",
                        compute=lambda: statement_reads.statement_contracts(store, user))


def pool_summary(store: Store, user: Principal, code: str, pool: str) -> PoolSummary:
    """`partition.choice.pool_summary` (Escolha da União: totals, target, the run in use)."""
    from valuation.partition import choice

    return per_revision(store, user, "selection.summary", code, pool,
                        compute=lambda: choice.pool_summary(store, user, code, pool))


def pool_items(store: Store, user: Principal, code: str, *, pool: str, page: int, page_size: int,
               search: str | None, locked_only: bool) -> tuple[pd.DataFrame, int]:
    """`partition.choice.pool_items` (Escolha da União: the locks' table, one page)."""
    from valuation.partition import choice

    return per_revision(store, user, "selection.items", code, pool, page, page_size, search, locked_only,
                        compute=lambda: choice.pool_items(store, user, code, pool=pool, page=page,
                                                            page_size=page_size, search=search,
                                                            locked_only=locked_only))


def decisions_summary(store: Store, user: Principal, code: str) -> DecisionTotals:
    """`commission.views.decisions_summary` (Decisões publicadas: the totals)."""
    from valuation.commission import views

    return per_revision(store, user, "decisions.summary", code,
                        compute=lambda: views.decisions_summary(store, user, code))


def decisions_page(store: Store, user: Principal, code: str, *, historical: bool | None, search: str, page: int,
                   page_size: int) -> tuple[pd.DataFrame, int]:
    """`commission.views.decisions_page` (Decisões publicadas: one page and the selection's size). Without a
    search the size is the group's count in the totals the page has just read: one pass over the million
    decisions in force fewer on the first view after a write."""
    from valuation.commission import views

    def compute() -> tuple[pd.DataFrame, int]:
        total = None if (search or "").strip() else views.selection_size(decisions_summary(store, user, code),
                                                                          historical)
        return views.decisions_page(store, user, code, historical=historical, search=search, page=page,
                                    page_size=page_size, total=total)
    return per_revision(store, user, "decisions.page", code, historical, search, page, page_size, compute=compute)
