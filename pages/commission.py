"""Avaliação da Comissão Interministerial (Lei 7.542/1986 art. 20 §3; art. 21 §2): rounds of votes
and values per item (Delphi: a member sees only own entries until the close, then the anonymous
median and spread), entry one item at a time or by sheet, the president's workflow (open, close,
decide, override, publish), the panel's agreement and the minutes (ata)."""
from __future__ import annotations

from datetime import date

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui import attachments as attachments_ui  # issue 16
from ui import comparables as comparables_ui
from ui import item_card, session
from ui.charts import pt_br, show
from ui.fmt import (
    count_br,
    for_display,
    money_in,
    number_br,
    percent_br,
    rate_br,
    yes_no,
)
from ui.forms import save
from ui.safe import md
from ui.tabs import LazyTabs
from valuation.attachments.photo_sheet import round_photo_sheet
from valuation.commission.agreement_queries import agreement
from valuation.commission.consensus import DECIDED_BY_LABELS
from valuation.commission.decisions import record_decisions
from valuation.commission.entries import record_assessment, round_entries
from valuation.commission.minutes import round_minutes_pdf
from valuation.commission.rounds import (
    RoundOverview,
    close_round,
    flagged_counts,
    get_round,
    list_rounds,
    open_round,
    publish_round,
    round_overview,
)
from valuation.commission.sheet import LABELS as ENTRY_LABELS
from valuation.commission.sheet import SOURCES
from valuation.commission.sheet_import import import_assessments
from valuation.commission.views import (
    SHEET_SOURCE_VALUES,
    known_currencies,
    my_item_history,
    override_decision,
    problems_frame,
    round_contracts,
    round_progress,
    round_template,
    source_label,
    vote_label,
)
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.db.access import allowed

PAGE_SIZES = [25, 50, 100, 200]
VOTES = {None: "Não votar", True: "Histórico (art. 20 §3)", False: "Não histórico"}
ERRORS = (AccessDenied, ConflictError, NotFound)
# the form's labels, for problems that name a field (the store's messages use ENTRY_LABELS)
FORM_LABELS = {**ENTRY_LABELS, "historical": "Voto", "source": "Fonte do valor (art. 21 §2)",
               "significance": "Significância (voto histórico)", "must_keep": "Propor manter na União (voto histórico)",
               "source_note": "Observação (organização de renome, catálogo, lote…)"}
OVERRIDE_LABELS = {"historical": "Classificação", "value_brl": "Valor (R$)", "item_code": "Código do item",
                   "reason": "Motivo (vai para o fundamento da decisão e para a ata)"}

user = session.guard("commission")
store = session.store()
is_member = allowed(user, "enter_assessments")
is_president = allowed(user, "open_rounds")
sees_names = allowed(user, "read_member_names")
st.title("Avaliação da Comissão")
st.caption("Comissão Interministerial (3 membros da Marinha e 3 do Ministério da Cultura; NORMAM-10 0303 c 1 I): "
           "classifica os bens e atribui valores considerando os preços do mercado internacional (Lei 7.542/1986, "
           "art. 20 §3; art. 21 §2). Enquanto a rodada está aberta, cada membro vê apenas as próprias avaliações.")
flash = st.session_state.pop("commission_flash", None)
if flash:
    st.success(flash)


def done(saved: object, message: str) -> None:
    """After a write that went through: show `message` on the page as it is now (rerun) — once, above the
    tabs: the writes here pass `success=None` to `save`, which would otherwise state it in the tab too."""
    if saved is not None:
        st.session_state["commission_flash"] = message
        st.rerun()


contracts = round_contracts(store, user)
if not contracts:
    st.info("Nenhum contrato com bens resgatados para avaliar.")
    st.stop()
by_code = {c.code: c for c in contracts}
code = st.selectbox("Contrato", list(by_code), format_func=lambda k: by_code[k].label, key="cm_contract")
rounds = list_rounds(store, user, code)

if is_president and not any(r.status == "aberta" for r in rounds):
    with st.expander("Abrir nova rodada", expanded=not rounds):
        flagged = flagged_counts(store, user, rounds)
        sources = [0] + [round_id for round_id, n in flagged.items() if n]
        numbers = {r.id: r.number for r in rounds}
        source = st.radio("Itens", sources, key=f"cm_open_from_{code}", format_func=lambda i: (
            f"Todos os itens do contrato ({count_br(by_code[code].items)})" if i == 0
            else f"Itens sinalizados da rodada {numbers[i]} ({count_br(flagged[i])})"))
        if st.button("Abrir rodada", type="primary", key="cm_open"):
            new = save(open_round, store, user, code, from_round=source or None, success=None)
            done(new, "" if new is None else f"Rodada {new.number} aberta com {count_br(new.item_count)} itens.")

