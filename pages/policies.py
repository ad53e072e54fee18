"""Políticas (dpc): every choice the law leaves to the Naval Authority and every NORMAM-10 number, as
dated parameters — value, legal reference, the day it applies from, who recorded it — with each one's
history; a new value asks for its reference, its effective date and a reason, is validated and audited.
Beside them, read-only, the numbers of the law itself (Lei 7.542/1986, Lei 9.784/1999) with their article."""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ui import session
from ui.fields import date_field
from ui.fmt import date_br, for_display, moment_br, option_label
from ui.forms import save
from ui.people import person
from valuation.core.calendar import POLICY_DAY_KEYS, POLICY_DAY_LABELS
from valuation.core.law import COMMISSION_SIZE
from valuation.core.law import DIFFICULTY_ACTIVITIES as ACTIVITIES
from valuation.policies import fields
from valuation.policies import values as policies
from valuation.policies.defaults import CONSENSUS_METHODS as METHODS
from valuation.policies.defaults import DEFAULT_BY_KEY, DEFAULTS, GOVBR_LEVEL_LABELS, GOVBR_LEVELS
from valuation.policies.law_values import law_values

FLASH = "policies_flash"
FORM_N = "policies_form_n"   # bumped after a saved change: the next form starts empty
HISTORY_TABLE_ROWS = 25      # up to this many changes read as a table (text wraps); more scroll
FORM_LABELS = {"reason": policies.REASON_LABEL, "basis": policies.BASIS_LABEL,
               "effective_from": policies.EFFECTIVE_LABEL}

user = session.guard("policies")
store = session.store()
st.title("Políticas")
st.caption("Escolhas que a lei deixa à Autoridade Naval e os números da NORMAM-10, que a DPC revê. Cada valor tem a "
           "sua referência legal e a data a partir da qual vale: um prazo é contado com o valor em vigor no dia em que "
           "começa, de modo que uma alteração nunca reescreve um prazo já iniciado. Cada alteração exige um motivo e "
           "fica no registro de auditoria. Horários de Brasília.")
flash = st.session_state.pop(FLASH, None)
if flash:
    st.success(flash)


def who(state: policies.PolicyState) -> str:
    if state.is_default:
        return "valor padrão (nunca alterado)"
    name = state.set_by_name or person(store, user, state.set_by)
    return f"{name}, em {moment_br(state.set_at)}"


def since(state: policies.PolicyState) -> str:
    return "sempre (padrão)" if state.starts is None else date_br(state.starts)


def overview(states: list[policies.PolicyState]) -> None:
    table = pd.DataFrame([{"Política": s.label, "Valor em vigor": s.text, "Referência legal": s.basis,
                           "Em vigor desde": since(s), "Registrada por": who(s)} for s in states])
    st.table(table.set_index("Política"))
    for s in states:
        if s.unreadable:
            st.warning(f"{s.label}: {s.unreadable}")
    coming = policies.scheduled(store, user)
    if coming:
        st.info("Alterações agendadas: " + "; ".join(f"{s.label}: {s.text} a partir de {date_br(s.starts)} "
                                                     f"({s.basis})" for s in coming) + ".")


def widget(key: str, current: Any) -> object:
    """The input for policy `key`, showing the value in force (`PolicyState.value`, of the key's type);
    returns what the form sends."""
    shown = fields.form_value(key, current)
    label = DEFAULT_BY_KEY[key].label
    if key == "consensus_method":
        return st.radio(label, METHODS, index=METHODS.index(current), format_func=option_label(fields.METHOD_LABELS),
                        horizontal=True)
    if key == "govbr_min_level_signers":
        return st.radio(label, GOVBR_LEVELS, index=GOVBR_LEVELS.index(current),
                        format_func=option_label(GOVBR_LEVEL_LABELS), horizontal=True)
    if key == "quorum":
        return st.number_input(f"{label} (membros que votam, de 6)", min_value=1, max_value=COMMISSION_SIZE.value,
                               value=int(current), step=1)
    if key in ("spread_threshold", "selection_tolerance"):
        unit = "da mediana" if key == "spread_threshold" else "da recompensa"
        return st.text_input(f"{label} (% {unit})", value=shown, placeholder="50")
    if key == "due_soon_days":
        return st.number_input(f"{label} (dias antes do vencimento)", min_value=1,
                               max_value=fields.MAX_DUE_SOON_DAYS, value=int(current), step=1)
    if key in fields.INTEGER_RANGES:
        lo, hi, unit = fields.INTEGER_RANGES[key]
        return st.number_input(f"{label} ({unit.lstrip('º ')})", min_value=lo, max_value=hi, value=int(current),
                               step=1)
    if key == "policy_days":
        return st.multiselect(label, POLICY_DAY_KEYS, default=list(current),
                              format_func=option_label(POLICY_DAY_LABELS), placeholder="Nenhum ponto facultativo")
    if key == "court_pending_suspends_lapse":
        return st.radio(label, (True, False), index=0 if current else 1, horizontal=True,
                        format_func=lambda v: "Sim, suspende o prazo" if v else "Não suspende")
    if key == "difficulty_weights":
        cols = st.columns(len(ACTIVITIES))
        return [c.text_input(f"Peso — {a}", value=v, placeholder="1") for c, a, v in zip(cols, ACTIVITIES, shown)]
    if key == "comparables_min_count":
        return st.number_input(f"{label} (decisões)", min_value=1, max_value=fields.MAX_MIN_COMPARABLES,
                               value=int(current), step=1)
    hints = {"calendar_alarm_days": ("dias antes de cada prazo, separados por vírgula", "5, 1"),
             "comparables_outlier_factor": ("fator k", "1,5"),
             "wreck_map_day": ("dia e mês, DD/MM", "15/02"),
             "early_closing_days": ("datas DD/MM separadas por vírgula", "24/12, 31/12")}
    hint, example = hints[key]
    return st.text_input(f"{label} ({hint})", value=shown, placeholder=example)


