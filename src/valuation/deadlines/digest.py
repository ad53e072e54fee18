"""The principal the daily deadline digest reads as (the command: `valuation.cli.deadlines`; the
e-mail: `valuation.jobs.digest_mail`)."""
from __future__ import annotations

from valuation.db.access import Principal

# The digest reads as DPC: a system principal that exists only in this process (never in `users`).
SYSTEM_PRINCIPAL = Principal(id=0, username="digest", full_name="Resumo diário de prazos", role="dpc",
                             organisation_id=None, commission_body=None)
