"""What the sidebar's rows say to a screen reader (``Qt.AccessibleTextRole``): the counts a
sighted person reads off the badges, in words — "build, 3 unread, 1 mention" — and, for a hub's
heading, its connection line ("local hub, Live as boss, 5 unread")."""

from __future__ import annotations

from parler_desktop.app.room_list.agent_activity import AgentState

KIND_WORDS = {"dm": "direct message", "service": "service"}  # a channel needs no word
STATE_WORDS = {  # what the agents' dot before a room says (ui/room_list/agent_glance.py)
    AgentState.WAITING: "an agent is waiting on you",
    AgentState.FAILED: "a task failed",
    AgentState.WORKING: "agents are working",
}


def counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}" if count else ""


def unread_words(unread: int, mentions: int) -> str:
    """"3 unread, 1 mention" (nothing for what there is none of)."""
    return ", ".join(p for p in (counted(unread, "unread", "unread"), counted(mentions, "mention", "mentions")) if p)


def room_reading(label: str, kind: str, unread: int, mentions: int) -> str:
    kind_word = "" if kind == "service" and label.endswith("(service)") else KIND_WORDS.get(kind, "")
    return ", ".join(p for p in (label, kind_word, unread_words(unread, mentions)) if p)


def with_agents(reading: str, state: AgentState) -> str:
    """A room's reading with its agents' state, when the dot shows one."""
    words = STATE_WORDS.get(state)
    return f"{reading}, {words}" if words else reading


def heading_reading(label: str, state: str, unread: int, mentions: int, folded: bool) -> str:
    """A hub's heading: its name, connection line, counts, and whether its rooms are folded away."""
    return ", ".join(p for p in (f"{label} hub", state, unread_words(unread, mentions), "rooms folded" if folded else "") if p)
