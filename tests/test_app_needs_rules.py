"""The "Needs you" derivation (design.md §4b) on plain messages: each row's item, one item a
message, and each way an item leaves."""

from __future__ import annotations

import dataclasses

from support.stored_session import ALICE, ME, message

from parler_desktop.app.needs_you.needs_rules import Decision, Me, NeedKind, NeedsLedger, visible
from parler_desktop.protocol.values import JoinRequest

T0 = 1_700_000_000.0  # message(seq) is stamped T0 + seq seconds


def with_parts(seq: int, room: str, *parts: dict, sender=ALICE, **fields):
    made = message(seq, room, f"message {seq}", sender, **fields)
    return dataclasses.replace(made, parts=made.parts + parts)


def task(status: str, task_id: str, note: str | None = None) -> dict:
    return {"kind": "com.parler.task", "status": status, "task": task_id, **({"note": note} if note else {})}


def handoff(to: str | None, next_step: str = "review it") -> dict:
    return {"kind": "com.parler.handoff", "next": next_step, **({"to": to} if to is not None else {})}


def ledger() -> NeedsLedger:
    made = NeedsLedger(Me(ME.id, ME.name, ME.role), room_kinds={"r": "channel", "dm": "dm"})
    made.observe(message(0, "r", "please test it", ME))  # my requests: message ids m0 and m1
    made.observe(message(1, "r", "please build it", ME))
    return made


def kinds(made: NeedsLedger, now: float = T0 + 100) -> list[tuple[str, NeedKind]]:
    return [(item.key, item.kind) for item in visible(made.open_items(now), {}, now)]


def test_each_row_raises_its_item_and_a_message_raises_at_most_one():
    made = ledger()
    made.observe(with_parts(2, "r", handoff(" SUPERVISOR "), mentions=("boss",)))  # also mentions me: one handoff
    made.observe(with_parts(3, "r", handoff(None)))  # to anyone in a channel: not mine
    made.observe(with_parts(4, "dm", handoff(None)))  # no "to" in a DM with me
    made.observe(with_parts(5, "r", task("awaiting", "m1", "which DB?")))
    made.observe(with_parts(6, "r", task("awaiting", "not-mine")))  # someone else's task
    made.observe(with_parts(7, "r", task("failed", "m0", "tests broke")))
    made.observe(message(8, "r", "hey @boss"))
    made.observe(message(9, "dm", "psst"))
    made.observe(message(10, "r", "chatter"))
    assert kinds(made) == [
        ("m2", NeedKind.HANDOFF), ("m4", NeedKind.HANDOFF), ("m5", NeedKind.QUESTION), ("m7", NeedKind.FAILED),
        ("m8", NeedKind.MENTION), ("m9", NeedKind.MENTION),
    ]
    assert made.items["m5"].text == "which DB?"


def test_items_leave_by_reply_later_task_part_cursor_and_join_resolution():
    made = ledger()
    made.observe(with_parts(2, "r", handoff("boss")))
    made.observe(with_parts(3, "r", task("awaiting", "m1", "which DB?")))
    made.observe(message(4, "r", "@boss look"))
    made.set_join_requests("r", [JoinRequest("UBOB", "bob", int(T0 * 1000), "coder")])
    assert [kind for _, kind in kinds(made)] == [NeedKind.JOIN, NeedKind.HANDOFF, NeedKind.QUESTION, NeedKind.MENTION]
    made.observe(message(5, "r", "on it", ME, reply_to="m2"))  # a reply
    made.observe(with_parts(6, "r", task("working", "m1")))  # the task moved on
    made.set_cursor("r", 4)  # read
    made.set_join_requests("r", [])  # resolved
    assert kinds(made) == []
    made.observe(with_parts(3, "r", task("awaiting", "m1", "which DB?")))  # taken in twice: still answered
    made.observe(with_parts(2, "r", handoff("boss")))
    assert kinds(made) == []


def test_silent_on_my_work_until_the_agent_posts_or_the_task_ends():
    made = ledger()
    made.observe(with_parts(2, "r", task("working", "m1")))
    assert kinds(made, T0 + 2 + 15 * 60) == []
    assert kinds(made, T0 + 3 + 15 * 60) == [("silent:m1", NeedKind.SILENT)]
    made.observe(message(2000, "elsewhere", "still here"))  # posts anywhere on the hub
    assert kinds(made, T0 + 2000 + 60) == []
    made.observe(with_parts(2001, "r", task("done", "m1")))
    assert kinds(made, T0 + 10**6) == []


def test_decisions_hide_items_until_they_end():
    made = ledger()
    made.observe(with_parts(2, "r", handoff("boss")))
    item = made.items["m2"]
    now = T0 + 10
    assert visible([item], {"m2": Decision("m2", "dismissed")}, now) == []
    assert visible([item], {"m2": Decision("m2", "snoozed", until=now + 60)}, now) == []
    assert visible([item], {"m2": Decision("m2", "snoozed", until=now + 60)}, now + 61) == [item]
    speaks = Decision("m2", "until_speaks", agent=ALICE.id, after_seq=2)
    assert made.poster_spoke(ALICE.id, 2, [speaks]) == []
    assert made.poster_spoke(ALICE.id, 3, [speaks]) == ["m2"]


def test_time_to_unblock_today_per_hub_agent_and_room_and_its_csv():
    from parler_desktop.app.needs_you.unblock_stats import Answered, csv_text, start_of_day, today

    now = start_of_day(T0) + 12 * 3600
    done = [
        ("hub A", Answered("m1", "alice", "r", "handoff", now - 600, now - 300)),  # 5 min
        ("hub A", Answered("m2", "alice", "r", "question", now - 900, now)),  # 15 min
        ("hub A", Answered("m3", "alice", "r", "question", now - 60, now - 30)),  # 0.5 min
        ("hub B", Answered("m4", "bob", "s", "failed", now - 120, now)),  # 2 min
        ("hub A", Answered("m5", "alice", "r", "handoff", now - 2 * 86400, now - 86400)),  # yesterday
    ]
    (a, b) = today(done, now)
    assert (a.hub, a.agent, a.room, a.answered) == ("hub A", "alice", "r", 3)
    assert (a.waiting_minutes, a.median_minutes, a.worst_minutes) == (20.5, 5.0, 15.0)
    assert (b.hub, b.answered, b.worst_minutes) == ("hub B", 1, 2.0)
    assert csv_text([a]).splitlines() == [
        "hub,agent,room,items answered,agent-minutes waiting,median minutes to unblock,worst minutes to unblock",
        "hub A,alice,r,3,20.5,5.0,15.0",
    ]


def test_a_question_stored_before_my_own_request_is_matched_once_my_request_is_known():
    made = NeedsLedger(Me(ME.id, ME.name, ME.role), room_kinds={"r": "channel"})
    made.observe(with_parts(5, "r", task("awaiting", "m4", "which DB?")))  # pushed, stored first
    assert kinds(made) == []
    made.mine("m4")  # the outbox says my post m4 was sent (or it is stored)
    assert kinds(made) == [("m5", NeedKind.QUESTION)]
    made.observe(message(4, "r", "please migrate", ME))
    assert kinds(made) == [("m5", NeedKind.QUESTION)]
