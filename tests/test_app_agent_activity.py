"""Agents at a glance: room state by urgency, and the loop warning on an injected clock."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from support.stored_session import ALICE, ME, message

from parler_desktop.app.room_list.agent_activity import AgentActivity, AgentState
from parler_desktop.protocol.values import EndpointRef

BOB = EndpointRef(id="UBOB", name="bob", role="coder")
CAROL = EndpointRef(id="UCAROL", name="carol", role="reviewer")
T0 = 1_700_000_000.0  # message(seq) is stamped T0 + seq seconds


def task(seq: int, room: str, status: str, sender: EndpointRef = ALICE):
    made = message(seq, room, f"task {status}", sender)
    return dataclasses.replace(made, parts=made.parts + ({"kind": "com.parler.task", "status": status, "task": "t"},))


def test_a_room_shows_its_most_urgent_agent():
    activity = AgentActivity(ME.id)
    activity.observe(task(1, "r", "working", ALICE))
    assert activity.room_state("r") is AgentState.WORKING
    activity.observe(task(2, "r", "failed", BOB))
    assert activity.room_state("r") is AgentState.FAILED
    activity.observe(task(3, "r", "awaiting", CAROL))
    assert activity.room_state("r") is AgentState.FAILED  # waiting on the human is Needs you's to say
    activity.observe(task(4, "r", "done", CAROL))
    assert activity.room_state("r") is AgentState.FAILED
    assert activity.room_state("elsewhere") is AgentState.IDLE


def test_two_agents_talking_without_a_human_are_a_loop_until_a_human_speaks():
    activity = AgentActivity(ME.id, loop_messages=20, loop_window=300)
    for seq in range(1, 21):
        activity.observe(message(seq, "r", "ping", ALICE if seq % 2 else BOB))
    assert activity.hints("r", T0 + 21) == []  # 20 is not more than 20
    activity.observe(message(21, "r", "pong", BOB))
    (hint,) = activity.hints("r", T0 + 21)
    assert (hint.kind, hint.agents, hint.seq) == ("loop", ("alice", "bob"), 21)
    assert activity.hints("r", T0 + 21 + 300) == []  # the window has moved on
    activity.observe(message(22, "r", "stop that", ME))
    assert activity.hints("r", T0 + 22) == []  # a human spoke in the window
    for seq in range(23, 45):
        activity.observe(message(seq, "three", "chatter", [ALICE, BOB, CAROL][seq % 3]))
    assert activity.hints("three", T0 + 45) == []  # three agents: a discussion, not a loop


@settings(max_examples=200, deadline=None)
@given(
    senders=st.lists(st.sampled_from([ALICE, BOB] * 6 + [CAROL, ME]), min_size=1, max_size=60),
    gaps=st.lists(st.integers(min_value=0, max_value=12), min_size=60, max_size=60),
    later=st.integers(min_value=0, max_value=150),
)
def test_the_loop_warning_from_running_counts_matches_counting_the_window(senders, gaps, later):
    """The loop check keeps counts as messages come and go; it must say what counting every
    message in the window would."""
    activity = AgentActivity(ME.id, loop_messages=5, loop_window=120)
    at, observed = T0, []
    for seq, (sender, gap) in enumerate(zip(senders, gaps), start=1):
        at += gap
        made = dataclasses.replace(message(seq, "r", "hi", sender), ts=int(at * 1000))
        activity.observe(made)
        observed.append((at, sender, seq))
    now = at + later
    window = [(when, sender, seq) for when, sender, seq in observed if when >= now - 120]
    names = {sender.id: sender.name for _, sender, _ in window}
    expected = None
    if len(window) > 5 and len(names) == 2 and all(sender.id != ME.id for _, sender, _ in window):
        expected = ("loop", tuple(sorted(names.values())), window[-1][2])
    loops = [(hint.kind, hint.agents, hint.seq) for hint in activity.hints("r", now) if hint.kind == "loop"]
    assert loops == ([expected] if expected else [])


def test_a_busy_room_keeps_only_its_newest_messages_for_the_loop_check():
    """Issue 42: at 200 messages a second the 5-minute window held every message (60,000 a room)."""
    from parler_desktop.app.room_list.agent_activity import RECENT_KEPT

    activity = AgentActivity(ME.id, loop_messages=20, loop_window=300)
    for seq in range(1, 3 * RECENT_KEPT):
        made = dataclasses.replace(message(seq, "r", "ping", ALICE if seq % 2 else BOB), ts=int(T0 * 1000) + seq)
        activity.observe(made)  # all within a second
    assert len(activity._rooms["r"].recent) == RECENT_KEPT
    (hint,) = activity.hints("r", T0 + 2)
    assert (hint.kind, hint.agents, hint.seq) == ("loop", ("alice", "bob"), 3 * RECENT_KEPT - 1)
    activity.loop_messages = 2 * RECENT_KEPT  # a setting above the bound: the check still has what it needs
    for seq in range(3 * RECENT_KEPT, 6 * RECENT_KEPT):
        activity.observe(dataclasses.replace(message(seq, "r", "ping", ALICE if seq % 2 else BOB), ts=int(T0 * 1000) + seq))
    assert len(activity._rooms["r"].recent) == 2 * RECENT_KEPT + 1
    assert [hint.kind for hint in activity.hints("r", T0 + 4)] == ["loop"]
