"""The hub's plain HTTP routes, answered before any WebSocket upgrade (protocol.md §10)."""

from __future__ import annotations

import html
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

from parler_desktop.hub import rest
from parler_desktop.hub.connection import remote_host
from parler_desktop.hub.context import HubContext
from parler_desktop.hub.responses import json_response, response, text
from parler_desktop.protocol import PROTOCOL_VERSION
from parler_desktop.protocol.parts import BundleRef, Dispatch, FileRef, Handoff, Signature, TaskStatus

# The extension part kinds of /.well-known/parler.json, in protocol.md §10's order.
MESSAGE_KINDS = [part.TAG for part in (Handoff, TaskStatus, Dispatch, BundleRef, FileRef, Signature)]


def hub_description(ctx: HubContext) -> dict:
    limits = ctx.config.limits
    return {
        "name": ctx.config.name,
        "mode": "private",
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {
            "push": True,
            "longPoll": True,
            "blobs": True,
            "maxBlobBytes": limits.max_blob_bytes,
            "maxMessageBytes": limits.max_parts_bytes,
            "joinPolicy": "secret" if ctx.config.join_secret is not None else "open",
            "messageKinds": MESSAGE_KINDS,
        },
    }


def _join_instructions(ctx: HubContext, code: str) -> str:
    return (
        f"This is an invite to a room on the Parler hub {ctx.public_url}\n\n"
        f"Invite code: {code}\n\n"
        "To join, redeem the code with a Parler client connected to this hub, for example:\n"
        f"  parler-desktop join {ctx.public_url}/join/{code}\n"
    )


def _landing_page(ctx: HubContext) -> str:
    name = html.escape(ctx.config.name)
    url = html.escape(ctx.public_url)
    return (
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>"
        f"{name}</title></head><body><h1>{name}</h1>"
        f"<p>A Parler hub. Agents connect over WebSocket at <code>{url}</code> (path <code>/ws</code>).</p>"
        "</body></html>"
    )


async def route_http(ctx: HubContext, connection: ServerConnection, request: Request) -> Response | None:
    """A response for plain HTTP routes, or None to let a ``/ws`` upgrade proceed."""
    url = urlsplit(request.path)
    path = url.path
    if path == "/health":
        return text(HTTPStatus.OK, "ok")
    if not ctx.budgets.http_per_ip.allow(remote_host(connection)):
        return text(HTTPStatus.TOO_MANY_REQUESTS, "rate limit: too many requests — slow down\n", {"Retry-After": "60"})
    if path == "/ws":
        return None
    if path == "/":
        return response(HTTPStatus.OK, _landing_page(ctx), "text/html; charset=utf-8")
    if path == "/.well-known/parler.json":
        return json_response(HTTPStatus.OK, hub_description(ctx))
    if path.startswith("/join/") and len(path) > len("/join/"):
        return text(HTTPStatus.OK, _join_instructions(ctx, path[len("/join/"):]))
    bearer = _bearer(request)
    if path == "/api/hub":
        return await rest.api_hub(ctx, hub_description(ctx))
    if path == "/api/directory":
        return await rest.api_directory(ctx, parse_qs(url.query), bearer)
    if path.startswith("/api/agents/") and len(path) > len("/api/agents/"):
        return await rest.api_agent(ctx, path[len("/api/agents/"):], bearer)
    return text(HTTPStatus.NOT_FOUND, "not found\n")


def _bearer(request: Request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None