if not rounds:
    st.info("Este contrato ainda não tem rodadas de avaliação.")
    st.stop()
by_id = {r.id: r for r in rounds}
rid = st.selectbox("Rodada", list(by_id), key=f"cm_round_{code}", format_func=lambda i: (
    f"Rodada {by_id[i].number} — {by_id[i].status_label} · {count_br(by_id[i].item_count)} itens"))
rnd = get_round(store, user, rid)
is_open = rnd.is_open
m = st.columns(5)
m[0].metric("Situação", rnd.status_label)
m[1].metric("Itens", count_br(rnd.item_count))
m[2].metric("Aberta em", rnd.opened_at.strftime("%d/%m/%Y"))
m[3].metric("Encerrada em", rnd.closed_at.strftime("%d/%m/%Y") if rnd.closed_at else "—")
m[4].metric("Método · quórum", f"{rnd.method_label} · {rnd.quorum}",
            help=f"Sinaliza dispersão acima de {percent_br(rnd.spread_threshold)} ou votação dividida por até um voto.")

tab_names = ["Itens"] + (["Planilha"] if is_member and is_open else []) + (["Presidência"] if is_president else []) \
    + (["Andamento"] if not is_member and allowed(user, "follow_round_progress") and is_open else []) \
    + (["Concordância", "Ata"] if not is_open else [])
tabs = LazyTabs("commission", tab_names)   # issue 17: only the open tab runs


def item_panel(row: pd.Series, ov: RoundOverview) -> None:
    """The selected item: the member's form and own trail; after the close, the (anonymous) entries."""
    item_id = int(row["item_id"])
    st.subheader(f"{md(row['item_code'])} — {md(row['description'])}")
    item_card.show(store, user, item_id, key=f"cm_card_{rid}_{item_id}")
    hist = my_item_history(store, user, rid, item_id) if is_member else None
    in_force = hist[hist["in_force"]] if hist is not None and len(hist) else None
    note0 = in_force["source_note"].iloc[0] if in_force is not None and len(in_force) else None

    if is_member and is_open:
        mine_vote = row["my_historical"] if isinstance(row["my_historical"], bool) else None
        currencies = known_currencies(store, user)
        with st.form(f"cm_entry_{rid}_{item_id}"):
            vote = st.radio("Voto", list(VOTES), format_func=VOTES.get, horizontal=True,
                            index=list(VOTES).index(mine_vote))
            c1, c2, c3 = st.columns(3)
            amount = c1.text_input("Valor", value="" if pd.isna(row["my_amount"]) else
                                   number_br(row["my_amount"], 2), placeholder="ex.: 1.234,56")
            cur0 = row["my_currency"] if isinstance(row["my_currency"], str) else "BRL"
            currency = c2.selectbox("Moeda", currencies, index=currencies.index(cur0) if cur0 in currencies else 0)
            price_date = c3.date_input("Data do preço", format="DD/MM/YYYY", max_value=session.today(),
                                       value=row["my_price_date"] if isinstance(row["my_price_date"], date)
                                       else session.today())
            c4, c5 = st.columns(2)
            src_keys = [None, *SOURCES]
            src0 = row["my_source"] if isinstance(row["my_source"], str) and row["my_source"] in SOURCES else None
            source = c4.selectbox("Fonte do valor (art. 21 §2)", src_keys, index=src_keys.index(src0),
                                  format_func=lambda s: "—" if s is None else SOURCES[s])
            note = c5.text_input("Observação (organização de renome, catálogo, lote…)",
                                 value=note0 if isinstance(note0, str) else "")
            c6, c7 = st.columns(2)
            sig0 = None if pd.isna(row["my_significance"]) else int(row["my_significance"])
            significance = c6.selectbox("Significância (voto histórico)", [None, 1, 2, 3, 4, 5],
                                        index=[None, 1, 2, 3, 4, 5].index(sig0),
                                        format_func=lambda s: "—" if s is None else str(s))
            keep = c7.checkbox("Propor manter na União (voto histórico)", value=row["my_must_keep"] is True)
            submitted = st.form_submit_button("Gravar avaliação", type="primary")
        if submitted:
            has_value = bool(amount.strip())
            message = f"Avaliação do item {row['item_code']} gravada."
            done(save(record_assessment, store, user, rid, item_id, historical=vote, amount=amount.strip() or None,
                      currency=currency if has_value else None, price_date=price_date if has_value else None,
                      significance=significance, must_keep=True if keep else (False if vote is True else None),
                      source=source if has_value else None,
                      source_note=(note.strip() or None) if has_value else None,
                      success=None, labels=FORM_LABELS), message)
    if hist is not None:
        st.markdown("**Minhas avaliações deste item** (a primeira linha é a que vale; correções nunca apagam)")
        if len(hist):
            st.dataframe(entries_view(hist, own=True), hide_index=True, width="stretch")
        else:
            st.caption("Você ainda não avaliou este item.")
    if ov.visibility in ("anonymous", "full"):
        ent = round_entries(store, user, rid, item_id=item_id, page_size=50)
        st.markdown("**Avaliações da rodada**" + (" (anônimas)" if not sees_names else ""))
        if len(ent):
            st.dataframe(entries_view(ent, own=False), hide_index=True, width="stretch")
        else:
            st.caption("Nenhum membro avaliou este item.")


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
    out["Valor (R$)"] = df["value_brl"].tolist()
    out["Significância"] = df["significance"].tolist()
    if own:
        out["Manter"] = [yes_no(v) for v in df["must_keep"].tolist()]
    out["Fonte"] = [source_label(v) for v in df["source"].tolist()]
    if own:
        out["Observação"] = df["source_note"].tolist()
        out["Em vigor"] = [yes_no(bool(v)) for v in df["in_force"].tolist()]
    return for_display(out, money=("Valor (R$)",), dates=("Registrada em", "Data do preço", "Data da cotação"),
                       counts=("Significância",))


