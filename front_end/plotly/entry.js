// The plotly.js traces the dashboard draws (ui/charts.py DRAWN_TRACES): scatter (in plotly.js's core),
// bar (px.bar, px.timeline, go.Bar) and scattergeo (the wrecks' map). A figure with any other trace type is
// drawn by Streamlit's own st.plotly_chart instead.
import Plotly from "plotly.js/lib/core";
import bar from "plotly.js/lib/bar";
import scattergeo from "plotly.js/lib/scattergeo";

Plotly.register([bar, scattergeo]);

export default Plotly;
