"""Streamlit glue: session, login, page registry, caching, formatting for display.

The only place (with app.py and pages/) that imports streamlit. Pages stay thin:
config → guard → widgets → one call into `valuation` → render.
"""