def progress_table() -> None:
    """How many items each member has assessed (counts only: never a value before the close)."""
    st.dataframe(for_display(round_progress(store, user, rid), counts=("entries", "items"), rename={
        "member": "Membro", "body": "Órgão", "entries": "Itens avaliados", "items": "Itens da rodada"}),
        hide_index=True, width="stretch")


if tabs.is_open("Andamento"):
    with tabs["Andamento"]:
        st.markdown("**Andamento da rodada**: quantos itens cada membro já avaliou.")
        progress_table()
        st.caption("Enquanto a rodada está aberta, os valores e votos de cada membro não aparecem para ninguém além "
                   "do próprio membro; a DPC os vê no encerramento, como os membros.")

if tabs.is_open("Itens"):
    with tabs["Itens"]:
        overview = round_overview(store, user, rid, page=1, page_size=1)
        a, b = st.columns(2)
        size = a.selectbox("Itens por página", PAGE_SIZES, key="cm_size")
        pages = max(1, -(-overview.total_items // size))
        page = b.number_input(f"Página (de {pages})", min_value=1, max_value=pages, value=1, step=1,
                              key=f"cm_page_{rid}")
        ov = round_overview(store, user, rid, page=int(page), page_size=int(size))
        df = ov.items
        view = pd.DataFrame({"Código": df["item_code"], "Descrição": df["description"]})
        if is_member:
            view["Meu voto"] = [vote_label(v) for v in df["my_historical"].tolist()]
            view["Meu valor"] = [money_in(a_, c) for a_, c in zip(df["my_amount"].tolist(), df["my_currency"].tolist())]
            view["Meu valor (R$)"] = df["my_value_brl"].tolist()
        if ov.visibility == "progress":
            view["Membros que avaliaram"] = df["entries"].tolist()
        if ov.visibility in ("anonymous", "full"):
            view["Votos sim / não"] = [f"{f} / {g}" for f, g in zip(df["votes_for"].tolist(),
                                                                      df["votes_against"].tolist())]
            view["Mediana (R$)"] = df["median_brl"].tolist()
            view["Dispersão"] = [percent_br(v) for v in df["spread"].tolist()]
            view["Consenso"] = [vote_label(h) if d != "undecided" else DECIDED_BY_LABELS["undecided"]
                                for h, d in zip(df["historical"].tolist(), df["decided_by"].tolist())]
            view["Valor (R$)"] = df["value_brl"].tolist()
            view["Sinalizado"] = [yes_no(bool(f)) for f in df["flagged"].tolist()]
            outside = comparables_ui.flag_column(store, user, rid, df["item_id"].tolist())
            if outside is not None:
                view["Fora dos comparáveis"] = outside
        st.dataframe(for_display(view, money=("Meu valor (R$)", "Mediana (R$)", "Valor (R$)"),
                                 counts=("Membros que avaliaram",)), hide_index=True, width="stretch")
        if ov.visibility == "own":
            st.caption("Rodada aberta: você vê apenas as suas avaliações. A mediana e a dispersão anônimas aparecem "
                       "depois do encerramento.")
        elif ov.visibility == "progress":
            st.caption("Rodada aberta: a DPC acompanha o andamento — quantos membros avaliaram cada item e, na aba "
                       "Andamento, quantos itens cada membro avaliou. Os valores e votos aparecem no encerramento, "
                       "como para os membros (independência das avaliações).")
        row = None
        if len(df) and ov.visibility != "progress":
            codes = df["item_code"].tolist()
            sel = st.selectbox("Item", range(len(codes)), key=f"cm_item_{rid}_{page}",
                               format_func=lambda k: f"{codes[k]} — {df['description'].iloc[k]}")
            row = df.iloc[sel]
            st.session_state[f"cm_last_item_{rid}"] = str(row["item_code"])   # the override form's default
            item_panel(row, ov)

if tabs.is_open("Planilha"):
    with tabs["Planilha"]:
        st.caption("Baixe a planilha com os itens da rodada (já com as suas avaliações), preencha e envie. Colunas: "
                   "Código, Histórico (sim, não ou vazio), Valor (ex.: 1.234,56), Moeda, Data do preço (dd/mm/aaaa), "
                   "Significância (1 a 5, voto histórico), Manter (sim ou não), Fonte ("
                   + ", ".join(SHEET_SOURCE_VALUES) + ") e Observação. Tudo ou nada: se uma linha tiver "
                   "problema, nada é gravado.")
        t1, t2 = st.columns(2)
        t1.download_button("Baixar planilha (CSV)", data=lambda: round_template(store, user, rid, "csv"),
                           file_name=f"avaliacao_rodada{rnd.number}.csv", mime="text/csv", key="cm_tpl_csv")
        t2.download_button("Baixar planilha (XLSX)", data=lambda: round_template(store, user, rid, "xlsx"),
                           file_name=f"avaliacao_rodada{rnd.number}.xlsx", key="cm_tpl_xlsx",
                           mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
        upload = st.file_uploader("Planilha preenchida (CSV ou XLSX)", type=["csv", "txt", "xlsx"], key="cm_upload")
        # Not ui.forms.save: a refused sheet lists its problems as a table (line, column, reason).
        if st.button("Importar avaliações", type="primary", disabled=upload is None, key="cm_import"):
            with st.status("Conferindo e gravando a planilha…") as status:
                try:
                    res = import_assessments(store, user, rid, upload.getvalue(), upload.name)
                except InputError as exc:
                    status.update(label="Planilha recusada", state="error")
                    table = problems_frame(exc)
                    lines = sorted({int(n) for n in table["Linha"].dropna()})
                    st.error(f"Planilha recusada: nada foi gravado. {len(table)} problema(s)"
                             + (f" em {len(lines)} linha(s)." if lines else "."))
                    st.dataframe(for_display(table, counts=("Linha",)), hide_index=True, width="stretch")
                except ERRORS as exc:
                    status.update(label="Planilha recusada", state="error")
                    st.error(str(exc))
                else:
                    status.update(label="Planilha gravada", state="complete")
                    ignored = f" Colunas ignoradas: {', '.join(md(c) for c in res.ignored_columns)}." \
                        if res.ignored_columns else ""
                    st.success(f"{count_br(res.rows)} avaliação(ões) gravada(s): {count_br(res.new)} nova(s), "
                               f"{count_br(res.corrections)} correção(ões).{ignored}")

if tabs.is_open("Presidência"):
    with tabs["Presidência"]:
        if not is_open:
            comparables_ui.round_flags(store, user, rid)
        if is_open:
            progress_table()
            sure = st.checkbox("Confirmo o encerramento: os membros não poderão mais registrar avaliações.",
                               key="cm_close_sure")
            if st.button("Encerrar rodada", type="primary", disabled=not sure, key="cm_close"):
                message = f"Rodada {rnd.number} encerrada: o consenso de cada item foi calculado e gravado."
                done(save(close_round, store, user, rid, success=None), message)
        elif rnd.status in ("encerrada", "decidida"):
            if st.button("Adotar o consenso dos itens decididos", key="cm_adopt"):
                res = save(record_decisions, store, user, rid, success=None)
                done(res, "" if res is None else f"{count_br(res.written)} decisão(ões) registrada(s); "
                     f"{count_br(res.skipped)} item(ns) sem decisão (sem quórum, empate sem voto do presidente ou "
                     f"sem valor).")
            with st.form("cm_override"):
                st.markdown("**Decisão divergente do consenso (um item, com motivo)**")
                o1, o2, o3 = st.columns(3)
                o_code = o1.text_input("Código do item", value=st.session_state.get(f"cm_last_item_{rid}", ""))
                o_hist = o2.radio("Classificação", [True, False], format_func=lambda h: VOTES[h], horizontal=True)
                o_value = o3.text_input("Valor (R$)", placeholder="ex.: 1.234,56")
                o4, o5 = st.columns(2)
                o_sig = o4.selectbox("Significância", [None, 1, 2, 3, 4, 5],
                                     format_func=lambda s: "—" if s is None else str(s))
                o_keep = o5.checkbox("Manter na União")
                o_reason = st.text_area("Motivo (vai para o fundamento da decisão e para a ata)")
                if st.form_submit_button("Registrar decisão"):
                    message = f"Decisão do item {o_code.strip()} registrada."
                    done(save(override_decision, store, user, rid, o_code, historical=o_hist, value=o_value,
                              significance=o_sig, must_keep=o_keep, reason=o_reason, success=None,
                              labels=OVERRIDE_LABELS), message)
            if rnd.status == "decidida" and st.button("Publicar decisões", type="primary", key="cm_publish"):
                message = f"Decisões da rodada {rnd.number} publicadas: a empresa já as vê."
                done(save(publish_round, store, user, rid, success=None), message)
        else:
            st.info("Rodada publicada: uma mudança exige nova rodada (abra-a acima, com os itens sinalizados).")

if tabs.is_open("Concordância"):
    with tabs["Concordância"]:
        try:
            ag = agreement(store, user, rid)
        except ERRORS as exc:
            st.info(str(exc))
        else:
            g = st.columns(4)
            g[0].metric("Alfa de Krippendorff (votos)", number_br(ag.alpha_votes, 3))
            g[1].metric("CCI(2,1) log-valores", number_br(ag.icc_log_values, 3),
                        help=f"{ag.icc_items} itens com valor de todos os membros")
            g[2].metric("Membros", count_br(ag.n_members))
            g[3].metric("Itens sinalizados", count_br(ag.flagged_total))
            if ag.deviations:
                fig = go.Figure()
                for d in ag.deviations:
                    fig.add_trace(go.Box(name=d.member, x=[d.member], q1=[d.p25 * 100], median=[d.median * 100],
                                         q3=[d.p75 * 100], lowerfence=[d.minimum * 100], upperfence=[d.maximum * 100],
                                         mean=[d.mean * 100], boxpoints=False, showlegend=False))
                pt_br(fig, height=360)
                fig.update_layout(title="Desvio de cada membro em relação à mediana do item",
                                  yaxis_title="Desvio da mediana (%)", yaxis_ticksuffix=" %",
                                  margin={"l": 10, "r": 10, "t": 40, "b": 10})
                show(fig)
            st.markdown(f"**Itens sinalizados** ({count_br(ag.flagged_total)})")
            if len(ag.flagged):
                fl = ag.flagged.copy()
                fl["spread"] = [percent_br(v) for v in fl["spread"].tolist()]
                st.dataframe(for_display(
                    fl, money=("median_brl",), counts=("n_values", "votes_for", "votes_against"),
                    labels={"decided_by": DECIDED_BY_LABELS},
                    only=("item_code", "description", "n_values", "median_brl", "spread", "votes_for",
                          "votes_against", "decided_by"),
                    rename={"item_code": "Código", "description": "Descrição", "n_values": "Valores",
                            "median_brl": "Mediana (R$)", "spread": "Dispersão", "votes_for": "Votos sim",
                            "votes_against": "Votos não", "decided_by": "Decisão"}), hide_index=True, width="stretch")
            else:
                st.caption("Nenhum item sinalizado nesta rodada.")

if tabs.is_open("Ata"):
    with tabs["Ata"]:
        if is_open:
            st.info("A ata só é lavrada depois do encerramento da rodada.")
        else:
            st.caption("Ata da rodada em PDF: identificação, membros, regras, itens, decisões divergentes, itens "
                       "sinalizados, concordância e assinaturas.")
            st.download_button("Baixar ata (PDF)", data=lambda: round_minutes_pdf(store, user, rid),
                               file_name=f"ata_{rnd.contract_code.replace('/', '-')}_rodada{rnd.number}.pdf",
                               mime="application/pdf", key="cm_minutes")
            attachments_ui.photo_sheet("Baixar anexo fotográfico (PDF)", lambda: round_photo_sheet(store, user, rid),
                                       f"anexo_fotos_{rnd.contract_code.replace('/', '-')}_rodada{rnd.number}.pdf",
                                       key="cm_photo_sheet")
