"""The item chosen on the Itens tab: the member's entry form and own trail; after the close, the round's
(anonymous) entries."""
from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal
from typing import TypedDict

import pandas as pd
import streamlit as st

from page_tabs.commission.view import VOTES, RoundView, flash
from ui import item_card, session
from ui.fields import date_field, money_field, read_date, read_money
from ui.fmt import count_br, for_display, money_in, option_label, rate_br, yes_no
from ui.forms import attempt, show_outcome
from ui.safe import md
from valuation.commission.entries import record_assessment, round_entries
from valuation.commission.entry_queue import entry_queue
from valuation.commission.rounds import RoundOverview
from valuation.commission.sheet import LABELS as ENTRY_LABELS
from valuation.commission.sheet import MAX_VALUE_BRL, SOURCES
from valuation.commission.views import known_currencies, my_item_history, source_label, vote_label

GOTO = "cm_goto_{rid}"   # the place (1…N) of the item the Itens tab opens on next (set after a saved entry)
# the form's labels, for problems that name a field (the store's messages use ENTRY_LABELS)
FORM_LABELS = {**ENTRY_LABELS, "historical": "Voto", "source": "Fonte do valor (art. 21 §2)",
               "significance": "Significância (voto histórico)", "must_keep": "Propor manter na União (voto histórico)",
               "source_note": "Observação (organização de renome, catálogo, lote…)"}


def item_panel(view: RoundView, row: pd.Series, ov: RoundOverview) -> None:
    """The selected item: the member's form and own trail; after the close, the (anonymous) entries."""
    store, user, rid = view.store, view.user, view.rid
    item_id = int(row["item_id"])
    st.subheader(f"{md(row['item_code'])} — {md(row['description'])}")
    item_card.show(store, user, item_id, key=f"cm_card_{rid}_{item_id}")
    hist = my_item_history(store, user, rid, item_id) if view.is_member else None
    in_force = hist[hist["in_force"]] if hist is not None and len(hist) else None
    note0 = in_force["source_note"].iloc[0] if in_force is not None and len(in_force) else None

    if view.is_member and view.is_open:
        entry_form(view, row, note0)
    if hist is not None:
        st.markdown("**Minhas avaliações deste item** (a primeira linha é a que vale; correções nunca apagam)")
        if len(hist):
            st.dataframe(entries_view(hist, own=True), hide_index=True, width="stretch")
        else:
            st.caption("Você ainda não avaliou este item.")
    if ov.visibility in ("anonymous", "full"):
        ent = round_entries(store, user, rid, item_id=item_id, page_size=50)
        st.markdown("**Avaliações da rodada**" + (" (anônimas)" if not view.sees_names else ""))
        if len(ent):
            st.dataframe(entries_view(ent, own=False), hide_index=True, width="stretch")
        else:
            st.caption("Nenhum membro avaliou este item.")


ENTRY_FIELDS = ("amount", "price_date", "vote", "source", "significance", "currency", "note", "keep")


class _AmountSpec(TypedDict):
    label: str
    minimum: Decimal | None
    maximum: Decimal
    path: str


class _DaySpec(TypedDict):
    label: str
    path: str


# how the form's two strict fields read their text — the same for the widget and for the submit callback
AMOUNT_FIELD = _AmountSpec(label="Valor", minimum=None, maximum=MAX_VALUE_BRL, path="amount")
PRICE_DATE_FIELD = _DaySpec(label="Data do preço", path="price_date")
OUTCOME = "cm_entry_outcome_{rid}_{item}"   # a refused entry's problems, shown under its form


def entry_keys(rid: int, item_id: int) -> dict[str, str]:
    """The session keys of one item's entry form (its submit callback reads the fields by them)."""
    return {f: f"cm_entry_{rid}_{item_id}_{f}" for f in ENTRY_FIELDS}


