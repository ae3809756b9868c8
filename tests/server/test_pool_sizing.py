"""Each server process sizes its PostgreSQL pool from the server's ``max_connections`` and the
number of processes it is told (``D100_PROCESSES``): together they never ask for more than the
server allows, and a process whose share is too small refuses to start, saying why."""

from __future__ import annotations

from pathlib import Path

import pytest

from d100.cli import main
from d100.server import serving
from d100.server.store import LEAST_POOL, SPARE, PoolTooSmall, Store, pool_sizes


@pytest.mark.parametrize("processes", [1, 2, 3, 5, 8, 18])
@pytest.mark.parametrize(("most", "reserved"), [(100, 3), (200, 3), (1000, 10)])
def test_the_processes_together_stay_within_the_server(
    most: int, reserved: int, processes: int
) -> None:
    # Three processes of 30 + 10 on a stock server (100) were "too many clients".
    size, overflow = pool_sizes(most, reserved, processes)
    each = size + overflow + 1  # and its listener
    assert size >= 1 and overflow >= 0
    assert processes * each <= most - reserved - SPARE
    assert (size, overflow) <= (30, 10)


def test_a_stock_server_shared_three_ways() -> None:
    # 100 less 3 reserved less 3 spare = 94: 31 each, one of them the listener.
    assert pool_sizes(100, 3, 3) == (22, 8)
    assert pool_sizes(100, 3, 1) == (30, 10)


def test_too_many_processes_are_refused_naming_what_to_change() -> None:
    with pytest.raises(PoolTooSmall) as refused:
        pool_sizes(100, 3, 19)  # 94 // 19 = 4, less the listener: 3
    said = str(refused.value)
    assert "max_connections" in said and "D100_PROCESSES" in said
    assert f"at least {19 * (LEAST_POOL + 1) + 3 + SPARE}" in said
    pool_sizes(19 * (LEAST_POOL + 1) + 3 + SPARE, 3, 19)  # what it names is enough


@pytest.mark.postgres
def test_a_process_reads_its_servers_limit(pg_url: str) -> None:
    store = Store(pg_url, processes=2)
    try:
        with store.engine.connect() as connection:
            most = int(connection.exec_driver_sql("SHOW max_connections").scalar_one())
            reserved = int(
                connection.exec_driver_sql("SHOW superuser_reserved_connections").scalar_one()
            )
        assert (store.pool_size, store.pool_overflow) == pool_sizes(most, reserved, 2)
        assert store.engine.pool.size() == store.pool_size  # type: ignore[attr-defined]
    finally:
        store.dispose()


@pytest.mark.postgres
def test_serve_refuses_to_start_past_the_servers_connections(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[object] = []
    monkeypatch.setattr(serving, "run", lambda app, **_: started.append(app))
    monkeypatch.setenv("D100_PROCESSES", "5000")
    assert main(["serve", "--database", pg_url]) == 2
    assert not started
    assert "lower D100_PROCESSES" in capsys.readouterr().err
    monkeypatch.setenv("D100_PROCESSES", "2")
    assert main(["serve", "--database", pg_url]) == 0
    assert len(started) == 1


def test_a_bad_process_count_is_told_before_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serving, "run", lambda app, **_: pytest.fail("started"))
    monkeypatch.setenv("D100_PROCESSES", "0")
    assert main(["serve", "--database", f"sqlite:///{tmp_path / 'd.sqlite3'}"]) == 2
    assert "D100_PROCESSES must be a whole number >= 1" in capsys.readouterr().err
