"""Finding any room a hub listed by the filter box's text (issue 47: the sidebar lists a hub's
``SHOWN_ROOMS_MAX`` busiest rooms, and the filter searched only those: of a hub listing 100,000
rooms, 98,000 could not be found).

``rooms_matching`` runs on a worker thread over the rooms as last read from the store (a list the
UI thread replaces, never changes): a room matches when what its row shows (``room_label``: a DM
by its other member's name, a service room as "x (service)") or its room name holds the text,
ignoring case, as the sidebar's filter matches. At most ``FOUND_ROOMS_MAX`` are found (in the
list's order), with whether more matched: the human types more of the name to narrow them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parler_desktop.app.display_text import display_text
from parler_desktop.app.room_list.room_labels import room_label

FOUND_ROOMS_MAX = 200  # listed beside the busiest while the filter has text: sorted in a few ms


def rooms_matching(rooms: Sequence[Any], partners: Mapping[str, str], text: str, limit: int = FOUND_ROOMS_MAX) -> tuple[list[str], bool]:
    """The names of the first ``limit`` of ``rooms`` (RoomSummary) matching ``text``, and
    whether more match."""
    needle = text.casefold()
    found: list[str] = []
    for room in rooms:
        name = room.name
        if needle in name.casefold() or (
            room.kind in ("dm", "service") and needle in display_text(room_label(name, room.kind, partners.get(name))).casefold()
        ):
            if len(found) == limit:
                return found, True
            found.append(name)
    return found, False