def entry_form(view: RoundView, row: pd.Series, note0: object) -> None:
    """The member's vote and value of the item (a correction is a new entry that takes over). The entry is
    written by the button's callback, before the page is drawn (`record_entry`): one click is one run, and
    everything the page shows — the counts, the list, the next item — already holds it."""
    store, user, rid = view.store, view.user, view.rid
    item_id = int(row["item_id"])
    keys = entry_keys(rid, item_id)
    mine_vote = row["my_historical"] if isinstance(row["my_historical"], bool) else None
    currencies = known_currencies(store, user)
    st.caption(view.round.conversion.text)       # which day's rates convert the price, and why (art. 21 §3)
    queue = entry_queue(store, user, rid)
    st.caption(f"Faltam {count_br(queue.remaining)} de {count_br(queue.total)} itens para você avaliar nesta "
               "rodada. Valor, data do preço, voto e fonte (com a significância, se histórico); Enter grava e passa ao "
               "próximo item sem avaliação.")
    with st.form(f"cm_entry_{rid}_{item_id}"):
        c1, c3 = st.columns(2)
        money_field(**AMOUNT_FIELD, value=None if pd.isna(row["my_amount"]) else row["my_amount"], where=c1,
                    key=keys["amount"])
        date_field(**PRICE_DATE_FIELD, max_value=session.today(), where=c3, key=keys["price_date"],
                   value=row["my_price_date"] if isinstance(row["my_price_date"], date) else session.today())
        st.radio("Voto", list(VOTES), format_func=option_label(VOTES), horizontal=True,
                 index=list(VOTES).index(mine_vote), key=keys["vote"])
        c4, c6, c2 = st.columns(3)        # then what a value or a historical vote also needs
        src_keys = [None, *SOURCES]
        src0 = row["my_source"] if isinstance(row["my_source"], str) and row["my_source"] in SOURCES else None
        c4.selectbox("Fonte do valor (art. 21 §2)", src_keys, index=src_keys.index(src0),
                     format_func=lambda s: "—" if s is None else SOURCES[s], key=keys["source"])
        sig0 = None if pd.isna(row["my_significance"]) else int(row["my_significance"])
        c6.selectbox("Significância (voto histórico)", [None, 1, 2, 3, 4, 5], index=[None, 1, 2, 3, 4, 5].index(sig0),
                     format_func=lambda s: "—" if s is None else str(s), key=keys["significance"])
        cur0 = row["my_currency"] if isinstance(row["my_currency"], str) else "BRL"
        c2.selectbox("Moeda", currencies, index=currencies.index(cur0) if cur0 in currencies else 0,
                     key=keys["currency"])
        c5, c7 = st.columns(2)
        c5.text_input("Observação (organização de renome, catálogo, lote…)",
                      value=note0 if isinstance(note0, str) else "", key=keys["note"])
        c7.checkbox("Propor manter na União (voto histórico)", value=row["my_must_keep"] is True, key=keys["keep"])
        st.form_submit_button("Gravar avaliação", type="primary", on_click=record_entry,
                              args=(view, item_id, str(row["item_code"])))
    refused = st.session_state.pop(OUTCOME.format(rid=rid, item=item_id), None)
    if refused is not None:
        show_outcome(refused, labels=FORM_LABELS)


