"""The agent directory and bearer tokens: register, discover, lookup, mint_* (§7.14)."""

from __future__ import annotations

import json
import re
import sqlite3

from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.ids import bearer_token, now_ms
from parler_desktop.hub.ops.common import check_len, derived_status
from parler_desktop.hub.ops.rooms import require_owner
from parler_desktop.hub.sql import directory
from parler_desktop.identity import verify_signature
from parler_desktop.protocol import encode, errors, wire_json
from parler_desktop.protocol.canonical import canonical_card_bytes
from parler_desktop.protocol.frames import (
    CardReply,
    Discover,
    DirectoryList,
    DirectoryToken,
    Lookup,
    MintDirectoryToken,
    MintWatch,
    Register,
    Registered,
    WatchToken,
)
from parler_desktop.protocol.values import AgentCard, DirectoryEntry

DEFAULT_DISCOVER_LIMIT = 200
MAX_DISCOVER_LIMIT = 1000


async def handle_register(ctx: HubContext, session: SessionState, frame: Register) -> Registered:
    limits = ctx.config.limits
    check_len(ctx, "structured payload", encode(frame), limits.max_big_frame_bytes)
    card = frame.card
    if card.id != session.agent:
        raise OpError(f"card id '{card.id}' does not match your authenticated id", errors.INVALID_CARD)
    verified = False
    if frame.sig is not None:
        if not verify_signature(card.id, canonical_card_bytes(card), frame.sig):
            raise OpError("card signature verification failed", errors.INVALID_CARD)
        verified = True
    card_json = wire_json.dumps(card.to_wire())
    await ctx.db.call(directory.upsert_card, card.id, frame.visibility, card_json, frame.sig, verified)
    return Registered(id=card.id, visibility=frame.visibility, verified=verified)


def directory_entry(ctx: HubContext, row: directory.CardRow, now: int) -> DirectoryEntry:
    status, attention = derived_status(ctx, row.status, row.attention, row.presence_ts, now)
    return DirectoryEntry(
        card=AgentCard.from_wire(json.loads(row.card)),
        visibility=row.visibility,
        status=status,
        hub=ctx.config.name,
        verified=row.verified,
        first_seen=row.first_seen,
        last_seen=row.last_seen,
        activity=row.activity,
        attention=attention,
        sig=row.sig,
    )


def _like(needle: str) -> re.Pattern[str]:
    """SQLite's ``LIKE '%needle%'`` as the reference filters with it: ``%`` and ``_`` are
    wildcards and only ASCII letters fold case."""
    pattern = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in needle)
    return re.compile(pattern, re.IGNORECASE | re.ASCII | re.DOTALL)


def _joined(words: list[str]) -> str:
    """Lower-cased words as one space-separated string with a space at each end ('' for none)."""
    return "".join(f" {word.lower()}" for word in words) + " " if words else ""


def _filters(frame: Discover) -> list[tuple[str, re.Pattern[str]]]:
    return [
        (field, _like(value.lower()))
        for field, value in (("query", frame.query), ("tag", frame.tag), ("skill", frame.skill))
        if value is not None
    ]


def _matches(row: directory.CardRow, card: AgentCard, filters: list[tuple[str, re.Pattern[str]]]) -> bool:
    """The reference's discover filter: the query looks at the hello name, the tags and the skills
    (ids and names), each tag/skill filter at its own words joined into one string."""
    tags = _joined(list(card.tags or ()))
    skills = _joined([text for skill in card.skills or () for text in (skill.id, skill.name)])
    searched = {"query": (row.agent_name, tags, skills), "tag": (tags,), "skill": (skills,)}
    return all(any(pattern.search(text) for text in searched[field]) for field, pattern in filters)


def discover(ctx: HubContext, rows: list[directory.CardRow], frame: Discover) -> list[DirectoryEntry]:
    """Filter cards as §7.14 says; shared by the WebSocket op and the REST route."""
    limit = min(DEFAULT_DISCOVER_LIMIT if frame.limit is None else frame.limit, MAX_DISCOVER_LIMIT)
    now = now_ms()
    filters = _filters(frame)
    wanted_status = None if frame.status is None else frame.status.lower()
    found = []
    for row in rows:
        entry = directory_entry(ctx, row, now)
        if _matches(row, entry.card, filters) and (wanted_status is None or entry.status.lower() == wanted_status):
            found.append(entry)
            if len(found) >= limit:
                break
    return found


async def handle_discover(ctx: HubContext, session: SessionState, frame: Discover) -> DirectoryList:
    check_len(ctx, "directory query", frame.query, ctx.config.limits.max_query_bytes)
    for label, value in (("tag", frame.tag), ("skill", frame.skill), ("status", frame.status)):
        check_len(ctx, label, value)
    rows = await ctx.db.call(directory.all_cards, frame.scope == "public")
    return DirectoryList(agents=tuple(discover(ctx, rows, frame)))


async def handle_lookup(ctx: HubContext, session: SessionState, frame: Lookup) -> CardReply:
    check_len(ctx, "agent id", frame.id)
    row = await ctx.db.call(directory.card_of, frame.id)
    return CardReply(entry=directory_entry(ctx, row, now_ms()) if row is not None else None)


def _mint(
    conn: sqlite3.Connection, ctx: HubContext, agent: str, kind: str, room: str | None, expires: int, now: int
) -> str:
    if directory.live_token_count(conn, agent, now) >= ctx.config.limits.max_tokens:
        raise OpError("active token quota reached — wait for a token to expire", errors.AT_CAPACITY)
    if room is not None:
        require_owner(conn, room, agent, f"only the session owner can mint a watch link for '{room}'")
    token = bearer_token()
    directory.insert_token(conn, token, kind, agent, room, expires)
    return token


def _expiry(ctx: HubContext, ttl_secs: int | None, now: int) -> int:
    limits = ctx.config.limits
    return now + min(limits.default_token_ttl_secs if ttl_secs is None else ttl_secs, limits.max_ttl_secs) * 1000


async def handle_mint_directory_token(
    ctx: HubContext, session: SessionState, frame: MintDirectoryToken
) -> DirectoryToken:
    now = now_ms()
    expires = _expiry(ctx, frame.ttl_secs, now)
    token = await ctx.db.call(_mint, ctx, session.agent, "directory", None, expires, now)
    return DirectoryToken(token=token, expires_at=expires)


async def handle_mint_watch(ctx: HubContext, session: SessionState, frame: MintWatch) -> WatchToken:
    check_len(ctx, "room", frame.room)
    now = now_ms()
    expires = _expiry(ctx, frame.ttl_secs, now)
    token = await ctx.db.call(_mint, ctx, session.agent, "watch", frame.room, expires, now)
    return WatchToken(token=token, room=frame.room, expires_at=expires)
