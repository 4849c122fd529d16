"""``remember`` and ``recall`` (§7.15), with a plain term-match search instead of BM25/vectors."""

from __future__ import annotations

import sqlite3

from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.ids import now_ms
from parler_desktop.hub.ops.common import check_len, not_member
from parler_desktop.hub.sql import memory, rooms
from parler_desktop.protocol import encode, errors
from parler_desktop.protocol.frames import Recall, Recalled, Remember, Remembered
from parler_desktop.protocol.values import RecallHit

EMBEDDING_DIMENSIONS = 768
DEFAULT_RECALL_LIMIT = 8
MAX_RECALL_LIMIT = 50


def check_embedding(embedding: tuple[float, ...] | None) -> None:
    """An uncoded refusal, checked after membership (and the keyed-fact quota) as the reference does."""
    if embedding is not None and len(embedding) != EMBEDDING_DIMENSIONS:
        raise OpError(f"embedding dimension mismatch: got {len(embedding)}, expected {EMBEDDING_DIMENSIONS}")


def _remember(
    conn: sqlite3.Connection, max_keyed_facts: int, agent: str, frame: Remember, now: int
) -> Remembered:
    fact = frame.fact
    if fact.room is not None and not rooms.is_member(conn, fact.room, agent):
        raise not_member(fact.room)
    if (
        fact.key is not None
        and not memory.keyed_fact_exists(conn, agent, fact.room, fact.key)
        and memory.keyed_fact_count(conn, agent) >= max_keyed_facts
    ):
        raise OpError("keyed fact quota reached — update an existing key or remove old memory", errors.AT_CAPACITY)
    check_embedding(frame.embedding)
    memory.store_fact(conn, agent, fact.room, fact.key, fact.text, now)
    return Remembered(ok=True)


async def handle_remember(ctx: HubContext, session: SessionState, frame: Remember) -> Remembered:
    limits = ctx.config.limits
    check_len(ctx, "structured payload", encode(frame), limits.max_big_frame_bytes)
    check_len(ctx, "fact key", frame.fact.key)
    check_len(ctx, "room", frame.fact.room)
    check_len(ctx, "embedding model", frame.embedding_model)
    return await ctx.db.call(_remember, limits.max_keyed_facts, session.agent, frame, now_ms())


def _recall(conn: sqlite3.Connection, agent: str, frame: Recall) -> Recalled:
    if frame.room is not None and not rooms.is_member(conn, frame.room, agent):
        raise not_member(frame.room)
    limit = min(DEFAULT_RECALL_LIMIT if frame.limit is None else frame.limit, MAX_RECALL_LIMIT)
    facts = memory.visible_facts(conn, agent, frame.room)
    hits: list[RecallHit] = []
    if frame.key:
        hits = [_hit(f, 0.0) for f in facts if f.key == frame.key]
    else:
        check_embedding(frame.embedding)
        terms = [t for t in frame.query.lower().split() if t]
        scored = []
        for fact in facts:
            haystack = f"{fact.key or ''} {fact.text}".lower()
            matched = sum(1 for t in terms if t in haystack)
            if matched:
                scored.append((-float(matched), fact))
        scored.sort(key=lambda pair: pair[0])  # lower is better, like BM25 (stable: newest first)
        hits = [_hit(fact, score) for score, fact in scored]
    return Recalled(hits=tuple(hits[:limit]))


def _hit(fact: memory.FactRow, score: float) -> RecallHit:
    return RecallHit(text=fact.text, author=fact.author, ts=fact.ts, score=score, key=fact.key, room=fact.room)


async def handle_recall(ctx: HubContext, session: SessionState, frame: Recall) -> Recalled:
    limits = ctx.config.limits
    check_len(ctx, "structured payload", encode(frame), limits.max_big_frame_bytes)
    check_len(ctx, "recall query", frame.query, limits.max_query_bytes)
    check_len(ctx, "room", frame.room)
    check_len(ctx, "fact key", frame.key)
    return await ctx.db.call(_recall, session.agent, frame)