def change_form(states: list[policies.PolicyState]) -> None:
    by_key = {s.key: s for s in states}
    key = st.selectbox("Política a alterar", [p.key for p in DEFAULTS], format_func=lambda k: DEFAULT_BY_KEY[k].label)
    state = by_key[key]
    st.caption(f"{state.description} Em vigor: {state.text} ({state.basis}).")
    with st.form(f"policy_{key}_{st.session_state.get(FORM_N, 0)}"):
        raw = widget(key, state.value)
        c1, c2 = st.columns([3, 1])
        basis = c1.text_input(policies.BASIS_LABEL, value=DEFAULT_BY_KEY[key].basis, max_chars=policies.MAX_BASIS,
                              help="O ato que fixa o novo valor, p. ex. Portaria DPC nº 12/2026 (NORMAM-10 (ed. 2002) "
                                   "0301 c).")
        effective = date_field(policies.EFFECTIVE_LABEL, value=session.today(), required=True, where=c2,
                               help="Vale para os prazos que começam a partir desse dia; os já iniciados mantêm "
                                    "o valor anterior", path="effective_from")
        reason = st.text_area(policies.REASON_LABEL, max_chars=policies.MAX_REASON,
                              placeholder="Por que o valor muda e o ato que decide (ex.: Portaria DPC nº 12/2026).")
        submitted = st.form_submit_button("Gravar alteração", type="primary")
    if not submitted:
        return
    saved = save(policies.set_policy, store, user, key, raw, reason, effective_from=effective, basis=basis,
                 labels={key: DEFAULT_BY_KEY[key].label, **FORM_LABELS}, success="Alteração registrada.")
    if saved is not None:
        st.session_state[FLASH] = (f"{saved.label}: {saved.text} a partir de {date_br(saved.starts)} "
                                   f"({saved.basis}). Alteração registrada na auditoria.")
        st.session_state[FORM_N] = st.session_state.get(FORM_N, 0) + 1
        st.rerun()


def history() -> None:
    st.subheader("Histórico de cada política")
    options = [None, *[p.key for p in DEFAULTS]]
    key = st.selectbox("Mostrar", options, format_func=lambda k: "Todas as políticas" if k is None
                       else DEFAULT_BY_KEY[k].label)
    df = policies.policy_history(store, user, key)
    if df.empty:
        st.info("Nenhuma alteração registrada: valem os valores padrão." if key is None
                else "Esta política nunca foi alterada: vale o valor padrão.")
        return
    df["set_by_name"] = [n if isinstance(n, str) else person(store, user, u)
                         for n, u in zip(df["set_by_name"], df["set_by"])]
    shown = for_display(df, dates=("starts",), moments=("set_at",),
                        only=("starts", "label", "text", "basis", "set_by_name", "set_at", "reason"),
                        rename={"starts": "Vigência a partir de", "label": "Política", "text": "Valor",
                                "basis": "Referência legal", "set_by_name": "Registrada por",
                                "set_at": "Registrada em", "reason": "Motivo"})
    if len(shown) <= HISTORY_TABLE_ROWS:
        st.table(shown.set_index("Vigência a partir de"))
    else:
        st.dataframe(shown, hide_index=True, width="stretch",
                     column_config={"Motivo": st.column_config.TextColumn(width="large")})


def law_section() -> None:
    st.subheader("Números fixados pela lei (não alteráveis pela Autoridade Naval)")
    rows = [{"Regra": v.label, "Valor": v.text, "Fundamento": v.basis,
             "Redação em vigor desde": date_br(v.effective_from) if v.effective_from else "texto original"}
            for v in law_values()]
    st.table(pd.DataFrame(rows).set_index("Regra"))


states = policies.list_policies(store, user)
overview(states)
st.subheader("Registrar um novo valor")
change_form(states)
history()
law_section()
