"""Tarefas (admin): the scheduled jobs, their last runs and a "run now" button (issue 13, item 3), and the
recovery point: the newest proven backup and whether it is older than the recovery point (issue 24)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import session
from ui.fmt import for_display, moment_br, zone_note
from ui.jobs_view import (
    FLASH_KEY,
    ask_run,
    configuration_notice,
    job_settings,
    next_runs,
    poll_pending,
    recovery_notice,
    show_flash,
)
from ui.people import with_names
from ui.safe import md
from valuation.jobs.runs import (
    JOB_LABELS,
    JOBS,
    OUTCOME_LABELS,
    TRIGGER_LABELS,
    last_outcomes,
    recent_runs,
    run_job,
    schedule_text,
)

user = session.guard("jobs")
store = session.store()
cfg = job_settings()
svc = session.service()
st.title("Tarefas agendadas")
st.caption(f"{zone_note()} Uma tarefa que falha é repetida uma vez e, se falhar de novo, "
           "os administradores recebem um e-mail.")
if svc is None:
    st.info("O painel não está rodando como serviço (scripts/start.sh): nada é agendado aqui, e "
            "“Executar agora” roda a tarefa nesta página, até terminar.")

configuration_notice()
recovery_notice(store, cfg)
show_flash()
poll_pending(store)
last = last_outcomes(store)
upcoming = next_runs()
for name, job in JOBS.items():
    with st.container(border=True):
        a, b, c = st.columns([3, 3, 2], vertical_alignment="center")
        a.markdown(f"**{job.label}**")
        a.caption(schedule_text(name, cfg))
        row = last.get(name)
        if row is None:
            b.write("Ainda não executada.")
        else:
            b.write(f"Última: {OUTCOME_LABELS[row['outcome']]} em {moment_br(row['ended_at'])}")
            if row["outcome"] == "failed":
                b.caption(md(row["message"] or ""))
        if name in upcoming:
            b.caption(f"Próxima: {moment_br(upcoming[name])}")
        if c.button("Executar agora", key=f"run_{name}", icon=":material/play_arrow:"):
            if svc is not None and svc.scheduler is not None:
                ask_run(store, name, job.label, user.username)
                st.rerun()   # the cards and the recent runs drawn again, with the outcome
            else:
                with st.spinner(f"Executando “{job.label}”…"):
                    ok = run_job(store, name, cfg, trigger="manual", started_by=user.username)
                st.session_state[FLASH_KEY] = (ok, f"“{job.label}”: " + ("concluída." if ok else
                                                                          "falhou — veja o motivo abaixo."))
                st.rerun()   # the card's "Última" and the recent runs drawn again, with the outcome

st.subheader("Execuções recentes")
runs = pd.DataFrame(recent_runs(store))
if runs.empty:
    st.write("Nenhuma execução registrada.")
else:
    st.dataframe(for_display(with_names(store, user, runs, "started_by"), moments=("started_at", "ended_at"),
                             labels={"job": JOB_LABELS, "outcome": OUTCOME_LABELS, "trigger": TRIGGER_LABELS},
                             counts=("attempt",),
                             only=("job", "trigger", "attempt", "started_at", "ended_at", "outcome", "message",
                                   "started_by"),
                             rename={"job": "Tarefa", "trigger": "Origem", "attempt": "Tentativa",
                                     "started_at": "Início", "ended_at": "Fim", "outcome": "Resultado",
                                     "message": "Mensagem", "started_by": "Iniciada por"}),
                 hide_index=True, width="stretch")
