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


def ranked_rooms(rooms: Sequence[RoomSummary], count: int) -> list[RoomSummary]:
    """The ``count`` busiest of ``rooms``, busiest first: mentions, newest, unread (then by name)."""
    return heapq.nsmallest(count, rooms, key=lambda room: (
        -int(room.mentions_unread), -int(room.last_ts or 0), -int(room.unread > 0), room.name))


def busiest_rooms(
    rooms: Sequence[RoomSummary], keep: Collection[str | None] = (), limit: int = SHOWN_ROOMS_MAX,
    ranked: Sequence[RoomSummary] | None = None,
) -> list[RoomSummary]:
    """``rooms`` (in their order) with at most ``limit`` kept: those named in ``keep`` (the open
    room, the rooms the filter found), then mentions, newest, unread first. ``ranked``: the
    ``ranked_rooms`` of ``rooms`` made before, at least ``limit + len(keep)`` of them (the rooms
    the filter finds change with each key, the rooms do not: ranking 100,000 took 0.1-0.7 s)."""
    if len(rooms) <= limit:
        return list(rooms)
    kept = {id(room) for room in rooms if room.name in keep}
    for room in ranked if ranked is not None else ranked_rooms(rooms, limit + len(keep)):
        if len(kept) >= limit:
            break
        kept.add(id(room))
    return [room for room in rooms if id(room) in kept]
