"""The service's public address (VALUATION_BASE_URL): the links in e-mails and the verification address printed
on every issued document lead there. One definition for both."""
from __future__ import annotations

import os
from collections.abc import Mapping

DEFAULT_BASE_URL = "http://127.0.0.1:8501"


def base_url(env: Mapping[str, str] | None = None) -> str:
    """VALUATION_BASE_URL of `env` (default: the process's environment), without a trailing slash."""
    return str((env if env is not None else os.environ).get("VALUATION_BASE_URL", DEFAULT_BASE_URL)).rstrip("/")
