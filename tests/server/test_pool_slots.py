"""Whatever ends a computation on a worker, the pool keeps the worker's slot: a slot lost
made every later odds request and dear roll a 500 (``pop from empty list``) once the pool's
slots were gone."""

from __future__ import annotations

import anyio
import pytest

from d100.server import calculator
from d100.server.work import Pool

REQUEST = {"system": "brp", "skill": 50}


def test_a_job_that_never_reached_its_worker_leaves_the_slot() -> None:
    async def play() -> None:
        pool = Pool(workers=1, job_seconds=600)
        try:
            assert (await pool.run("table:t", calculator.odds_of, REQUEST))["success"]
            with pytest.raises(Exception, match="pickle"):  # a function no worker can import
                await pool.run("table:t", lambda r: r, REQUEST)
            for _ in range(2):  # one slot: each job after needs it back
                assert (await pool.run("table:t", calculator.odds_of, REQUEST))["success"]
        finally:
            pool.close()

    anyio.run(play)
