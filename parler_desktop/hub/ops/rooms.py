"""Rooms and membership: invite, redeem, approval, listing, roster, deletion, serve (§7.8–§7.10)."""

from __future__ import annotations

import sqlite3

from parler_desktop.hub.context import HubContext, OpError, SessionState
from parler_desktop.hub.ids import invite_code, now_ms
from parler_desktop.hub.ops.common import check_len, derived_status, not_member
from parler_desktop.hub.ops.targets import fresh_room_name
from parler_desktop.hub.sql import rooms
from parler_desktop.protocol import errors
from parler_desktop.protocol.frames import (
    DeleteRoom,
    Invite,
    Invited,
    JoinPending,
    JoinRequestList,
    JoinRequests,
    JoinResolved,
    Joined,
    Redeem,
    ResolveJoin,
    RoomDeleted,
    RoomList,
    Rooms,
    Roster,
    RosterList,
    Serve,
)
from parler_desktop.protocol.trim import trim
from parler_desktop.protocol.values import JoinRequest, RoomInfo, RosterEntry, sanitize_name, service_room

U32_MAX = 2**32 - 1


def _room_name(conn: sqlite3.Connection, invite: Invite) -> str:
    if invite.kind == "dm":
        return fresh_room_name(conn, "dm")
    if invite.room is not None:
        return service_room(invite.room) if invite.kind == "service" else sanitize_name(invite.room)
    return fresh_room_name(conn, "svc" if invite.kind == "service" else "room")


def _create_owned_room(
    conn: sqlite3.Connection, ctx: HubContext, name: str, kind: str, owner: str, now: int
) -> None:
    if rooms.owned_room_count(conn, owner) >= ctx.config.limits.max_owned_rooms:
        raise OpError("room quota reached — delete an owned room before creating another", errors.AT_CAPACITY)
    rooms.create_room(conn, name, kind, owner, now)


def _invite(
    conn: sqlite3.Connection, ctx: HubContext, agent: str, invite: Invite, now: int
) -> Invited:
    limits = ctx.config.limits
    name = _room_name(conn, invite)
    room = rooms.get_room(conn, name)
    if room is None:
        _create_owned_room(conn, ctx, name, invite.kind, agent, now)
        kind = invite.kind
    elif not rooms.is_member(conn, name, agent):
        raise OpError(f"room '{name}' already exists — only a member can mint an invite for it")
    else:
        kind = room.kind
    rooms.add_member(conn, name, agent)
    ttl = min(limits.default_invite_ttl_secs if invite.ttl_secs is None else invite.ttl_secs, limits.max_ttl_secs)
    max_uses = 1 if kind == "dm" else (limits.default_invite_uses if invite.max_uses is None else invite.max_uses)
    code = invite_code()
    while rooms.invite_code_exists(conn, code):
        code = invite_code()
    expires = now + ttl * 1000
    approval = invite.require_approval and kind == "channel"
    rooms.create_invite(conn, rooms.InviteRow(code, name, kind, max_uses, 0, expires, approval), agent)
    return Invited(code=code, url=f"{ctx.public_url}/join/{code}", room=name, kind=kind, expires_at=expires)


async def handle_invite(ctx: HubContext, session: SessionState, frame: Invite) -> Invited:
    check_len(ctx, "room", frame.room)
    return await ctx.db.call(_invite, ctx, session.agent, frame, now_ms())


def bare_code(text: str) -> str:
    """What follows the last ``/join/`` of a link, or the trimmed input itself (§7.9)."""
    code = trim(text)
    if "/join/" in code:
        code = trim(code.rsplit("/join/", 1)[1]).rstrip("/")
    return code


def _redeem(conn: sqlite3.Connection, agent: str, code: str, now: int) -> Joined | JoinPending:
    invite = rooms.get_invite(conn, code)
    room = rooms.get_room(conn, invite.room) if invite is not None else None
    if invite is None or room is None:
        raise OpError("invalid or unknown invite code")
    if rooms.is_member(conn, room.name, agent):
        return Joined(room=room.name, kind=room.kind)
    if now > invite.expires:
        raise OpError("this code has expired — ask whoever shared it for a new one")
    if invite.require_approval:
        status = rooms.join_request_status(conn, room.name, agent)
        if status == "pending":
            return JoinPending(room=room.name)
        if status == "denied":
            raise OpError("your request to join was denied by the host")
    if invite.uses >= invite.max_uses:
        raise OpError("invite has already been used up")
    rooms.consume_invite_use(conn, code)
    if invite.require_approval:
        rooms.add_join_request(conn, room.name, agent, now)
        return JoinPending(room=room.name)
    rooms.add_member(conn, room.name, agent)
    return Joined(room=room.name, kind=room.kind)


