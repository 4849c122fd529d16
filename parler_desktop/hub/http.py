"""The hub's plain HTTP routes, answered before any WebSocket upgrade (protocol.md §10)."""

from __future__ import annotations

import html
import json
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from parler_desktop.hub.context import HubContext
from parler_desktop.protocol import PROTOCOL_VERSION

MESSAGE_KINDS = [
    "com.parler.handoff",
    "com.parler.task",
    "com.parler.dispatch",
    "com.parler.bundle",
    "com.parler.file",
    "com.parler.sig",
]
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "*",
    "Access-Control-Allow-Headers": "*",
}


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


def _response(status: HTTPStatus, body: str, content_type: str, extra: dict[str, str] | None = None) -> Response:
    payload = body.encode()
    headers = Headers(
        {
            "Content-Type": content_type,
            "Content-Length": str(len(payload)),
            "Connection": "close",
            **CORS,
            **(extra or {}),
        }
    )
    return Response(status.value, status.phrase, headers, payload)


def _text(status: HTTPStatus, body: str, extra: dict[str, str] | None = None) -> Response:
    return _response(status, body, "text/plain; charset=utf-8", extra)


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


def route_http(ctx: HubContext, connection: ServerConnection, request: Request) -> Response | None:
    """A response for plain HTTP routes, or None to let a ``/ws`` upgrade proceed."""
    path = request.path.split("?", 1)[0]
    if path == "/health":
        return _text(HTTPStatus.OK, "ok")
    remote = connection.remote_address
    if not ctx.budgets.http_per_ip.allow(remote[0] if remote else "?"):
        return _text(HTTPStatus.TOO_MANY_REQUESTS, "too many requests\n", {"Retry-After": "60"})
    if path == "/ws":
        return None
    if path == "/":
        return _response(HTTPStatus.OK, _landing_page(ctx), "text/html; charset=utf-8")
    if path == "/.well-known/parler.json":
        return _response(HTTPStatus.OK, json.dumps(hub_description(ctx)), "application/json")
    if path.startswith("/join/") and len(path) > len("/join/"):
        return _text(HTTPStatus.OK, _join_instructions(ctx, path[len("/join/"):]))
    return _text(HTTPStatus.NOT_FOUND, "not found\n")
