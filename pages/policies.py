"""Políticas (dpc): every choice the law leaves to the Naval Authority — value in force, legal basis,
who changed it and when, the history; a change asks for a reason, is validated and audited."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import session
from ui.fmt import date_br, for_display
from ui.forms import show_problems
from ui.safe import md
from valuation.commission.consensus import METHODS
from valuation.core.calendar import POLICY_DAY_KEYS
from valuation.core.errors import AccessDenied, InputError
from valuation.deadlines.calendars import POLICY_DAY_LABELS
from valuation.core.clock import brasilia
from valuation.partition.rubric import ACTIVITIES
from valuation.policies import fields
from valuation.policies import values as policies
from valuation.policies.defaults import DEFAULT_BY_KEY, DEFAULTS

FLASH = "policies_flash"
FORM_N = "policies_form_n"   # bumped after a saved change: the next form starts empty
HISTORY_TABLE_ROWS = 25      # up to this many changes read as a table (text wraps); more scroll

user = session.guard("policies")
store = session.store()
st.title("Políticas")
st.caption("Escolhas que a lei deixa à Autoridade Naval. Cada alteração exige um motivo, vale a partir do momento "
           "em que é gravada (não reescreve prazos e valores já calculados) e fica no registro de auditoria. "
           "Horários de Brasília.")
flash = st.session_state.pop(FLASH, None)
if flash:
    st.success(flash)


def who(state: policies.PolicyState) -> str:
    if state.is_default:
        return "valor padrão (nunca alterado)"
    name = state.set_by_name or state.set_by or "—"
    return f"{name}, em {date_br(brasilia(state.set_at))}"


def overview(states: list[policies.PolicyState]) -> None:
    table = pd.DataFrame([{"Política": s.label, "Valor em vigor": s.text, "Base legal": s.basis,
                           "Alterada por": who(s), "Motivo": s.reason or "—"} for s in states])
    st.table(table.set_index("Política"))
    for s in states:
        if s.unreadable:
            st.warning(f"{s.label}: {s.unreadable}")


def widget(key: str, current: object) -> object:
    """The input for policy `key`, showing the value in force; returns what the form sends."""
    shown = fields.form_value(key, current)
    label = DEFAULT_BY_KEY[key].label
    if key == "consensus_method":
        return st.radio(label, METHODS, index=METHODS.index(current), format_func=fields.METHOD_LABELS.get,
                        horizontal=True)
    if key == "quorum":
        return st.number_input(f"{label} (membros que votam, de 6)", min_value=1, max_value=fields.COMMISSION_SIZE,
                               value=int(current), step=1)
    if key == "spread_threshold":
        return st.text_input(f"{label} (% da mediana)", value=shown, placeholder="50")
    if key == "selection_tolerance":
        return st.text_input(f"{label} (% da recompensa)", value=shown, placeholder="1")
    if key == "due_soon_days":
        return st.number_input(f"{label} (dias antes do vencimento)", min_value=1,
                               max_value=fields.MAX_DUE_SOON_DAYS, value=int(current), step=1)
    if key == "policy_days":
        return st.multiselect(label, POLICY_DAY_KEYS, default=list(current), format_func=POLICY_DAY_LABELS.get,
                              placeholder="Nenhum ponto facultativo")
    if key == "court_pending_suspends_lapse":
        return st.radio(label, (True, False), index=0 if current else 1, horizontal=True,
                        format_func=lambda v: "Sim, suspende o prazo" if v else "Não suspende")
    if key == "difficulty_weights":
        cols = st.columns(len(ACTIVITIES))
        return [c.text_input(f"Peso — {a}", value=v, placeholder="1") for c, a, v in zip(cols, ACTIVITIES, shown)]
    if key == "comparables_outlier_factor":
        return st.text_input(f"{label} (fator k)", value=shown, placeholder="1,5")
    if key == "comparables_min_count":
        return st.number_input(f"{label} (decisões)", min_value=1, max_value=fields.MAX_MIN_COMPARABLES,
                               value=int(current), step=1)
    if key == "calendar_alarm_days":
        return st.text_input(f"{label} (dias antes de cada prazo, separados por vírgula)", value=shown,
                             placeholder="5, 1")
    raise KeyError(key)


def change_form(states: list[policies.PolicyState]) -> None:
    by_key = {s.key: s for s in states}
    key = st.selectbox("Política a alterar", [p.key for p in DEFAULTS], format_func=lambda k: DEFAULT_BY_KEY[k].label)
    state = by_key[key]
    st.caption(f"{state.description} Base legal: {state.basis}. Em vigor: {state.text}.")
    with st.form(f"policy_{key}_{st.session_state.get(FORM_N, 0)}"):
        raw = widget(key, state.value)
        reason = st.text_area(policies.REASON_LABEL, max_chars=policies.MAX_REASON,
                              placeholder="Por que o valor muda e o ato que decide (ex.: Portaria DPC nº 12/2026).")
        submitted = st.form_submit_button("Gravar alteração", type="primary")
    if not submitted:
        return
    try:
        saved = policies.set_policy(store, user, key, raw, reason)
    except InputError as exc:
        show_problems(exc)
    except AccessDenied as exc:
        st.error(md(exc))
    else:
        st.session_state[FLASH] = f"{saved.label}: agora {saved.text}. Alteração registrada na auditoria."
        st.session_state[FORM_N] = st.session_state.get(FORM_N, 0) + 1
        st.rerun()


def history() -> None:
    st.subheader("Histórico de alterações")
    options = [None, *[p.key for p in DEFAULTS]]
    key = st.selectbox("Mostrar", options, format_func=lambda k: "Todas as políticas" if k is None
                       else DEFAULT_BY_KEY[k].label)
    df = policies.policy_history(store, user, key)
    if df.empty:
        st.info("Nenhuma alteração registrada: valem os valores padrão." if key is None
                else "Esta política nunca foi alterada: vale o valor padrão.")
        return
    df["set_at"] = [brasilia(v) for v in df["set_at"]]
    df["set_by_name"] = [n if isinstance(n, str) else u for n, u in zip(df["set_by_name"], df["set_by"])]
    df["effective_from"] = ["imediata" if v is None or pd.isna(v) else date_br(v) for v in df["effective_from"]]
    shown = for_display(df, dates=("set_at",), only=("set_at", "label", "text", "set_by_name", "reason",
                                                     "effective_from"),
                        rename={"set_at": "Data e hora", "label": "Política", "text": "Novo valor",
                                "set_by_name": "Alterada por", "reason": "Motivo", "effective_from": "Vigência"})
    if len(shown) <= HISTORY_TABLE_ROWS:
        st.table(shown.set_index("Data e hora"))
    else:
        st.dataframe(shown, hide_index=True, width="stretch",
                     column_config={"Motivo": st.column_config.TextColumn(width="large")})


states = policies.list_policies(store, user)
overview(states)
st.subheader("Alterar uma política")
change_form(states)
history()
