"""The read-only REST views of the hub (§10): hub stats, the directory and single cards."""

from __future__ import annotations

import sqlite3
from http import HTTPStatus

from websockets.http11 import Response

from parler_desktop.hub.context import HubContext
from parler_desktop.hub.ids import now_ms
from parler_desktop.hub.ops.directory import directory_entry, discover
from parler_desktop.hub.responses import json_response
from parler_desktop.hub.sql import directory
from parler_desktop.protocol.codec import WireError
from parler_desktop.protocol.frames import Discover


def _card_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """(agents with a directory card, public ones)."""
    return conn.execute(
        "SELECT count(*), COALESCE(sum(visibility='public'), 0) FROM directory"
    ).fetchone()


async def api_hub(ctx: HubContext, description: dict) -> Response:
    agents, public = await ctx.db.call(_card_counts)
    return json_response(
        HTTPStatus.OK,
        {
            **description,
            "agents": agents,
            "publicAgents": public,
            "stats": {
                "liveConnections": ctx.admission.live,
                "connectionsTotal": ctx.stats.connections_total,
                "messagesTotal": ctx.stats.messages_total,
                "estimatedTokensTotal": ctx.stats.tokens_total,
                "pushesTotal": ctx.subscribers.pushes_sent,
            },
        },
    )


async def _token_valid(ctx: HubContext, bearer: str | None) -> bool:
    if bearer is None:
        return False
    return await ctx.db.call(directory.token_scope, bearer, "directory", now_ms()) is not None


async def api_directory(ctx: HubContext, query: dict[str, list[str]], bearer: str | None) -> Response:
    wire = {key: values[-1] for key, values in query.items() if values}
    wire["scope"] = "hub" if wire.get("scope") == "hub" else "public"  # any other value reads public
    if "q" in wire:
        wire["query"] = wire.pop("q")
    try:
        if "limit" in wire:
            wire["limit"] = int(wire["limit"])
        frame = Discover.from_wire({"op": "discover", **wire})
    except (ValueError, WireError) as exc:
        return json_response(HTTPStatus.BAD_REQUEST, {"error": f"bad query: {exc}"})
    if frame.scope == "hub" and not await _token_valid(ctx, bearer):
        return json_response(HTTPStatus.UNAUTHORIZED, {"error": "a directory token is required to view the hub-scope directory"})
    rows = await ctx.db.call(directory.all_cards, frame.scope == "public")
    return json_response(HTTPStatus.OK, [entry.to_wire() for entry in discover(ctx, rows, frame)])


async def api_agent(ctx: HubContext, agent: str, bearer: str | None) -> Response:
    row = await ctx.db.call(directory.card_of, agent)
    if row is None or (row.visibility != "public" and not await _token_valid(ctx, bearer)):
        return json_response(HTTPStatus.NOT_FOUND, {"error": "no such public agent"})
    return json_response(HTTPStatus.OK, directory_entry(ctx, row, now_ms()).to_wire())
