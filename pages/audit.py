"""Auditoria (admin): the hash-chained log, filtered and paginated in SQL, each change readable in
pt-BR; the whole-chain check with a progress bar; CSV/XLSX export of the filtered rows."""
from __future__ import annotations

from datetime import date

import streamlit as st

from ui import session
from ui.fields import date_field, value_or_stop
from ui.fmt import count_br, for_display, moment_br
from ui.people import known, person
from ui.safe import md
from valuation.core import clock
from valuation.core.errors import InputError
from valuation.db import audit_log
from valuation.exports import to_csv_bytes, to_xlsx_bytes
from valuation.oversight import audit_text as at

CHECK_KEY = "audit_chain_check"
PAGE_SIZES = (20, 50, 100)

user = session.guard("audit")
store = session.store()
st.title("Auditoria")
st.caption("Cada gravação do sistema deixa um registro encadeado por hash: quem, quando, o quê, antes e depois. "
           "Posições de naufrágios nunca entram no registro (NORMAM-10 (ed. 2002) 0105). Horários de Brasília.")


def chain_panel() -> None:
    with st.container(border=True):
        st.subheader("Integridade da cadeia")
        if st.button("Verificar a cadeia inteira", icon=":material/verified_user:"):
            bar = st.progress(0.0, text="Verificando a cadeia…")

            def step(done: int, total: int) -> None:
                bar.progress(min(done / total, 1.0) if total else 1.0,
                             text=f"{count_br(done)} de {count_br(total)} registros verificados")

            result = audit_log.check_chain(store, user, progress=step)
            st.session_state[CHECK_KEY] = (result, store.now())        # stored form (UTC): moment_br shows it
            bar.empty()
        shown = st.session_state.get(CHECK_KEY)
        if shown is None:
            st.caption("A verificação relê todos os registros e confere cada hash, o encadeamento e a âncora "
                       "gravada a cada escrita; em bancos grandes, a barra mostra o andamento.")
            return
        result, when = shown
        checked_at = f"Verificado em {moment_br(when, zone=True)}."
        if result.ok and result.checked:
            st.success(f"Cadeia íntegra: {count_br(result.checked)} registros, {result.anchor[:1].lower()}"
                       f"{result.anchor[1:]}. {result.content} {checked_at}")
            st.caption(f"Último hash: {result.head_hash}")
        elif result.ok:
            st.info(f"Registro de auditoria vazio. {checked_at}")
        elif result.bad_id is None:                    # the chain is intact, a sealed row is not
            st.error(f"Conteúdo protegido comprometido. {md(result.message)} {checked_at}")
        else:
            st.error(f"Cadeia comprometida — primeiro registro com problema: nº {result.bad_id}. "
                     f"{md(result.message)} {checked_at}")


EARLIEST_LOG = date(1986, 1, 1)      # Lei 7.542/1986: nothing this log keeps is older


def filters_panel(choices: dict[str, list[str]], names: dict[str, str]) -> audit_log.AuditFilter:
    first, today = audit_log.log_period(store, user)
    c1, c2, c3, c4 = st.columns([1.2, 1, 1, 1.2])
    d1, d2 = c1.columns(2)
    note = "Dias no horário de Brasília, do primeiro ao último inclusive"
    start = value_or_stop(date_field("Período: de", value=first, min_value=EARLIEST_LOG, max_value=today,
                                     required=True, where=d1, help=note))
    end = value_or_stop(date_field("até", value=today, min_value=EARLIEST_LOG, max_value=today, required=True,
                                   where=d2, help=note))
    actor = c2.selectbox("Usuário", [None, *choices["actor"]],
                         format_func=lambda a: "Todos" if a is None else person(store, user, a))
    entity = c3.selectbox("Objeto", [None, *sorted(choices["entity"], key=at.entity_label)],
                          format_func=lambda e: "Todos" if e is None else at.entity_label(e))
    action = c4.selectbox("Ação", [None, *sorted(choices["action"], key=at.action_label)],
                          format_func=lambda a: "Todas" if a is None else at.action_label(a))
    return audit_log.AuditFilter(start=start, end=end, actor=actor, entity=entity, action=action)


