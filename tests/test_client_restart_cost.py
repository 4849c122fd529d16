"""Restarts cost O(1) hub operations: the settled unread counts persisted with the sync marks let a
new process skip the rooms that did not move, and only those (design.md §3, the hub's budgets)."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from parler_desktop.client.events import ConnectionState, CursorChanged, StateChanged
from parler_desktop.identity import Identity
from parler_desktop.protocol.values import EndpointRef, RoomInfo, StoredMessage
from parler_desktop.store import LocalStore
from support.client_harness import FAST, EventLog, session_factory  # noqa: F401  (fixture)
from support.peer_ops import hub_seqs, invite_code, say

pytestmark = pytest.mark.timeout(60)

ROOMS = [f"room-{index:02d}" for index in range(32)]
QUIET = dataclasses.replace(FAST, reconcile_secs=600.0, quiet_secs=600.0)  # only catch-up spends operations
HANDSHAKE_FREE_OPS = 2  # rooms + subscribe: what a restart with nothing new may cost


class Home:
    """One identity's store, opened by one session ("process") after another."""

    def __init__(self, session_factory, url: str, store_path: Path) -> None:
        self.session_factory = session_factory
        self.url = url
        self.store_path = store_path
        self.identity = Identity.generate()

    async def run_until_live(self, **kwargs) -> tuple[object, EventLog, int]:
        """A new session on the store: it, its events, and the operations spent to reach LIVE."""
        session, log = await self.session_factory(
            self.url, identity=self.identity, store_path=self.store_path, tuning=QUIET, start=False, **kwargs
        )
        spent: list[int] = []
        session.add_listener(
            lambda e: isinstance(e, StateChanged) and e.state is ConnectionState.LIVE
            and spent.append(session.requests_sent)
        )
        session.start()
        await log.wait_state(ConnectionState.LIVE)
        return session, log, spent[0]


@pytest.fixture
async def world(hub, raw_agent, session_factory, tmp_path):
    """32 rooms with some history (one partly read elsewhere), synced once by a first session."""
    home = Home(session_factory, hub.url, tmp_path / "store.sqlite3")
    peer = await raw_agent(hub.url, name="bot")
    me = await raw_agent(hub.url, name="human", identity=home.identity)
    for index, room in enumerate(ROOMS):
        await me.ok({"op": "redeem", "code": await invite_code(peer, room)}, "joined")
        for i in range(index % 3):
            await say(peer, room, f"{room} old {i}")
    first_of_room_02 = (await hub_seqs(peer, "room-02"))[0]
    await me.ok({"op": "pull", "room": "room-02", "limit": 0, "ack": first_of_room_02}, "pulled")
    session, log, _ = await home.run_until_live()
    await log.wait_until(lambda: {e.room for e in log.of(CursorChanged)} == set(ROOMS), "every cursor learned")
    await session.stop()
    return home, peer, me


async def summaries(session) -> dict[str, tuple[int, int, int]]:
    """Per room (stored messages, cursor, stored unread)."""
    rows = await session.store.call(LocalStore.room_summaries)
    counts = {s.name: await session.store.call(LocalStore.message_count, s.name) for s in rows}
    return {s.name: (counts[s.name], s.cursor, s.unread) for s in rows}


def assert_unread_agrees_with_the_hub(session, stored: dict[str, tuple[int, int, int]]) -> None:
    assert {room.name: room.unread for room in session.rooms} == {name: row[2] for name, row in stored.items()}


async def test_a_restart_with_nothing_new_costs_rooms_and_subscribe_only(world):
    home, peer, _ = world
    session, log, spent = await home.run_until_live()
    assert spent <= HANDSHAKE_FREE_OPS
    assert log.messages() == []  # nothing pulled, nothing announced twice
    stored = await summaries(session)
    assert set(stored) == set(ROOMS)
    for room in ROOMS:
        assert stored[room][0] == len(await hub_seqs(peer, room))
    assert stored["room-02"][1:] == (min(await hub_seqs(peer, "room-02")), 1)  # read elsewhere before
    assert_unread_agrees_with_the_hub(session, stored)
    await session.stop()
    _, _, spent = await home.run_until_live()  # and again: the restart left the counts settled
    assert spent <= HANDSHAKE_FREE_OPS


async def test_a_restart_pulls_exactly_the_rooms_that_moved_while_away(world):
    home, peer, _ = world
    moved = ["room-03", "room-17", "room-30"]
    news = {room: [await say(peer, room, f"{room} while away {i}") for i in range(2)] for room in moved}
    session, log, spent = await home.run_until_live()
    assert spent == HANDSHAKE_FREE_OPS + len(moved)  # one short page each
    assert {room: [m.seq for m in log.messages(room)] for room in moved} == news
    assert len(log.messages()) == 2 * len(moved)  # exactly once, and nothing else
    stored = await summaries(session)
    for room in ROOMS:
        assert stored[room][0] == len(await hub_seqs(peer, room))
    assert_unread_agrees_with_the_hub(session, stored)


