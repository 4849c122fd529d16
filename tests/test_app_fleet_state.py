"""FleetState: agents from cards, rosters and messages, and what each is on (its flags are the
Needs you queue's: tests/test_journey_agents_needs.py); a task's steps paired by its id."""

from __future__ import annotations

from parler_desktop.app.agents.fleet_state import FleetState, task_runs
from parler_desktop.protocol.values import AgentCard, DirectoryEntry, EndpointRef, RosterEntry, StoredMessage

ME = EndpointRef(id="UME", name="boss", role="supervisor")
BOB = EndpointRef(id="UBOB", name="bob", role="coder")
MINUTE = 60_000


def message(seq: int, room: str, sender: EndpointRef, ts: int, *parts: dict, mentions: tuple[str, ...] = ()) -> StoredMessage:
    return StoredMessage(seq=seq, id=f"m{seq}", room=room, sender=sender, parts=parts or ({"kind": "text", "text": "hi"},),
                         ts=ts, mentions=mentions or None)


def task(status: str, task_id: str = "t1", **more: object) -> dict:
    return {"kind": "com.parler.task", "status": status, "task": task_id, **more}


def fleet() -> FleetState:
    state = FleetState()
    state.set_me("", ME.id, ME.name)
    return state


def test_cards_and_rosters_make_one_agent_per_hub_and_id_without_the_human():
    state = fleet()
    card = AgentCard(id=BOB.id, name="bob", kind="agent", role="coder", description="writes code")
    entry = DirectoryEntry(card=card, visibility="private", status="working", hub="h", verified=True, first_seen=1,
                           last_seen=5, activity="tests")
    assert state.observe_directory("", [entry])
    assert state.observe_roster("", "build", [RosterEntry(id=BOB.id, name="bob", status="idle", last_seen=3),
                                              RosterEntry(id=ME.id, name="boss", status="idle", last_seen=9)])
    assert list(state.agents) == [("", BOB.id)]
    bob = state.agents[("", BOB.id)]
    assert (bob.presence, bob.activity, bob.rooms, bob.discoverable, bob.verified) == ("working", "tests", {"build"}, True, True)
    state.observe_roster("", "build", [RosterEntry(id=BOB.id, name="bob", status="waiting", last_seen=8)])  # newer
    assert bob.presence == "waiting"


def test_its_newest_task_status_is_what_it_is_on_and_the_humans_messages_make_no_agent():
    state = fleet()
    state.observe_message("", message(1, "build", BOB, 0, task("working", note="parsing")))
    bob = state.agents[("", BOB.id)]
    assert bob.task is not None and (bob.task.status, bob.task.note, bob.task.room) == ("working", "parsing", "build")
    state.observe_message("", message(2, "build", BOB, 12 * MINUTE, task("awaiting", note="which one?")))
    assert bob.task.status == "awaiting" and bob.last_seen_ms == 12 * MINUTE
    assert not state.observe_message("", message(3, "build", ME, 13 * MINUTE, mentions=("bob",)))
    assert list(state.agents) == [("", BOB.id)]


def test_task_runs_pair_steps_by_task_id():
    state = fleet()
    for seq, (status, task_id) in enumerate([("accepted", "a"), ("accepted", "b"), ("done", "a"), ("failed", "b"), ("done", "c")]):
        state.observe_message("", message(seq + 1, "build", BOB, seq * MINUTE, task(status, task_id)))
    runs = [(first.task, first.status, last.status if last else None) for first, last in task_runs(state.agents[("", BOB.id)].history)]
    assert runs == [("a", "accepted", "done"), ("b", "accepted", "failed"), ("c", "done", "done")]


def test_a_forgotten_hub_keeps_no_agent_and_another_hubs_stay():
    state = fleet()
    both = message(7, "build", BOB, MINUTE, task("done", "a", tokens=5), task("failed", "b"))
    state.observe_message("", both)
    state.observe_message("other", both)
    assert [(step.task, step.status) for step in state.agents[("", BOB.id)].history] == [("a", "done"), ("b", "failed")]
    state.forget_hub("")
    assert list(state.agents) == [("other", BOB.id)]
