"""The client's small parts on their own: addresses, invites, backoff, inbox, pacing, resume, tasks."""

from __future__ import annotations

import asyncio
import random

import pytest

from parler_desktop.client.address import InviteRef, normalize_hub_url, parse_invite
from parler_desktop.client.backoff import Backoff
from parler_desktop.client.commit import Committer
from parler_desktop.client.events import MessagesArrived
from parler_desktop.client.inbox import BoundedInbox
from parler_desktop.client.pacing import RequestPacer
from parler_desktop.client.roster import RosterWatcher
from parler_desktop.client.tasks import TaskSupervisor
from parler_desktop.client.wake import ResumeDetector
from parler_desktop.protocol.frames import RosterList
from parler_desktop.protocol.values import EndpointRef, RosterEntry, StoredMessage
from parler_desktop.store import LocalStore, StoreWorker
from support.manual_clock import ManualClock

pytestmark = pytest.mark.timeout(10)


@pytest.mark.parametrize(
    ("typed", "dialed"),
    [
        ("127.0.0.1:7070", "ws://127.0.0.1:7070/ws"),
        ("https://hub.example/", "wss://hub.example/ws"),
        ("parler://127.0.0.1:7070", "ws://127.0.0.1:7070/ws"),
        ("  ws://h:1/ws  ", "ws://h:1/ws"),
        ("wss://h/ws/", "wss://h/ws"),
        ("http://h:8080/base", "ws://h:8080/base/ws"),
        ("HTTPS://h", "wss://h/ws"),
    ],
)
def test_hub_addresses_are_normalized_as_the_reference_client_does(typed, dialed):
    assert normalize_hub_url(typed) == dialed


@pytest.mark.parametrize("typed", ["", "   ", "ws://", "https:///", "h:99999"])
def test_an_empty_address_is_refused(typed):
    with pytest.raises(ValueError):
        normalize_hub_url(typed)


@pytest.mark.parametrize(
    ("typed", "ref"),
    [
        ("K7QW2MZP", InviteRef("K7QW2MZP")),
        (" K7QW2MZP\n", InviteRef("K7QW2MZP")),
        ("parler://127.0.0.1:7070/join/K7QW2MZP", InviteRef("K7QW2MZP", "ws://127.0.0.1:7070/ws")),
        ("https://hub.example/join/K7QW2MZP/", InviteRef("K7QW2MZP", "wss://hub.example/ws")),
        ("K7QW2MZP@127.0.0.1:7070", InviteRef("K7QW2MZP", "ws://127.0.0.1:7070/ws")),
        # what the reference `parler` prints for a person to paste: a whole command line, a link
        # with a query and a fragment, a key whose hub has a scheme
        ("  parler conversation K7QW2MZP@ws://127.0.0.1:7070\n", InviteRef("K7QW2MZP", "ws://127.0.0.1:7070/ws")),
        ("parler join K7QW2MZP@wss://hub.example", InviteRef("K7QW2MZP", "wss://hub.example/ws")),
        ("parler session join K7QW2MZP@parler://127.0.0.1:7099", InviteRef("K7QW2MZP", "ws://127.0.0.1:7099/ws")),
        ("parler://127.0.0.1:7099/join/K7QW2MZP/?source=desktop#share", InviteRef("K7QW2MZP", "ws://127.0.0.1:7099/ws")),
        ("parler-desktop join --hub ws://127.0.0.1:7070/ws K7QW2MZP", InviteRef("K7QW2MZP", "ws://127.0.0.1:7070/ws")),
    ],
)
def test_invites_split_into_code_and_hub(typed, ref):
    assert parse_invite(typed) == ref


@pytest.mark.parametrize("typed", ["parler://h:1/join/", "parler conversation", "parler join --hub h:1"])
def test_an_invite_without_a_code_is_refused(typed):
    with pytest.raises(ValueError):
        parse_invite(typed)