def record_entry(view: RoundView, item_id: int, item_code: str) -> None:
    """The entry form's submit callback: read the fields, write the entry; gone through, the flash says so and
    the Itens tab moves on to the next item; refused, the form shows why (nothing written).

    Streamlit runs a callback before the script — before app.py, or the tab's fragment, checks the session —
    and with the arguments of the run that drew the form: the callback checks the session itself. Ended by
    "Sair" in another tab, an admin's deactivation or the idle rule, nothing is written, and the run that
    follows shows the login form."""
    user = session.still_signed_in(view.user)
    if user is None:
        return
    view = dataclasses.replace(view, user=user)
    state, keys = st.session_state, entry_keys(view.rid, item_id)
    amount = read_money(text=str(state.get(keys["amount"]) or ""), **AMOUNT_FIELD)
    price_date = read_date(text=str(state.get(keys["price_date"]) or ""), max_value=session.today(),
                           **PRICE_DATE_FIELD)
    vote, keep = state.get(keys["vote"]), bool(state.get(keys["keep"]))
    note = str(state.get(keys["note"]) or "")
    has_value = bool(amount.text.strip())
    outcome = attempt(record_assessment, view.store, view.user, view.rid, item_id, historical=vote, amount=amount,
                      currency=state.get(keys["currency"]) if has_value else None,
                      price_date=price_date if has_value else None, significance=state.get(keys["significance"]),
                      must_keep=True if keep else (False if vote is True else None),
                      source=state.get(keys["source"]) if has_value else None,
                      source_note=(note.strip() or None) if has_value else None)
    if not outcome.ok:
        state[OUTCOME.format(rid=view.rid, item=item_id)] = outcome
        return
    flash(f"Avaliação do item {item_code} gravada. " + move_on(view, item_id),
          None if has_value or vote is None else vote_without_value(item_code))


def move_on(view: RoundView, item_id: int) -> str:
    """After a saved entry: the Itens tab opens on the member's next item without an entry (items.GOTO) — and
    the sentence that says how many remain."""
    queue = entry_queue(view.store, view.user, view.rid, after_item_id=item_id)
    if queue.next_pos is None:
        return f"Você avaliou todos os {count_br(queue.total)} itens da rodada."
    st.session_state[GOTO.format(rid=view.rid)] = queue.next_pos
    return (f"Faltam {count_br(queue.remaining)} de {count_br(queue.total)} itens; a seguir, o item "
            f"{queue.next_code}.")


def vote_without_value(code: str) -> str:
    """The warning after a vote saved without a value (issue 23 item 4): the Commission decides whether each
    thing is historical AND attributes its value (Lei 7.542 art. 20 §3); a vote alone counts for the
    classification, not for the value, which is the median of the members' values."""
    return (f"Voto do item {code} gravado sem valor. A Comissão decide se o bem é histórico e também lhe atribui "
            "valor, pelos preços do mercado internacional (Lei 7.542/1986, art. 20 §3): seu voto conta para a "
            "classificação, mas não para o valor, que é a mediana dos valores dos membros. Informe o valor "
            "deste item antes do encerramento da rodada.")


def entries_view(df: pd.DataFrame, *, own: bool) -> pd.DataFrame:
    """A member's trail (own) or the round's entries, in words: the value in its currency, the rate
    with four decimals, the vote and the source by their labels."""
    out = pd.DataFrame({"Registrada em" if own else "Membro": df["entered_at" if own else "member"].tolist()})
    out["Voto"] = [vote_label(v) for v in df["historical"].tolist()]
    out["Valor"] = [money_in(a, c) for a, c in zip(df["amount"].tolist(), df["currency"].tolist())]
    out["Data do preço"] = df["price_date"].tolist()
    if own:
        out["Cotação (R$)"] = [rate_br(v) for v in df["rate"].tolist()]
        out["Data da cotação"] = df["rate_date"].tolist()
        if "conversion_date" in df and df["conversion_date"].notna().any():
            out["Convertido na data de avaliação (art. 21 §3)"] = df["conversion_date"].tolist()
    out["Valor (R$)"] = df["value_brl"].tolist()
    out["Significância"] = df["significance"].tolist()
    if own:
        out["Manter"] = [yes_no(v) for v in df["must_keep"].tolist()]
    out["Fonte"] = [source_label(v) for v in df["source"].tolist()]
    if own:
        out["Observação"] = df["source_note"].tolist()
        out["Em vigor"] = [yes_no(bool(v)) for v in df["in_force"].tolist()]
    dates = tuple(c for c in ("Registrada em", "Data do preço", "Data da cotação",
                              "Convertido na data de avaliação (art. 21 §3)") if c in out)
    return for_display(out, money=("Valor (R$)",), dates=dates,
                       counts=("Significância",))
