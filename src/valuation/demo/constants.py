"""The demo's fixed facts: its seed, its "today" and who writes its rows (shared by the demo steps)."""
from __future__ import annotations

from datetime import date

DEMO_SEED = 7542                      # Lei 7.542/1986
DEMO_TODAY = date(2026, 11, 30)       # the demo's "today": nothing recorded after it
DEMO_ACTOR = "demo"
