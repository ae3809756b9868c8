"""Shared test helpers.

Tests that need a service (PostgreSQL, Chromium) call ``need_service``: it skips with the reason
when the service is absent, and fails instead when D100_REQUIRE_SERVICES=1 (as CI sets), so a
missing install step can never pass as a skip."""

from __future__ import annotations

import os
from collections.abc import Iterator

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


# How deep the statistical and kill tests go. CI runs "standard": sized to what each test
# needs beside the exact oracles, within CI's minutes; "deep" (D100_TEST_DEPTH=deep, by hand,
# before a release or after touching the dice, the store or the sampler) runs them as long as
# the property deserves. Exact tests (oracles, brute force, references) never depend on it.
DEEP = os.environ.get("D100_TEST_DEPTH", "standard") == "deep"


def depth(standard: int, deep: int) -> int:
    """A count for this run's depth: ``standard`` in CI and ``make test``, ``deep`` by hand."""
    return deep if DEEP else standard


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


def _on_postgres(item: pytest.Item) -> bool:
    """The test talks to the PostgreSQL server: it asks for its database, or is one case of a
    parametrisation over the databases (``database_url``, ``on_both``, a ``server`` fixture)."""
    if "pg_url" in getattr(item, "fixturenames", ()):
        return True
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(value == "postgresql" for value in params.values())


def _sqlite_only(item: pytest.Item) -> bool:
    """The test is marked ``sqlite_only``: the store is not its subject (see pyproject.toml's
    markers); the mark must say why."""
    mark = item.get_closest_marker("sqlite_only")
    if mark is None:
        return False
    if not (mark.args or mark.kwargs.get("reason")):
        raise pytest.UsageError(f"{item.nodeid}: sqlite_only needs its reason")
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Markers follow what a test needs, so ``-m "not postgres"`` leaves out every one of them,
    wherever its parametrisation comes from. A ``sqlite_only`` test's PostgreSQL cases are
    left out (deselected). The slow tests go first, then the browser's: a long test started
    last keeps one worker busy after the others are done."""
    left_out = [item for item in items if _on_postgres(item) and _sqlite_only(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        gone = {id(item) for item in left_out}
        items[:] = [item for item in items if id(item) not in gone]
    for item in items:
        if _on_postgres(item) and item.get_closest_marker("postgres") is None:
            item.add_marker(pytest.mark.postgres)
    items.sort(  # stable: a module's tests stay together
        key=lambda item: (
            item.get_closest_marker("slow") is None,
            item.get_closest_marker("browser") is None,
        )
    )


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A PostgreSQL database of this test process's own, at the newest schema (its tests make
    their own tables)."""
    from tests.server.services import postgres_available, postgres_database

    need_service(postgres_available(), "PostgreSQL is not running at 127.0.0.1:5432")
    with postgres_database(migrated=True) as url:
        yield url
