"""What the agents in each room are doing, from the messages they post: the most urgent state
per room for the room list, and two warnings for the room header and the notifications.

An agent's state comes from its latest task status part: ``awaiting`` = waiting on the human,
``failed``, ``accepted``/``working`` = working, ``done``/``cancelled`` = idle. A room shows the
most urgent of its agents (waiting > failed > working > idle).

- **Stuck**: an agent whose latest state is working and that has posted nothing for
  ``stuck_after`` seconds.
- **Loop**: in the last ``loop_window`` seconds more than ``loop_messages`` messages passed
  between exactly two agents and none came from a human (us, or anyone with a human role).

Plain values and an injectable ``now``: the Qt side (``agent_watch``) feeds messages in and asks.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass, field

from parler_desktop.protocol.parts import TaskStatus
from parler_desktop.protocol.values import StoredMessage

HUMAN_ROLES = frozenset({"supervisor", "human"})
STATE_OF_TASK = {
    "awaiting": "waiting",
    "failed": "failed",
    "accepted": "working",
    "working": "working",
    "done": "idle",
    "cancelled": "idle",
}


class AgentState(enum.IntEnum):
    """Ordered by urgency: a room shows its highest."""

    IDLE = 0
    WORKING = 1
    FAILED = 2
    WAITING = 3  # waiting on the human


@dataclass(frozen=True)
class Hint:
    kind: str  # "stuck" | "loop"
    agents: tuple[str, ...]  # display names
    seq: int  # the message to open (the agent's last, or the loop's newest)
    text: str


@dataclass
class _Agent:
    name: str
    state: AgentState = AgentState.IDLE
    last_at: float = 0.0  # wall seconds of its newest message
    last_seq: int = 0


@dataclass
class _Room:
    agents: dict[str, _Agent] = field(default_factory=dict)
    recent: deque[tuple[float, str, str, bool, int]] = field(default_factory=deque)  # (at, id, name, human, seq)


class AgentActivity:
    def __init__(
        self, my_id: str, stuck_after: float = 600.0, loop_messages: int = 20, loop_window: float = 300.0
    ) -> None:
        self.my_id = my_id
        self.stuck_after = stuck_after
        self.loop_messages = loop_messages
        self.loop_window = loop_window
        self._rooms: dict[str, _Room] = {}

    def observe(self, message: StoredMessage) -> None:
        """Take in one stored message (in seq order per room)."""
        room = self._rooms.setdefault(message.room, _Room())
        at = message.ts / 1000
        sender = message.sender
        human = sender.id == self.my_id or (sender.role or "").lower() in HUMAN_ROLES
        room.recent.append((at, sender.id, sender.name, human, message.seq))
        while room.recent and room.recent[0][0] < at - self.loop_window:
            room.recent.popleft()
        if human:
            return
        agent = room.agents.setdefault(sender.id, _Agent(sender.name))
        agent.name, agent.last_at, agent.last_seq = sender.name, max(agent.last_at, at), message.seq
        for task in filter(None, map(TaskStatus.from_part, message.parts)):
            agent.state = AgentState[STATE_OF_TASK[task.status].upper()]

    def rooms(self) -> list[str]:
        return sorted(self._rooms)

    def room_state(self, room: str) -> AgentState:
        agents = self._rooms.get(room, _Room()).agents.values()
        return max((agent.state for agent in agents), default=AgentState.IDLE)

    def hints(self, room: str, now: float) -> list[Hint]:
        """The room's warnings at wall time ``now``."""
        state = self._rooms.get(room)
        if state is None:
            return []
        found = []
        for agent in state.agents.values():
            quiet = now - agent.last_at
            if agent.state is AgentState.WORKING and quiet > self.stuck_after:
                found.append(
                    Hint(
                        "stuck",
                        (agent.name,),
                        agent.last_seq,
                        f"{agent.name} has shown “working” for {quiet / 60:.0f} min without a message: "
                        "it may be stuck",
                    )
                )
        window = [entry for entry in state.recent if entry[0] >= now - self.loop_window]
        senders = {entry[1]: entry[2] for entry in window}
        if len(window) > self.loop_messages and len(senders) == 2 and not any(entry[3] for entry in window):
            names = tuple(sorted(senders.values()))
            found.append(
                Hint(
                    "loop",
                    names,
                    window[-1][4],
                    f"{names[0]} and {names[1]} exchanged {len(window)} messages "
                    f"in {self.loop_window / 60:.0f} min without a human: a loop?",
                )
            )
        return found
