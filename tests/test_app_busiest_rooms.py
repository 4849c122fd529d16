"""Which rooms a hub's list holds when the hub lists more than it shows (issue 47: a hub listing
100,000 rooms froze the window): the open room, then mentions, newest activity, then the hub's
unread claims; in their order, none beyond the limit."""

from __future__ import annotations

from parler_desktop.app.room_list.busiest_rooms import busiest_rooms, ranked_rooms
from parler_desktop.store.room_counts import RoomSummary


def room(name: str, *, last_ts: int = 0, unread: int = 0, mentions: int = 0) -> RoomSummary:
    return RoomSummary(name=name, kind="channel", members=2, hub_unread=unread, cursor=0, max_seq=0, last_ts=last_ts,
                       unread=unread, mentions_unread=mentions, last_preview="", last_sender="")


def names(rooms: list[RoomSummary]) -> list[str]:
    return [each.name for each in rooms]


def test_a_list_within_the_limit_is_kept_whole():
    rooms = [room("b"), room("a")]
    assert names(busiest_rooms(rooms, limit=2)) == ["b", "a"]


def test_mentions_then_newest_activity_then_claimed_unread_are_kept_in_their_order():
    rooms = [room("claimed", unread=1), room("quiet"), room("old", last_ts=10), room("new", last_ts=20),
             room("mention", mentions=1)]
    assert names(busiest_rooms(rooms, limit=3)) == ["old", "new", "mention"]
    assert names(busiest_rooms(rooms, limit=4)) == ["claimed", "old", "new", "mention"]


def test_the_open_room_and_the_rooms_found_are_kept_however_busy_the_others_are():
    rooms = [room("open"), *(room(f"r{n}", unread=1, last_ts=n) for n in range(5)), room("found")]
    assert names(busiest_rooms(rooms, {"open", None}, limit=2)) == ["open", "r4"]
    assert names(busiest_rooms(rooms, {"open", "found"}, limit=3)) == ["open", "r4", "found"]


def test_a_ranking_made_once_keeps_what_ranking_anew_keeps_for_any_rooms_found():
    rooms = [room(f"r{n:03d}", last_ts=n * 7 % 101, unread=n % 3, mentions=int(n % 17 == 0)) for n in range(300)]
    ranked = ranked_rooms(rooms, 20 + 5)
    for keep in ({"r299"}, {"r000", "r150", "r299", None}, {f"r{n:03d}" for n in range(0, 300, 60)}):
        assert names(busiest_rooms(rooms, keep, limit=20, ranked=ranked)) == names(busiest_rooms(rooms, keep, limit=20))
