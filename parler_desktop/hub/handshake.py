"""The in-socket handshake (protocol.md §3): unsigned hello → challenge, signed hello → welcome."""

from __future__ import annotations

import hmac
import time

from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.ids import auth_nonce, now_ms
from parler_desktop.hub.ops.common import check_len
from parler_desktop.hub.sql import agents
from parler_desktop.identity import verify_signature
from parler_desktop.protocol import PROTOCOL_VERSION, errors
from parler_desktop.protocol.frames import Challenge, Hello, HubFrame, Welcome


def _check_bounds(ctx: HubContext, hello: Hello) -> None:
    limits = ctx.config.limits
    for label, value, cap in (
        ("agent id", hello.id, limits.max_hello_field_bytes),
        ("agent name", hello.name, limits.max_hello_field_bytes),
        ("agent role", hello.role, limits.max_hello_field_bytes),
        ("signature", hello.sig, limits.max_sig_bytes),
        ("join secret", hello.secret, limits.max_string_bytes),
    ):
        check_len(ctx, label, value, cap)


async def handle_hello(ctx: HubContext, session: SessionState, hello: Hello) -> HubFrame:
    session.hellos += 1
    if session.hellos > ctx.config.limits.max_hellos:
        raise OpError("too many authentication attempts on this connection", errors.RATE_LIMITED)
    _check_bounds(ctx, hello)
    if hello.sig is None:
        ttl = ctx.config.limits.nonce_ttl_secs
        session.nonce = auth_nonce(ctx.public_url, now_ms() + int(ttl * 1000))
        session.nonce_expires = time.monotonic() + ttl
        return Challenge(nonce=session.nonce, version=PROTOCOL_VERSION)
    if session.nonce is None:
        raise OpError("no challenge issued — send `hello` without a signature first", errors.PROTOCOL)
    if time.monotonic() > session.nonce_expires:
        raise OpError("challenge expired — reconnect and retry", errors.UNAUTHENTICATED)
    if not verify_signature(hello.id, session.nonce.encode(), hello.sig):
        raise OpError("signature verification failed", errors.UNAUTHENTICATED)
    secret = ctx.config.join_secret
    if secret is not None and (
        hello.secret is None or not hmac.compare_digest(hello.secret.encode(), secret)
    ):
        raise OpError("this hub requires a join secret (set PARLER_JOIN_SECRET)", errors.NOT_AUTHORIZED)
    await ctx.db.call(agents.record_hello, hello.id, hello.name, hello.role, now_ms())  # failures: see _guarded
    session.agent, session.name, session.role = hello.id, hello.name, hello.role
    session.nonce = None
    return Welcome(id=hello.id, name=hello.name)
