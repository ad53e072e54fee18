"""Inventário de bens resgatados: import (all or nothing, with progress and an error table),
filters/search/pagination and charts computed in DuckDB, XLSX/CSV exports of the selection."""
from __future__ import annotations

import streamlit as st

from ui import attachments as attachments_ui  # issue 16: item photos
from ui import cache, figures, session
from ui.charts import pt_br, show
from ui.expanders import lazy_expander
from ui.fields import date_field, value_or_stop
from ui.fmt import brl, brl_fit, count_br, for_display, option_label, yes_no
from ui.people import with_names
from ui.safe import md
from ui.tabs import LazyTabs
from valuation.core.errors import AccessDenied, ConflictError, InputError, NotFound
from valuation.db.access import allowed
from valuation.inventory import fields, item_import
from valuation.inventory import queries as inv

MONTHS_TITLE = "Por mês de recuperação"

user = session.guard("inventory")
store = session.store()
today = session.today()
st.title("Inventário de bens resgatados")
st.caption("Todo bem resgatado é registrado e entregue à Autoridade Naval (Lei 7.542/1986, art. 23). "
           "Filtros, busca e gráficos são calculados no banco: a tabela mostra uma página por vez.")

contracts = cache.inventory_contracts(store, user)  # issue 17: the cache.* reads, once per database revision
with st.expander("Filtros (valem para a consulta e para a exportação)", expanded=True):
    c1, c2, c3, c4 = st.columns(4)
    contract = c1.selectbox("Contrato", [""] + [c["code"] for c in contracts], format_func=lambda c: c or "Todos")
    options = cache.inventory_options(store, user, contract_code=contract or None)
    search = c2.text_input("Buscar (código, descrição, material, lote, observações)")
    category = c3.selectbox("Categoria", [""] + options["category"], format_func=lambda c: c or "Todas")
    material = c4.selectbox("Material", [""] + options["material"], format_func=lambda c: c or "Todos")
    c5, c6, c7, c8 = st.columns(4)
    lot = c5.text_input("Lote")
    status = c6.selectbox("Entrega (art. 23)", ["", "sim", "não"],
                          format_func=lambda s: {"": "Todos", "sim": "Entregues", "não": "Não entregues"}[s])
    start = value_or_stop(date_field("Recuperados de", where=c7))
    end = value_or_stop(date_field("Recuperados até", where=c8))
flt = inv.ItemFilter(contract_code=contract or None, search=search or None, category=category or None,
                     material=material or None, lot=lot.strip() or None,
                     delivered={"": None, "sim": True, "não": False}[status], recovered_from=start, recovered_to=end)

may_import = allowed(user, "import_items")
names = ["Consultar", "Importar", "Exportar"] if may_import else ["Consultar", "Exportar"]
tabs = LazyTabs("inventory", names)   # issue 17: only the open tab runs

if tabs.is_open("Importar"):
    with tabs["Importar"]:
        targets = [c["code"] for c in contracts if c["importable"]]
        if not targets:
            st.info("Nenhum contrato vigente de exploração, remoção ou demolição para importar "
                    "(a autorização de pesquisa não dá direito de remover coisa alguma — art. 18, parágrafo único).")
        else:
            target = st.selectbox("Contrato vigente", targets, key="import_contract", index=None,
                                  placeholder="Escolha o contrato")   # never one the person did not choose
            upload = st.file_uploader("Arquivo CSV ou XLSX", type=["csv", "txt", "tsv", "xlsx", "xlsm"])
            st.caption(f"Colunas: {fields.columns_caption()}. Aceita CSV do Excel (`;`, vírgula decimal, "
                       "dd/mm/aaaa, Windows-1252 ou UTF-8) e XLSX. Tudo ou nada: uma linha ruim recusa o arquivo.")
            if target is None:
                st.caption("Contrato vigente: escolha o contrato para importar.")
            if st.button("Importar", type="primary", disabled=upload is None or target is None) and \
                    upload is not None and target is not None:
                bar = st.progress(0.0, text="Lendo o arquivo…")

                def advance(fraction: float, text: str) -> None:
                    bar.progress(min(max(fraction, 0.0), 1.0), text=text)

                try:
                    result = item_import.import_items(store, user, target, upload.getvalue(), upload.name,
                                                      today=today, progress=advance)
                except InputError as exc:
                    bar.empty()
                    problems = item_import.problems_frame(exc)
                    lines = sorted({int(n) for n in problems["linha"].dropna()})
                    shown = ", ".join(str(n) for n in lines[:30]) + (" …" if len(lines) > 30 else "")
                    st.error(f"Arquivo recusado: nada foi gravado. {len(problems)} problema(s)"
                             + (f" nas linhas {shown}." if lines else "."))
                    table = for_display(problems, counts=("linha",),
                                        rename={"linha": "Linha", "coluna": "Coluna", "motivo": "Motivo"})
                    (st.table if len(table) <= 50 else st.dataframe)(table)
                except (AccessDenied, NotFound, ConflictError) as exc:
                    bar.empty()
                    st.error(str(exc))
                else:
                    st.success(f"Importação nº {result.import_id} concluída: {count_br(result.rows)} itens gravados no "
                               f"contrato {result.contract_code}, que agora tem "
                               f"{count_br(result.items_in_contract)} itens.")
                    if result.ignored_columns:
                        st.info("Colunas ignoradas: " + ", ".join(md(c) for c in result.ignored_columns))
        with lazy_expander("Últimas importações", key="inventory_imports_box") as opened:
            if opened:
                imports = item_import.list_imports(store, user)
                if len(imports):
                    imports = with_names(store, user, imports, "imported_by")
                    st.dataframe(for_display(imports, dates=("imported_at",), counts=("row_count",),
                                             rename={"id": "Nº", "contract_code": "Contrato", "file_name": "Arquivo",
                                                     "sha256": "SHA-256", "row_count": "Itens", "imported_by": "Por",
                                                     "imported_at": "Em"}), hide_index=True, width="stretch")
                else:
                    st.caption("Nenhuma importação registrada.")