async def test_a_push_stored_but_not_reconciled_before_exit_gets_its_room_pulled(world):
    home, peer, _ = world
    session, log, _ = await home.run_until_live()
    pushed = await say(peer, "room-09", "pushed just before exit")
    await log.wait_until(lambda: [m.seq for m in log.messages("room-09")] == [pushed], "the push stored")
    await session.stop()  # no reconciliation ran: a push dropped before this one would be lost
    session, log, spent = await home.run_until_live()
    assert spent == HANDSHAKE_FREE_OPS + 1  # room-09 pulled to confirm its history
    assert log.messages() == []
    assert_unread_agrees_with_the_hub(session, await summaries(session))


async def test_an_ack_by_our_other_process_on_the_same_store_shows_after_a_restart(world):
    home, peer, _ = world
    seqs = await hub_seqs(peer, "room-05")
    session, log, _ = await home.run_until_live()
    await session.mark_read("room-05", seqs[-1])
    await log.wait_until(lambda: any(e.room == "room-05" and e.cursor == seqs[-1] for e in log.of(CursorChanged)), "ack")
    await session.stop()  # before any reconciliation could settle room-05 again
    session, log, spent = await home.run_until_live()
    assert spent == HANDSHAKE_FREE_OPS + 1  # room-05 pulled once: its cursor moved since it settled
    stored = await summaries(session)
    assert stored["room-05"] == (len(seqs), seqs[-1], 0)
    assert_unread_agrees_with_the_hub(session, stored)


async def test_an_ack_from_another_store_of_this_identity_is_learned_after_a_restart(world):
    home, peer, me = world
    seqs = await hub_seqs(peer, "room-08")
    await me.ok({"op": "pull", "room": "room-08", "limit": 0, "ack": seqs[0]}, "pulled")
    session, log, spent = await home.run_until_live()
    assert spent == HANDSHAKE_FREE_OPS + 2  # room-08: a pull, then the cursor the counts disagree on
    stored = await summaries(session)
    assert stored["room-08"] == (len(seqs), seqs[0], len(seqs) - 1)
    assert_unread_agrees_with_the_hub(session, stored)
    assert [e.cursor for e in log.of(CursorChanged)] == [seqs[0]]


def message(room: str, seq: int) -> StoredMessage:
    return StoredMessage(
        seq=seq, id=f"msg-{seq}", room=room, sender=EndpointRef(id="UBOT", name="bot"),
        parts=({"kind": "text", "text": str(seq)},), ts=1_700_000_000_000 + seq,
    )


def test_every_write_that_moves_a_room_drops_its_settled_count(tmp_path):
    store = LocalStore(tmp_path / "store.sqlite3")
    store.replace_rooms([RoomInfo("team", "channel", 2, 2)])
    store.insert_messages([message("team", 5), message("team", 7)])
    store.set_sync_mark("team", 7)

    def settle_then(write) -> dict[str, int]:
        store.settle([("team", store.count_after("team", store.cursor("team")), 7)])
        assert store.settled_unread() == {"team": store.count_after("team", store.cursor("team"))}
        write()
        return store.settled_unread()

    assert settle_then(lambda: store.replace_rooms([RoomInfo("team", "channel", 3, 2)])) == {"team": 2}
    assert settle_then(lambda: store.set_cursor("team", 0)) == {"team": 2}  # not a move
    assert settle_then(lambda: store.set_sync_mark("team", 7)) == {"team": 2}
    assert settle_then(lambda: store.insert_messages([message("team", 7)])) == {"team": 2}  # a repeat
    assert settle_then(lambda: store.set_cursor("team", 5)) == {}
    assert settle_then(lambda: store.replace_rooms([RoomInfo("team", "dm", 2, 1)])) == {}
    assert settle_then(lambda: store.unsettle("team")) == {}
    assert settle_then(lambda: store.insert_messages([message("team", 9)])) == {}
    store.set_sync_mark("team", 9)
    store.settle([("team", 5, 9)])  # disagrees with the stored unread (2): not recorded
    assert store.settled_unread() == {}
    store.close()


def test_a_store_from_before_settled_counts_opens_with_none_settled(tmp_path):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    store.insert_messages([message("team", 3)])
    store.set_sync_mark("team", 3)
    store.close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE rooms DROP COLUMN settled_unread")
    for table, column in (("messages", "signature"), ("rooms", "unread"), ("rooms", "mentions_unread")):
        db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")  # added by later migrations
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    store = LocalStore(path)
    assert store.sync_mark("team") == 3 and store.settled_unread() == {}
    store.close()
