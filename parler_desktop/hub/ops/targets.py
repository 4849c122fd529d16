"""Resolving a send/put_blob target to a concrete room (protocol.md §7.4 step 3).

Runs inside the caller's database job, so a DM room it creates and the message
stored into it commit together.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from parler_desktop.hub.context import HubContext, OpError
from parler_desktop.hub.db import HubDatabaseConnection
from parler_desktop.hub.ids import room_suffix
from parler_desktop.hub.ops.common import check_len, not_member
from parler_desktop.hub.sql import directory, rooms
from parler_desktop.protocol import errors
from parler_desktop.protocol.values import DmTarget, RoomTarget, ServiceTarget, Target, service_room


def fresh_room_name(conn: sqlite3.Connection, prefix: str) -> str:
    while True:
        name = f"{prefix}.{room_suffix()}"
        if rooms.get_room(conn, name) is None:
            return name


class Resolved(NamedTuple):
    room: str
    members: tuple[str, ...]  # every member of ``room``, the sender among them


def resolve_target(conn: HubDatabaseConnection, agent: str, target: Target, now: int) -> Resolved:
    """The room ``agent`` addresses, and its members (whom a message to it is pushed to);
    creates a DM room or joins a service room when needed.

    A room target's members are read once and serve as its membership check too: a send
    reads them anyway, and one query less is a few percent of the hub's work per send."""
    if isinstance(target, RoomTarget):
        members = rooms.member_ids(conn, target.room)
        if agent not in members:
            raise not_member(target.room)
        return Resolved(target.room, members)
    if isinstance(target, DmTarget):
        if target.agent == agent:  # the reference would post into one of your other DMs (docs/protocol.md §12)
            raise OpError("a direct message needs another agent — post to yourself in a room instead")
        existing = rooms.find_dm_room(conn, agent, target.agent)  # a room of exactly these two
        if existing is not None:
            return Resolved(existing, (agent, target.agent))
        if not directory.has_card(conn, target.agent):
            raise OpError(
                f"'{target.agent}' isn't discoverable (no directory card) — pair first (invite/join)"
            )
        name = fresh_room_name(conn, "dm")
        rooms.create_room(conn, name, "dm", None, now)
        rooms.add_member(conn, name, agent)
        rooms.add_member(conn, name, target.agent)
        return Resolved(name, (agent, target.agent))
    if isinstance(target, ServiceTarget):
        name = service_room(target.service)
        if rooms.get_room(conn, name) is None:
            raise OpError(
                f"no such service '{target.service}' — a worker must `serve` it first", errors.UNKNOWN_SERVICE
            )
        rooms.add_member(conn, name, agent)
        return Resolved(name, rooms.member_ids(conn, name))
    raise TypeError(f"unknown target {target!r}")


def check_target(ctx: HubContext, target: Target) -> None:
    """The 4096-byte cap on a target's string, labelled as the reference hub labels it."""
    if isinstance(target, RoomTarget):
        check_len(ctx, "room", target.room)
    elif isinstance(target, DmTarget):
        check_len(ctx, "agent id", target.agent)
    else:
        check_len(ctx, "service", target.service)
