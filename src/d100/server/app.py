"""The ASGI application: routes, pages, error shapes and the live-update machinery."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from .. import __version__
from ..errors import D100Error
from . import rounds
from .api import Server, router
from .errors import ApiError, database_busy, invalid, wrong_method
from .guard import Guard, Limits, refused_method
from .live import Hub, cancel, listen
from .quotas import Openings, Quotas
from .store import DATABASE_BUSY, Store
from .work import Pool, Writes

STATIC = Path(__file__).parent / "static"
HOT = ("/api/tables/{table_id}/rolls", "/api/tables/{table_id}", "/health")
PAGES = {"/": "home.html", "/join": "join.html", "/odds": "odds.html"}
log = logging.getLogger("d100.server")


# Pydantic's own words before a validator's message ("Value error, ..."): not the user's.
_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")


def _plain(message: str) -> str:
    for prefix in _PYDANTIC_PREFIXES:
        message = message.removeprefix(prefix)
    return message


def create_app(
    database_url: str,
    migrate: bool = True,
    limits: Limits | None = None,
    freeze: bool = False,
    discord: Any = None,
    processes: int | None = None,
    quotas: Quotas | None = None,
) -> FastAPI:
    """The table server's app. ``freeze``: a process serving only this app (``d100 serve``)
    keeps what its start loaded out of the garbage collector's full sweeps. ``discord``: the
    Discord endpoint's state (``d100.discord.router.Discord``), else made from the
    environment where ``D100_DISCORD_PUBLIC_KEY`` is set, else no endpoint. ``processes``:
    how many server processes share a PostgreSQL database (``store.pool_sizes``; None: the
    default pool, for a test's own database). ``quotas``: what the storage may be made to
    hold (None: no quota)."""
    if discord is None and os.environ.get("D100_DISCORD_PUBLIC_KEY", "").strip():
        from ..discord.router import Discord  # needs the server extra's cryptography

        discord = Discord.from_env()
    if rounds.relays():  # D100_BEACON_URL: tables may bind their seeds to the beacon
        rounds.from_environment()
    hub = Hub()
    # with a Discord endpoint, rolls made through the web at a channel's table are sent to it
    store = Store(
        database_url,
        on_commit=hub.committed,
        mirror=discord is not None,
        on_posted=None if discord is None else discord.posted,
        processes=processes,
        events_per_table=None if quotas is None else quotas.events_per_table,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if migrate:
            await asyncio.to_thread(store.migrate)
        hub.bind(asyncio.get_running_loop())
        if discord is not None:
            discord.start(store)
        listener = asyncio.create_task(listen(store.url, hub)) if store.is_postgres else None
        if freeze:
            # A full sweep pauses every request for as long as it takes to visit each object
            # (65-150 ms here over the modules and the migration's): it set a roll's p99.
            gc.collect()
            gc.freeze()
        try:
            yield
        finally:
            if listener is not None:
                await cancel(listener)
            pool.close()
            store.dispose()
            if discord is not None:
                await discord.close()

    app = FastAPI(
        title="d100 table",
        version=__version__,
        lifespan=lifespan,
        description="Percentile skill tests at a shared table: exact odds, live log, "
        "provable dice. Requests and results follow CONTRACT.md.",
    )
    limits = limits or Limits()
    pool = Pool(job_seconds=limits.job_seconds)
    # SQLite has one writer at a time: its rolls take their turns here, not at its lock.
    writes = Writes() if store.is_postgres else Writes(writers=1)
    quotas = quotas or Quotas()
    app.state.server = Server(store, hub, pool, writes, quotas=quotas, openings=Openings(quotas))
    # The routes join the app's own list: an included router is matched twice a request (once
    # to find it, once inside it), a tenth of a roll's server CPU on FastAPI 0.165. The
    # busiest come first, as routes are tried in order (no two match the same request).
    app.router.routes.extend(sorted(router.routes, key=lambda r: getattr(r, "path", "") not in HOT))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for path, page in PAGES.items():
        app.add_api_route(path, _page(page), include_in_schema=False)
    app.add_api_route("/t/{table_id}", _page("table.html"), include_in_schema=False)
    if discord is not None:
        from ..discord.router import mount

        mount(app, discord)
    _errors(app)
    app.add_middleware(
        Guard, limits=limits, member_table=store.member_table, routes=app.router.routes
    )
    return app


def _page(name: str) -> Any:
    async def page() -> FileResponse:
        return FileResponse(STATIC / name, headers={"cache-control": "no-cache"})

    return page


def _errors(app: FastAPI) -> None:
    """Every error a JSON object {"error": {field, value, allowed, message}}."""

    @app.exception_handler(ApiError)
    async def api_error(_: Request, err: ApiError) -> JSONResponse:
        return JSONResponse(err.to_dict(), status_code=err.status, headers=err.headers)

    @app.exception_handler(D100Error)
    async def library_error(_: Request, err: D100Error) -> JSONResponse:
        return await api_error(_, invalid(err))

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0]
        # A body that is not JSON is placed at the character the parser stopped on ("0"):
        # what the client can fix is the body itself.
        located = first.get("type") != "json_invalid"
        where = [str(p) for p in first.get("loc", ()) if p != "body" and located]
        field = ".".join(where) or "body"
        value = first.get("input")
        said = _plain(str(first.get("msg", "invalid")))
        message = f"{field}: {said}"
        return await api_error(_, ApiError(422, field, value, said, message))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        if err.status_code == 400:  # FastAPI raises 400 only for a body it cannot parse
            body = ApiError(400, "body", None, "a JSON document", str(err.detail))
        else:
            allowed = "a path and method listed at /docs" if err.status_code == 404 else ""
            body = ApiError(err.status_code, "path", request.url.path, allowed, str(err.detail))
        headers = err.headers
        if err.status_code == 405:  # Starlette names only the first matching route's methods
            body = wrong_method(request.url.path)
            headers = {"allow": refused_method(request.app.router.routes, request.scope) or ""}
        return JSONResponse(body.to_dict(), status_code=err.status_code, headers=headers)

    async def busy(request: Request, err: Exception) -> JSONResponse:
        # Handled here, not as an Exception: Starlette re-raises those after the answer, and
        # the ASGI server logs a traceback for each (a PostgreSQL "too many clients" storm).
        log.warning("database unavailable on %s %s: %s", request.method, request.url.path, err)
        return await api_error(request, database_busy())

    for kind in DATABASE_BUSY:
        app.add_exception_handler(kind, busy)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, err: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        body = ApiError(500, "server", None, "", "internal error (logged on the server)")
        return JSONResponse(body.to_dict(), status_code=500)
