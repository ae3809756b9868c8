"""The floor a roll's cost is measured against: a bare FastAPI endpoint under Hypercorn that
takes a roll's JSON body, makes one durable INSERT + COMMIT (SQLite in WAL with
``synchronous=FULL``, or PostgreSQL through psycopg) and answers JSON.

``python -m bench.bare --port N --database URL`` serves it on 127.0.0.1 until stopped;
``bench.instructions`` counts it beside ``d100 serve`` in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import threading
from typing import Any

from fastapi import FastAPI


def app(url: str) -> FastAPI:
    commit = _sqlite(url) if url.startswith("sqlite") else _postgres(url)
    bare = FastAPI()

    @bare.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @bare.post("/rolls", status_code=201)
    def roll(body: dict[str, Any]) -> dict[str, Any]:
        return {"seq": commit(json.dumps(body)), "body": body}

    return bare


def _sqlite(url: str) -> Any:
    db = sqlite3.connect(url.split("///", 1)[1], isolation_level=None, check_same_thread=False)
    for pragma in ("journal_mode=WAL", "synchronous=FULL", "busy_timeout=30000"):
        db.execute(f"PRAGMA {pragma}")
    db.execute("CREATE TABLE IF NOT EXISTS bare (seq INTEGER PRIMARY KEY, data TEXT)")
    lock = threading.Lock()

    def commit(data: str) -> int:
        with lock:
            db.execute("BEGIN IMMEDIATE")
            seq = db.execute("INSERT INTO bare (data) VALUES (?)", (data,)).lastrowid
            db.execute("COMMIT")
        return int(seq or 0)

    return commit


def _postgres(url: str) -> Any:
    import psycopg

    db = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1))
    db.execute("CREATE TABLE IF NOT EXISTS bare (seq SERIAL PRIMARY KEY, data TEXT)")
    db.commit()
    lock = threading.Lock()

    def commit(data: str) -> int:
        with lock:
            found = db.execute("INSERT INTO bare (data) VALUES (%s) RETURNING seq", (data,))
            seq = found.fetchone()
            db.commit()
        return int(seq[0]) if seq else 0

    return commit


def main() -> None:
    from hypercorn.asyncio import serve
    from hypercorn.config import Config

    parser = argparse.ArgumentParser(prog="python -m bench.bare", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--database", required=True, help="a SQLite or PostgreSQL URL")
    args = parser.parse_args()
    config = Config()
    config.bind = [f"127.0.0.1:{args.port}"]
    config.keep_alive_timeout = 600
    asyncio.run(serve(app(args.database), config, mode="asgi"))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
