// The dashboard's charts (issue 28), served from the app's own origin (CSP script-src 'self'): a v2 component
// mounted by ui/charts.show with a Plotly figure already prepared in Python (the product's template, pt-BR
// locale, data text escaped), drawn with the partial plotly.js of service/chart_bundle.py — three trace types
// instead of the whole plotly.js that st.plotly_chart loads (0.2 s of evaluation in a fresh tab, not ~1 s).
// The bundle is imported once per tab, on the first chart; every chart of the tab shares it.
let plotly = null;
const drawn = new WeakMap();   // chart element → the figure's JSON last drawn in it

function load(address) {
  if (plotly === null) {
    // the app's base (service/front_end_base.py names it on a page's address), else the page's own address
    const base = (window.__streamlit || {}).BACKEND_BASE_URL || document.baseURI;
    plotly = import(new URL(address, base).href).then((module) => module.default);
    plotly.catch(() => { plotly = null; });   // a later render tries again
  }
  return plotly;
}

// The app's colours when Streamlit is in a dark theme: the template is Streamlit's light chart theme.
function themed(layout) {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return layout;
  const style = getComputedStyle(app);
  const rgb = (style.backgroundColor.match(/\d+(\.\d+)?/g) || []).slice(0, 3).map(Number);
  const luminance = rgb.length === 3 ? (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255 : 1;
  if (luminance >= 0.5) return layout;
  return {...layout, paper_bgcolor: style.backgroundColor, plot_bgcolor: style.backgroundColor,
          font: {...(layout.font || {}), color: style.color}};
}

export default function (component) {
  const { data, parentElement } = component;
  let chart = parentElement.querySelector(".valuation-chart");   // the component's html (ui/charts.py)
  if (!chart) {
    chart = document.createElement("div");
    chart.className = "valuation-chart";
    parentElement.appendChild(chart);
  }
  const text = JSON.stringify(data.figure);
  let alive = true;
  if (drawn.get(chart) !== text) {
    load(data.bundle).then((Plotly) => {
      if (!alive || !chart.isConnected) return;
      const figure = data.figure;
      drawn.set(chart, text);
      return Plotly.react(chart, figure.data, themed(figure.layout || {}),
                          {...data.config, responsive: true});
    }).catch((error) => console.error("gráfico não desenhado", error));
  }
  return () => {
    alive = false;
    if (!chart.isConnected && plotly !== null) {
      plotly.then((Plotly) => Plotly.purge(chart)).catch(() => {});
    }
  };
}
