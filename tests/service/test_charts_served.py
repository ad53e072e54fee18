"""The charts the service draws itself (issue 28): service/chart_bundle.py, service/assets/plotly_chart.js,
ui/charts.show.

Under the service a chart is a v2 component drawing with the partial plotly.js built by
front_end/plotly/build.sh, not st.plotly_chart with Streamlit's whole plotly.js. Checked here: the bundle is
the file its name says and carries its packages' licenses; it is served immutable, and nothing else under
its route; the figure the component receives has the product's theme and escaped data text; and, in
Chromium against the real service, a page by its address draws its charts and its map with the bundle (never
Streamlit's Plotly chunk), the mode bar speaks Portuguese, and no error reaches the console.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import pytest

from service import chart_bundle
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, login
from tests.support.service import running_service
from ui import charts

ROOT = Path(__file__).resolve().parents[2]


def test_the_bundle_is_the_file_its_name_says_with_its_licenses() -> None:
    path = chart_bundle.bundle()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert path.name == f"plotly-{digest[:12]}.min.js"
    licenses = path.with_name(path.name.replace(".min.js", ".LICENSES.txt")).read_text(encoding="utf-8")
    assert "plotly.js 4.1.1 — MIT" in licenses and "d3-geo" in licenses
    entry = (ROOT / "front_end" / "plotly" / "entry.js").read_text(encoding="utf-8")
    registered = {"scatter"} | {name for name in charts.DRAWN_TRACES if f'"plotly.js/lib/{name}"' in entry}
    assert registered == charts.DRAWN_TRACES      # what show() sends to the bundle is what the bundle draws


def test_the_figure_sent_has_the_theme_and_data_text_escaped() -> None:
    fig = go.Figure(go.Bar(x=["<b>Casco</b>", "Âncora"], y=[1, 2], hovertext=["<a href='x'>y</a>", "z"]))
    spec = charts.spec(charts.plain_data(fig))
    assert spec["layout"]["template"] == charts.THEME
    assert spec["layout"]["template"]["layout"]["colorway"][0] == "#0068c9"     # Streamlit's first colour
    bar = spec["data"][0]
    assert bar["x"] == ["&lt;b&gt;Casco&lt;/b&gt;", "Âncora"] and bar["hovertext"][0].startswith("&lt;a href")
    assert charts.trace_types(fig) <= charts.DRAWN_TRACES
    # px colours its traces from the template's colorway: Streamlit's placeholders become the theme's colours
    import pandas as pd
    import plotly.express as px

    colored = px.bar(pd.DataFrame({"x": ["a", "b"], "y": [1, 2], "c": ["um", "dois"]}), x="x", y="y", color="c")
    assert [t["marker"]["color"] for t in charts.spec(colored)["data"]] == charts.THEME["layout"]["colorway"][:2]
    assert "#000001" not in json.dumps(charts.spec(colored))
    assert charts.trace_types(go.Figure(go.Pie(labels=["a"], values=[1]))) == {"pie"}    # → st.plotly_chart


@pytest.mark.browser
def test_the_bundle_is_served_immutable_and_pages_by_address_draw_with_it(small_world: Any, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    small_world.store.close()
    db = tmp_path / "charts.duckdb"
    shutil.copyfile(small_world.path, db)
    username = small_world.username("dpc")
    with sync_playwright() as p, running_service(db) as svc:
        got = svc.get("/" + chart_bundle.url_path())
        assert got.status == 200 and got.read() == chart_bundle.bundle().read_bytes()
        assert got.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert got.headers["content-type"].startswith("text/javascript")
        for other in ("plotly-000000000000.min.js", "..%2Fassets%2Fcookie_bridge.js", "chart_theme.json"):
            assert svc.get("/graficos/" + other).status in (400, 404)     # nothing else under the route
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="pt-BR")
            first = context.new_page()
            first.set_default_timeout(60_000)
            login(first, svc.base, username, small_world.passwords[username])
            for path, map_ in (("", False), ("wrecks", True)):
                tab = context.new_page()
                asked: list[str] = []
                errors: list[str] = []
                tab.on("request", lambda r, asked=asked: asked.append(r.url))
                tab.on("console", lambda m, errors=errors: errors.append(m.text) if m.type == "error" else None)
                tab.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                tab.goto(f"{svc.base}/{path}")
                tab.locator(".valuation-chart .main-svg").first.wait_for(timeout=60_000)
                if map_:
                    tab.locator(".valuation-chart .geolayer path").first.wait_for(timeout=60_000)
                assert tab.locator('[data-testid="stPlotlyChart"]').count() == 0
                assert any(u.endswith("/" + chart_bundle.url_path()) for u in asked) or path == "wrecks"
                assert not any("/PlotlyChart." in u for u in asked), "Streamlit's whole plotly.js was loaded"
                tab.locator(".valuation-chart").first.hover()
                tab.locator(".valuation-chart .modebar-btn").first.wait_for(state="attached")
                titles = tab.locator(".valuation-chart .modebar-btn").evaluate_all(
                    "(els) => els.map((e) => e.getAttribute('data-title'))")
                assert "Baixar gráfico em PNG" in titles and not any("Download" in (t or "") for t in titles)
                assert tab.locator('[data-testid="stException"]').count() == 0
                assert not errors, errors
                tab.close()
        finally:
            browser.close()


def test_the_pages_that_draw_a_chart_when_opened_are_the_ones_flagged() -> None:
    """PageSpec.charts (service/front_end_base.py imports the charts' code early for these): every flagged
    page draws through ui.charts.show; a page that does but is not flagged draws only after an action."""
    from ui.registry import PAGES

    # Escolha da União: its charts follow "Calcular A e B"; Avaliação da Comissão: in a tab not shown first
    after_an_action = {"selection", "commission"}
    for page in PAGES:
        sources = [ROOT / page.path, *sorted((ROOT / "page_tabs" / page.key).glob("*.py"))]
        draws = any("from ui.charts import" in f.read_text(encoding="utf-8") for f in sources)
        assert page.charts == (draws and page.key not in after_an_action), page.key
