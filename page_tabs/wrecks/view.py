"""What every tab of a wreck's detail works on: the user, the store and the wreck shown."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from valuation.db.access import Principal
from valuation.db.store import Store


@dataclass(frozen=True)
class WreckView:
    user: Principal
    store: Store
    wreck: dict[str, Any]     # valuation.registry.wrecks.get_wreck (positions only where cleared)

    @property
    def wreck_id(self) -> int:
        return int(self.wreck["id"])