if tabs.is_open("Consultar"):
    with tabs["Consultar"]:
        summary = cache.inventory_summary(store, user, flt)
        t = summary.totals
        m = st.columns(5)
        m[0].metric("Itens", count_br(t["items"]))
        m[1].metric("Peças (quantidade)", count_br(t["quantity"]))
        m[2].metric("Entregues", count_br(t["delivered"]))
        m[3].metric("Não entregues (art. 23)", count_br(t["undelivered"]))
        m[4].metric("Valor decidido", brl_fit(t["value_brl"], 5) if t["valued"] else "—",
                    help=(f"{brl(t['value_brl'])} — " if t["valued"] else "")
                    + f"{count_br(t['valued'])} itens com valor decidido pela Comissão")
        bands = summary.by_value_band
        unvalued = bands[bands["label"] == inv.NO_VALUE] if len(bands) else bands
        bands = bands[bands["label"] != inv.NO_VALUE] if len(bands) else bands  # one bar would dwarf the others
        band_title = "Por faixa de valor decidido" + (
            f" ({count_br(unvalued['items'].sum())} itens ainda sem valor)" if len(unvalued) else "")
        charts = [("Por categoria", summary.by_category), ("Por material", summary.by_material),
                  (MONTHS_TITLE, summary.by_month), (band_title, bands)]
        charts = [(title, df) for title, df in charts if len(df)]
        for i in range(0, len(charts), 2):
            for col, (title, df) in zip(st.columns(2), charts[i:i + 2]):
                fig = figures.bar(df, x="label", y="items", labels={"label": "", "items": "Itens", "quantity": "Peças"},
                                  title=title, hover_data={"quantity": ":,d"} if "quantity" in df.columns else None)
                pt_br(fig, counts=("y",), height=300)
                if title == MONTHS_TITLE:
                    fig.update_xaxes(type="date", tickformat="%m/%Y", hoverformat="%m/%Y")
                fig.update_layout(margin={"l": 10, "r": 10, "t": 40, "b": 10})
                with col:
                    show(fig)

        p1, p2, p3 = st.columns(3)
        size = p1.selectbox("Itens por página", [25, 50, 100, 250, 500], index=1)
        pages = max(1, -(-t["items"] // size))
        page = p2.number_input(f"Página (de {count_br(pages)})", min_value=1, max_value=pages, value=1, step=1)
        order = p3.selectbox("Ordem", list(inv.ORDER_LABELS), format_func=option_label(inv.ORDER_LABELS))
        rows = cache.inventory_page(store, user, flt, page=int(page), page_size=int(size), order=order)
        rows["historical"] = [yes_no(v) if isinstance(v, bool) else "—" for v in rows["historical"].tolist()]
        if len(rows):
            formats = fields.display_formats()
            st.dataframe(for_display(rows, money=("value_brl",), dates=(*formats.dates, "delivered_on"),
                                     numbers=formats.numbers, counts=formats.counts,
                                     only=[c for c in inv.COLUMN_LABELS if c in rows.columns],
                                     rename=inv.COLUMN_LABELS),
                         hide_index=True, width="stretch")
        else:
            st.info("Nenhum bem resgatado na seleção dos filtros.")
        attachments_ui.item_detail(store, user, rows)

if tabs.is_open("Exportar"):
    with tabs["Exportar"]:
        n = int(cache.inventory_summary(store, user, flt).totals["items"])   # the selection of the filters
        st.write(f"A seleção dos filtros tem **{count_br(n)}** itens.")
        st.caption(f"XLSX até {count_br(inv.XLSX_MAX_ROWS)} linhas: a planilha é montada célula a célula e, "
                   "acima disso, "
                   f"levaria muitos segundos e muita memória. CSV (`;`, vírgula decimal, abre no Excel) vai até "
                   f"{count_br(inv.CSV_MAX_ROWS)} linhas; para mais, filtre por contrato, categoria ou período. "
                   "Células de "
                   "texto que começam com =, +, -, @ são neutralizadas (não viram fórmulas).")
        stamp = today.strftime("%Y%m%d")
        x1, x2 = st.columns(2)
        x1.download_button("Baixar XLSX", data=lambda: inv.export_items(store, user, flt, "xlsx"),
                           file_name=f"inventario_{stamp}.xlsx", disabled=n == 0 or n > inv.XLSX_MAX_ROWS,
                           mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
        x2.download_button("Baixar CSV", data=lambda: inv.export_items(store, user, flt, "csv"),
                           file_name=f"inventario_{stamp}.csv", mime="text/csv",
                           disabled=n == 0 or n > inv.CSV_MAX_ROWS)
        if n > inv.XLSX_MAX_ROWS:
            st.info(f"Seleção acima de {count_br(inv.XLSX_MAX_ROWS)} itens: use o CSV.")