async def handle_redeem(ctx: HubContext, session: SessionState, frame: Redeem) -> Joined | JoinPending:
    check_len(ctx, "invite code", frame.code)
    return await ctx.db.call(_redeem, session.agent, bare_code(frame.code), now_ms())


def require_owner(conn: sqlite3.Connection, room_name: str, agent: str, refusal: str) -> None:
    """An uncoded ``refusal`` (the reference hub's wording per op) unless ``agent`` owns the room."""
    room = rooms.get_room(conn, room_name)
    if room is None or room.owner != agent:
        raise OpError(refusal)


def _join_requests(conn: sqlite3.Connection, agent: str, room: str) -> JoinRequestList:
    require_owner(conn, room, agent, f"only the session owner can view join requests for '{room}'")
    requests = tuple(
        JoinRequest(agent=r.agent, name=r.name, requested_at=r.requested, role=r.role)
        for r in rooms.pending_join_requests(conn, room)
    )
    return JoinRequestList(room=room, requests=requests)


async def handle_join_requests(ctx: HubContext, session: SessionState, frame: JoinRequests) -> JoinRequestList:
    check_len(ctx, "room", frame.room)
    return await ctx.db.call(_join_requests, session.agent, frame.room)


def _resolve_join(conn: sqlite3.Connection, agent: str, frame: ResolveJoin) -> JoinResolved:
    require_owner(
        conn, frame.room, agent, f"only the session owner can approve or deny join requests for '{frame.room}'"
    )
    if rooms.join_request_status(conn, frame.room, frame.agent) is None:
        raise OpError(f"no pending join request from '{frame.agent}' for '{frame.room}'")
    if frame.approve:
        rooms.remove_join_request(conn, frame.room, frame.agent)
        rooms.add_member(conn, frame.room, frame.agent)
    else:
        rooms.deny_join_request(conn, frame.room, frame.agent)
    return JoinResolved(room=frame.room, agent=frame.agent, approved=frame.approve)


async def handle_resolve_join(ctx: HubContext, session: SessionState, frame: ResolveJoin) -> JoinResolved:
    check_len(ctx, "room", frame.room)
    check_len(ctx, "agent id", frame.agent)
    reply = await ctx.db.call(_resolve_join, session.agent, frame)
    ctx.wakeups.wake(frame.room)
    return reply


async def handle_rooms(ctx: HubContext, session: SessionState, frame: Rooms) -> RoomList:
    summaries = await ctx.db.call(rooms.room_summaries, session.agent)
    return RoomList(
        rooms=tuple(
            RoomInfo(name=s.name, kind=s.kind, members=min(s.members, U32_MAX), unread=min(s.unread, U32_MAX))
            for s in summaries
        )
    )


def _roster(conn: sqlite3.Connection, agent: str, room: str) -> list[rooms.RosterRow] | None:
    if not rooms.is_member(conn, room, agent):
        return None
    return rooms.roster(conn, room)


async def handle_roster(ctx: HubContext, session: SessionState, frame: Roster) -> RosterList:
    check_len(ctx, "room", frame.room)
    rows = await ctx.db.call(_roster, session.agent, frame.room)
    if rows is None:
        raise not_member(frame.room)
    now = now_ms()
    entries = []
    for row in rows:
        status, attention = derived_status(ctx, row.status, row.attention, row.presence_ts, now)
        entries.append(
            RosterEntry(
                id=row.agent,
                name=row.name,
                status=status,
                last_seen=row.last_seen,
                role=row.role,
                activity=row.activity,
                attention=attention,
                service_role=row.service_role,
            )
        )
    return RosterList(room=frame.room, entries=tuple(entries))


def _delete_room(conn: sqlite3.Connection, agent: str, room: str) -> None:
    require_owner(conn, room, agent, f"only the room owner can delete '{room}'")
    rooms.delete_room(conn, room)


async def handle_delete_room(ctx: HubContext, session: SessionState, frame: DeleteRoom) -> RoomDeleted:
    check_len(ctx, "room", frame.room)
    await ctx.db.call(_delete_room, session.agent, frame.room)
    ctx.wakeups.wake(frame.room)
    return RoomDeleted(room=frame.room)


def _serve(conn: sqlite3.Connection, ctx: HubContext, agent: str, service: str, now: int) -> Joined:
    name = service_room(service)
    if rooms.get_room(conn, name) is None:
        _create_owned_room(conn, ctx, name, "service", agent, now)
    else:
        rooms.set_owner_if_unset(conn, name, agent)
    rooms.add_member(conn, name, agent, service_role=service)
    return Joined(room=name, kind="service")


async def handle_serve(ctx: HubContext, session: SessionState, frame: Serve) -> Joined:
    check_len(ctx, "service", frame.service)
    return await ctx.db.call(_serve, ctx, session.agent, frame.service, now_ms())