def test_backoff_is_full_jitter_under_a_doubling_capped_ceiling():
    backoff = Backoff(base=0.5, cap=30.0, rng=random.Random(3))
    expected = random.Random(3)
    ceilings = [0.5, 1, 2, 4, 8, 16, 30, 30, 30]
    for attempt, ceiling in enumerate(ceilings, start=1):
        delay = backoff.failed()
        assert backoff.attempt == attempt
        assert delay == expected.uniform(0, ceiling)
        assert 0 <= delay <= ceiling
    backoff.reset()
    assert backoff.attempt == 0 and backoff.failed() <= 0.5
    assert Backoff(base=1, cap=5).ceiling(10_000) == 5  # no overflow far out


async def test_inbox_drops_the_oldest_when_full():
    inbox: BoundedInbox[int] = BoundedInbox(3)
    for item in range(5):
        inbox.put(item)
    assert inbox.dropped == 2
    assert await inbox.wait() == [2, 3, 4]
    waiter = asyncio.ensure_future(inbox.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    inbox.put(9)
    assert await waiter == [9]


async def test_pacer_keeps_its_reserve_for_urgent_requests():
    clock = ManualClock()
    pacer = RequestPacer(clock, per_window=4, window_secs=60, reserved=2)
    await pacer.acquire()
    clock.advance(10)
    await pacer.acquire()
    assert (pacer.delay(), pacer.delay(urgent=True)) == (50, 0)  # the background waits for the first to expire
    await pacer.acquire(urgent=True)
    await pacer.acquire(urgent=True)
    assert (pacer.delay(), pacer.delay(urgent=True)) == (60, 50)


async def test_pacer_spreads_requests_over_the_window_and_holds_after_rate_limited():
    clock = ManualClock()
    pacer = RequestPacer(clock, per_window=3, window_secs=60, first_hold_secs=2, max_hold_secs=8)
    for _ in range(3):
        await pacer.acquire()
    assert pacer.delay() == 60
    clock.advance(60)
    assert pacer.delay() == 0
    assert [pacer.penalize(), pacer.penalize(), pacer.penalize(), pacer.penalize()] == [2, 4, 8, 8]
    assert pacer.delay() == 8  # the longest hold so far, from now
    waiting = asyncio.ensure_future(pacer.acquire())
    await clock.settle()
    assert not waiting.done()
    clock.advance(8)
    await asyncio.wait_for(waiting, 1)
    pacer.relieve()
    assert pacer.penalize() == 2


def test_resume_detector_fires_when_wall_time_outruns_monotonic_time():
    clock = ManualClock()
    gaps: list[float] = []
    detector = ResumeDetector(clock, gaps.append, tick_secs=1, jump_secs=5)
    mark = (clock.time(), clock.monotonic())
    clock.advance(1)
    mark = detector.check(mark)
    assert gaps == []
    clock.sleep_machine(600)  # suspended: wall clock moves, monotonic clock does not
    clock.advance(1)
    detector.check(mark)
    assert gaps == [600]


async def test_supervisor_reports_failures_and_cancels_the_rest():
    failures: list[tuple[str, BaseException]] = []
    supervisor = TaskSupervisor("test", lambda name, error: failures.append((name, error)))

    async def fail() -> None:
        raise RuntimeError("boom")

    forever = supervisor.spawn("forever", asyncio.Event().wait())
    supervisor.spawn("fail", fail())
    while not failures:
        await asyncio.sleep(0)
    assert failures[0][0] == "test:fail" and str(failures[0][1]) == "boom"
    assert supervisor.tasks == {forever}
    await supervisor.cancel_all()
    assert forever.cancelled() and not supervisor.tasks


async def test_a_cancelled_store_write_still_announces_what_it_wrote(tmp_path):
    store = StoreWorker(tmp_path / "store.sqlite3")
    await store.open()
    events: list[object] = []
    commit = Committer(store, events.append)
    message = StoredMessage(seq=1, id="m1", room="team", sender=EndpointRef(id="U1", name="a"), parts=(), ts=1)
    try:
        writing = asyncio.ensure_future(
            commit(LocalStore.insert_messages, [message], announce=lambda rows: [("stored", len(rows))])
        )
        await asyncio.sleep(0)  # the write is on the store's thread now
        writing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await writing
        await commit.drain()
        assert events == [("stored", 1)]
        assert await store.call(LocalStore.insert_messages, [message]) == []  # it was written once
    finally:
        await store.close()


async def turns(count: int) -> None:
    """Let the loop run ``count`` turns."""
    for _ in range(count):
        await asyncio.sleep(0)


async def test_a_sender_the_roster_does_not_list_refreshes_it_once(tmp_path):
    """A newcomer's message refreshes the watched room's roster at once; a sender still not
    listed after that (someone who left) does not refresh it again."""
    store = StoreWorker(tmp_path / "store.sqlite3")
    await store.open()
    asked: list[str] = []
    listed = [RosterEntry(id="U1", name="alice", status="idle", last_seen=1)]

    async def hub(frame: object, _kind: object) -> RosterList:  # the hub's answer to `roster`
        asked.append(frame.room)
        return RosterList(room=frame.room, entries=tuple(listed))

    watcher = RosterWatcher(Committer(store, lambda _event: None), ManualClock(), interval=3600)
    heard = lambda sender: watcher.hear(MessagesArrived("team", (StoredMessage(  # noqa: E731
        seq=1, id="m", room="team", sender=EndpointRef(id=sender, name=sender), parts=(), ts=1),)))
    running = asyncio.ensure_future(watcher.run(hub))
    try:
        watcher.watch(["team"])
        while asked != ["team"]:
            await asyncio.sleep(0.01)
        heard("U1")  # listed: nothing to do
        await turns(20)  # (a refresh asks the hub within two)
        assert asked == ["team"]
        listed.append(RosterEntry(id="U2", name="carol", status="idle", last_seen=2))
        heard("U2")  # a newcomer
        while asked != ["team", "team"]:
            await asyncio.sleep(0.01)
        heard("U3")  # not listed even after a refresh: one refresh, then no more
        while len(asked) < 3:
            await asyncio.sleep(0.01)
        heard("U3")
        await turns(20)
        assert asked == ["team"] * 3
    finally:
        running.cancel()
        await store.close()


def test_each_post_is_sent_to_the_target_it_was_signed_for():
    import time

    from parler_desktop.client.outbox import build_item, dm_agent_of, send_target
    from parler_desktop.identity import Identity, verify_signature
    from parler_desktop.protocol.canonical import SignatureState, verify_message
    from parler_desktop.protocol.values import DmTarget, RoomTarget, ServiceTarget

    me, now = Identity.generate(), time.time()
    to_room = build_item(me, "team", "hi", created_at=now)
    to_agent = build_item(me, "", "hi", created_at=now, target=DmTarget("Ubob"))
    to_role = build_item(me, "svc.code_review", "do it", created_at=now, target=ServiceTarget("code review"))
    assert [send_target(i) for i in (to_room, to_agent, to_role)] == [RoomTarget("team"), DmTarget("Ubob"), ServiceTarget("code review")]
    assert [dm_agent_of(i) for i in (to_room, to_agent, to_role)] == [None, "Ubob", None]
    for room, target in (("", None), ("team", DmTarget("Ubob")), ("svc.other", ServiceTarget("review"))):
        with pytest.raises(ValueError):
            build_item(me, room, "hi", created_at=now, target=target)  # a room that is not the target's
    stored = StoredMessage(  # the hub's copy in the service room verifies: its signature binds that room
        seq=1, id="m1", room="svc.code_review", sender=EndpointRef(id=me.agent_id, name="me"), parts=to_role.parts, ts=1,
    )
    assert verify_message(stored, verify_signature, "Uother") is SignatureState.VALID
