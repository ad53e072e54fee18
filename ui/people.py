"""People as a page names them: by their full name, never by their login (issue 23 item 10). The one
display of a login (`valuation.accounts.people.person`), with the names of the people the user may read
kept per database revision (ui.cache).

    st.caption(f"Cadastrada por {person(store, user, rate.recorded_by)}")
    st.dataframe(for_display(with_names(store, user, df, "recorded_by"), ...))
"""
from __future__ import annotations

import pandas as pd

from ui import cache
from valuation.accounts import people
from valuation.db.access import Principal
from valuation.db.store import Store


def known(store: Store, user: Principal) -> dict[str, str]:
    """{login: full name} of the people `user` may read, once per database revision."""
    return cache.per_revision(store, user, "people", compute=lambda: people.names(store, user))


def person(store: Store, user: Principal, login: object) -> str:
    """The name a reader sees for `login` (a full name, a system actor's label, or '—')."""
    return people.person(known(store, user), login)


def with_names(store: Store, user: Principal, df: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """A copy of `df` whose `columns` (logins) read as the people's names."""
    names = known(store, user)
    out = df.copy()
    for col in columns:
        if col in out.columns:
            out[col] = [people.person(names, v) for v in out[col].tolist()]
    return out
