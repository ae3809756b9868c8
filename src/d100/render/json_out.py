"""JSON: the contract's shapes (CONTRACT.md), one object per line, as ``d100 resolve`` writes."""

from __future__ import annotations

import json
from typing import Any


def render(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False)
