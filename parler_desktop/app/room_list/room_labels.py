"""What a room is called on screen: the hub names DMs ``dm.k3m9qx`` and service rooms ``svc.x``.

A DM reads as the other member's display name (from the room's roster) and a service room as
"x (service)"; channels keep their name. The hub's room name stays the key everywhere else.
"""

from __future__ import annotations

from collections.abc import Iterable

from parler_desktop.protocol.values import RosterEntry

SERVICE_PREFIX = "svc."


def dm_partner(entries: Iterable[RosterEntry], my_id: str) -> str | None:
    """The display name of the DM's other member, or None while the roster does not show one."""
    for entry in entries:
        if entry.id != my_id:
            return " ".join(entry.name.split()) or entry.id[:8]  # one line, whatever the wire says
    return None


def room_label(name: str, kind: str, partner: str | None = None) -> str:
    if kind == "dm" and partner:
        return partner
    if kind == "service" and name.startswith(SERVICE_PREFIX) and len(name) > len(SERVICE_PREFIX):
        return f"{name[len(SERVICE_PREFIX):]} (service)"
    return name
