"""Shared test helpers.

Tests that need a service (PostgreSQL, Chromium) call ``need_service``: it skips with the reason
when the service is absent, and fails instead when D100_REQUIRE_SERVICES=1 (as CI sets), so a
missing install step can never pass as a skip."""

from __future__ import annotations

import os

import pytest

# record_property(FIGURES, "...") in a test: the line is printed in the terminal summary, so
# measured figures (kills survived, rolls checked) show in plain ``pytest -q -n 2`` output.
# The hooks run in the controlling process, which receives every worker's report.
FIGURES = "d100_figures"
_figures: list[str] = []
# record_property(TOTALS, (label, n)) in a parametrised test: one line per label, n summed over
# its cases, so figures split across workers print once.
TOTALS = "d100_totals"
_totals: dict[str, int] = {}


def services_required() -> bool:
    return os.environ.get("D100_REQUIRE_SERVICES", "") not in ("", "0")


def need_service(available: bool, reason: str) -> None:
    if available:
        return
    if services_required():
        pytest.fail(f"required service missing (D100_REQUIRE_SERVICES=1): {reason}")
    pytest.skip(reason)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _figures.extend(f"{report.nodeid}: {v}" for k, v in report.user_properties if k == FIGURES)
        for label, n in (v for k, v in report.user_properties if k == TOTALS):
            _totals[label] = _totals.get(label, 0) + n


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _figures or _totals:
        terminalreporter.write_sep("-", "measured figures")
        for line in [*_figures, *(f"{label}: {n}" for label, n in _totals.items())]:
            terminalreporter.write_line(line)
