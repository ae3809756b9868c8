"""A roll at a table with the beacon whose seed's round is not kept yet (``rounds.Unfetched``):
its chain started (a write of its own), its round fetched holding no transaction and no write
turn (up to ``rounds.WAIT`` seconds, then a relay's timeout), and its signature kept with the
seed; then the roll is made again. So a relay slow or down holds up no other roll: on SQLite
every table's writes share one lock, and the write queue has one turn for them all."""

from __future__ import annotations

import anyio

from . import rounds
from .events import lock_table
from .gametables import active_seed, keep_signature, start_chain
from .store import Store
from .work import Writes

# A roll's round fetched at most this often: a rotation meanwhile starts a seed naming
# another round, and a GM rotating again and again must not keep a roll waiting for good.
TRIES = 2


async def fetch(
    writes: Writes, store: Store, lane: str, unfetched: rounds.Unfetched, tried: int
) -> None:
    """The round ``unfetched``'s chain's seed names, fetched and kept with the seed; in
    ``lane``'s write turn but for the fetch itself. A 503 when it cannot be had, or when
    ``tried`` (the roll's fetches so far) reached ``TRIES``."""
    seed_id, round_number, signature = await writes.run(lane, _seed, store, unfetched)
    if round_number is None or signature is not None:
        return  # another roll fetched it meanwhile
    if tried >= TRIES:
        raise rounds.unavailable(round_number, "the table's seeds were rotated meanwhile")
    signature = await anyio.to_thread.run_sync(rounds.signature_of, round_number)
    await writes.run(lane, _keep, store, seed_id, signature)


def _seed(store: Store, unfetched: rounds.Unfetched) -> tuple[str, int | None, str | None]:
    """The chain's active seed (started now if it has none): its id, round and signature."""
    with store.write() as session:
        table = lock_table(session, unfetched.table_id)
        seed = active_seed(session, table.id, unfetched.chain)
        if seed is None:
            seed = start_chain(session, table, unfetched.chain, unfetched.member_id)
        return seed.id, seed.beacon_round, seed.beacon_signature


def _keep(store: Store, seed_id: str, signature: str) -> None:
    with store.write() as session:
        keep_signature(session, seed_id, signature)
