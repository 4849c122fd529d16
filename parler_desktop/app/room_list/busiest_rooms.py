"""Which of a hub's rooms the sidebar lists when the hub lists a great many (issue 47: a hub
that listed 100,000 rooms froze the window for 5-11 s).

The sidebar's proxy sorts with a Python ``lessThan`` (``room_list_model.py``): O(n log n) calls
on the Qt thread, about 5 s for 100,000 rows, and again after each reload. So a hub's list
holds at most ``SHOWN_ROOMS_MAX`` rooms: those with mentions first, then those with the newest
stored activity, then those the hub says are unread (a count a hub can claim for any number of
rooms, so it comes after what was seen), and the window says how many more
there are (``hidden``): none is dropped silently. The open room is always kept, and so are the
rooms the filter box found among all of them (``room_search.py``). Every room is still synced and counted in the
unread total; one with new activity moves into the list at the next reload.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Sequence

from parler_desktop.store.room_counts import RoomSummary

SHOWN_ROOMS_MAX = 2000  # sorted in about 40 ms; no real hub has a person in more rooms than this


def busiest_rooms(rooms: Sequence[RoomSummary], keep: Collection[str | None] = (), limit: int = SHOWN_ROOMS_MAX) -> list[RoomSummary]:
    """``rooms`` (in their order) with at most ``limit`` kept: those named in ``keep`` (the open
    room, the rooms the filter found), then mentions, newest, unread first."""
    if len(rooms) <= limit:
        return list(rooms)
    kept = {id(room) for room in heapq.nsmallest(limit, rooms, key=lambda room: (
        room.name not in keep, -int(room.mentions_unread), -int(room.last_ts or 0), -int(room.unread > 0), room.name))}
    return [room for room in rooms if id(room) in kept]
