"""The service: one ASGI process (uvicorn serving `service.asgi:app`, a Streamlit `st.App`) that owns
the DuckDB file, keeps login sessions in cookies, runs the daily jobs, serves calendar feeds and
runs the command line's batch commands for it. See README "Architecture"."""