def export_buttons(chosen: audit_log.AuditFilter, total: int) -> None:
    stamp = clock.brasilia(clock.now_utc()).strftime("%Y%m%d-%H%M")

    def frame():
        return at.readable(audit_log.export_audit(store, user, chosen), names=known(store, user), with_hash=True)

    c1, c2, _ = st.columns([1, 1, 3])
    c1.download_button("Exportar CSV", data=lambda: to_csv_bytes(frame()), file_name=f"auditoria-{stamp}.csv",
                       mime="text/csv", icon=":material/download:", on_click="ignore",
                       disabled=total == 0 or total > audit_log.MAX_EXPORT_ROWS)
    c2.download_button("Exportar XLSX", data=lambda: to_xlsx_bytes({"Auditoria": frame()}),
                       file_name=f"auditoria-{stamp}.xlsx", icon=":material/download:", on_click="ignore",
                       mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                       disabled=total == 0 or total > audit_log.MAX_EXPORT_ROWS)
    if total > audit_log.MAX_EXPORT_ROWS:
        st.caption(f"Exportação limitada a {count_br(audit_log.MAX_EXPORT_ROWS)} registros: filtre por período, "
                   f"usuário, objeto ou ação.")


def detail_panel(rows) -> None:
    """One record of the page in full: every field before and after, and its hash."""
    st.subheader("Registro por inteiro")
    ids = rows["id"].tolist()
    labels = dict(zip(ids, rows["action"].tolist()))
    pick = st.selectbox("Registro", ids, format_func=lambda i: f"nº {i} — {at.action_label(labels[i])}")
    row = rows.loc[rows["id"] == pick].iloc[0]
    st.markdown(f"**{md(at.action_label(row['action']))}** · {md(at.subject(row['entity'], row['entity_id']))} · "
                f"{md(person(store, user, row['actor']))} · {moment_br(row['at'])}")
    changes = at.changes(str(row["action"]), row["before_json"], row["after_json"], entity=row["entity"])
    if changes:
        import pandas as pd

        st.table(pd.DataFrame(changes, columns=["Campo", "Antes", "Depois"]).set_index("Campo"))
    else:
        st.caption("Registro sem detalhes de antes e depois.")
    st.caption(f"Hash do registro: {row['hash']}")


chain_panel()
st.subheader("Registros")
names = known(store, user)
chosen = filters_panel(audit_log.audit_choices(store, user), names)
try:
    total = audit_log.count_audit(store, user, filters=chosen)
except InputError as exc:
    st.error(md(exc.problems[0].message))
    st.stop()
if total == 0:
    st.info("Nenhum registro de auditoria com esses filtros.")
    st.stop()
c1, c2, c3 = st.columns([1, 1, 3], vertical_alignment="bottom")
size = c1.selectbox("Registros por página", PAGE_SIZES, index=0)
pages = max(1, -(-total // size))
number = int(c2.number_input(f"Página (de {count_br(pages)})", min_value=1, max_value=pages, value=1, step=1))
rows = audit_log.page_audit(store, user, filters=chosen, page=number, page_size=int(size))
first = (number - 1) * size + 1
c3.caption(f"Registros {count_br(first)} a {count_br(first + len(rows) - 1)} de {count_br(total)}, "
           f"do mais recente ao mais antigo.")
# a table, not a data grid: the change of each row wraps and reads whole
shown = at.readable(rows, names=known(store, user))
shown["Data e hora (Brasília)"] = [moment_br(v) for v in rows["at"].tolist()]   # the stored instant, converted once
st.table(for_display(shown, counts=("Nº",)), hide_index=True)
export_buttons(chosen, total)
detail_panel(rows)
