"""Shared test helpers.

Tests that need a service (PostgreSQL, Chromium) call ``need_service``: it skips with the reason
when the service is absent, and fails instead when D100_REQUIRE_SERVICES=1 (as CI sets), so a
missing install step can never pass as a skip."""

from __future__ import annotations

import os

import pytest


def services_required() -> bool:
    return os.environ.get("D100_REQUIRE_SERVICES", "") not in ("", "0")


def need_service(available: bool, reason: str) -> None:
    if available:
        return
    if services_required():
        pytest.fail(f"required service missing (D100_REQUIRE_SERVICES=1): {reason}")
    pytest.skip(reason)
