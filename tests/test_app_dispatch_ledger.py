"""DispatchLedger: dispatched work's states read from a service room's log (issue 43 item 4),
leases that ran out included, which the journey cannot wait five minutes for."""

from __future__ import annotations

from parler_desktop.app.dispatch.dispatch_ledger import DispatchLedger
from parler_desktop.app.dispatch.lease import DEFAULT_LEASE_MS
from parler_desktop.protocol.values import EndpointRef, StoredMessage

ROOM = "svc.review"


def message(seq: int, who: str, parts: list[dict], reply_to: str | None = None) -> StoredMessage:
    return StoredMessage(
        seq=seq, id=f"m{seq}", room=ROOM, sender=EndpointRef(id=f"U{who}", name=who), parts=tuple(parts),
        ts=seq * 1000, reply_to=reply_to,
    )


def dispatch(seq: int) -> StoredMessage:
    return message(seq, "boss", [{"kind": "text", "text": "fix it"}, {"kind": "com.parler.dispatch", "role": "review"}])


def task(seq: int, who: str, status: str, of: str = "m1") -> StoredMessage:
    return message(seq, who, [{"kind": "com.parler.task", "status": status, "task": of}])


def test_another_worker_accepting_the_work_means_the_first_lease_ran_out() -> None:
    ledger = DispatchLedger()
    ledger.add([dispatch(1), task(2, "ann", "accepted"), task(3, "bob", "accepted"), task(4, "bob", "done")])
    [work] = ledger.work
    assert [(s.state, s.who) for s in work.steps] == [
        ("queued", "boss"), ("claimed", "ann"), ("expired", "ann"), ("claimed", "bob"), ("done", "bob")
    ]
    assert work.state == "done" and work.holder == "bob"


def test_a_silent_holder_that_is_not_working_loses_the_lease_and_the_work_is_queued_again() -> None:
    ledger = DispatchLedger()
    ledger.add([dispatch(1), task(2, "ann", "working")])
    assert ledger.work[0].lease_end_ms == 2000 + DEFAULT_LEASE_MS  # a lease from its last receipt
    assert ledger.lapse(2000 + DEFAULT_LEASE_MS, working={}) == set()  # not longer than a lease yet
    assert ledger.lapse(2001 + DEFAULT_LEASE_MS, working={"Uann": 3000}) == {"m1"}  # still working: it renews
    assert ledger.work[0].state == "working" and ledger.work[0].lease_end_ms == 3000 + DEFAULT_LEASE_MS
    assert ledger.lapse(3001 + DEFAULT_LEASE_MS, working={}) == {"m1"}
    assert ledger.work[0].state == "expired" and ledger.work[0].lease_end_ms is None
    assert ledger.work[0].steps[-1].ts == 3000 + DEFAULT_LEASE_MS
    ledger.add([task(400, "bob", "accepted")])
    assert [s.state for s in ledger.work[0].steps] == ["queued", "working", "expired", "claimed"]


def test_receipts_read_before_their_dispatch_and_after_a_final_one() -> None:
    ledger = DispatchLedger()
    assert ledger.add([task(2, "ann", "accepted")]) == set()
    ledger.add([dispatch(1), task(3, "ann", "failed"), task(4, "bob", "done"), message(5, "x", [{"kind": "com.parler.task", "status": "done"}], reply_to="m1")])
    assert ledger.work[0].state == "failed" and [s.state for s in ledger.work[0].steps] == ["queued", "claimed", "failed"]


def test_the_persons_dispatch_shows_from_the_outbox_until_its_stored_message_takes_its_place() -> None:
    from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus

    parts = ({"kind": "text", "text": "fix it"}, {"kind": "com.parler.dispatch", "role": "review"})
    item = OutboxItem(client_id="c1", room=ROOM, parts=parts, created_at=1.0)
    ledger = DispatchLedger()
    assert ledger.posted(item)
    assert [(w.message_id, w.state, w.role, w.text) for w in ledger.work] == [("c1", "sending", "review", "fix it")]
    ledger.posted(OutboxItem(client_id="c1", room=ROOM, parts=parts, created_at=1.0, status=OutboxStatus.FAILED))
    assert ledger.work[0].state == "unsent"
    ledger.posted(OutboxItem(client_id="c1", room=ROOM, parts=parts, created_at=1.0, status=OutboxStatus.SENT, message_id="m1", seq=1))
    assert [(w.message_id, w.state) for w in ledger.work] == [("c1", "queued")]  # sent: shown until stored
    ledger.add([dispatch(1)])
    assert [(w.message_id, w.state) for w in ledger.work] == [("m1", "queued")]  # once
    assert not ledger.posted(OutboxItem(client_id="c9", room=ROOM, parts=({"kind": "text", "text": "hi"},), created_at=2.0))


def test_a_workers_name_from_the_wire_is_shown_as_plain_bounded_text() -> None:
    from parler_desktop.app.dispatch.dispatch_model import state_line

    ledger = DispatchLedger()
    ledger.add([dispatch(1), task(2, "rtl-\u202egpj.exe" + "x" * 300, "accepted")])
    shown = state_line(ledger.work[0])
    assert shown.startswith("claimed by rtl-\ufffdgpj.exe") and shown.endswith("…") and len(shown) < 150


def test_the_room_talking_keeps_nothing_per_message_but_the_work() -> None:
    """Issue 42: every message id of a service room left shown was remembered (to ignore it if
    read again); only a dispatch or a receipt changes the list, so only theirs are."""
    ledger = DispatchLedger()
    chatter = [message(seq, "ann", [{"kind": "text", "text": f"looking at {seq}"}]) for seq in range(2, 1002)]
    ledger.add([dispatch(1), *chatter, task(1002, "ann", "done")])
    ledger.add([*chatter, task(1002, "ann", "done")])  # read again (the room's history and its live stores overlap)
    assert len(ledger._seen) == 2
    assert [s.state for s in ledger.work[0].steps] == ["queued", "done"]
