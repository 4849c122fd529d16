"""What the agents in each room are doing, from the messages they post: the most urgent state
per room for the room list, and the loop warning for the room header and the notifications.

An agent's state comes from its latest task status part: ``failed``, ``accepted``/``working`` =
working, ``awaiting``/``done``/``cancelled`` = idle. A room shows the most urgent of its agents
(failed > working > idle). Whether one waits on the human, or has gone silent on the human's
work, is not guessed here (the first guess was: any ``awaiting`` task, any quiet worker) but read
from "Needs you" (``app/needs_you``, design.md §4b) by ``agent_watch`` and the header, so the dots,
the warnings and the queue agree.

**Loop**: in the last ``loop_window`` seconds more than ``loop_messages`` messages passed
between exactly two agents and none came from a human (us, or anyone with a human role). Of a
busy room's window only the newest ``RECENT_KEPT`` messages (or ``loop_messages`` + 1, if more)
are kept: at 200 messages a second the window held 60,000 per room, and every message of an
accelerated soak (issue 42); the warning then speaks of those.

Plain values and an injectable ``now``: the Qt side (``agent_watch``) feeds messages in and asks.
"""

from __future__ import annotations

import enum
import sys
from collections import Counter, deque
from dataclasses import dataclass, field

from parler_desktop.app.display_text import display_text
from parler_desktop.protocol.parts import TaskStatus
from parler_desktop.protocol.values import StoredMessage

RECENT_KEPT = 100  # a room's newest messages kept for the loop check, at most (see the docstring)
HUMAN_ROLES = frozenset({"supervisor", "human"})
STATE_OF_TASK = {
    "awaiting": "idle",  # waiting on the human or not: §4b's rules say (needs_you)
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
    WAITING = 3  # waiting on the human: set from needs_you, never from a task part


@dataclass(frozen=True)
class Hint:
    kind: str  # "loop" (the attention rules' part kind for it)
    agents: tuple[str, ...]  # display names
    seq: int  # the message to open (the agent's last, or the loop's newest)
    text: str


@dataclass
class _Room:
    """A room's agents, and its messages of the last ``loop_window`` with running counts of them
    (the loop check then costs the same however busy the room is)."""

    agents: dict[str, AgentState] = field(default_factory=dict)  # agent id -> its state
    recent: deque[tuple[float, str, str, bool, int]] = field(default_factory=deque)  # (at, id, name, human, seq)
    senders: Counter[str] = field(default_factory=Counter)  # sender id -> its messages in ``recent``
    humans: int = 0  # messages in ``recent`` from humans
    names: dict[str, str] = field(default_factory=dict)  # sender id -> its newest display name
    newest_seq: int = 0  # of the messages taken in

    def add(self, entry: tuple[float, str, str, bool, int]) -> None:
        self.recent.append(entry)
        self.senders[entry[1]] += 1
        self.humans += entry[3]
        self.names[entry[1]] = entry[2]

    def drop_before(self, at: float, keep: int) -> None:
        """Forget the messages older than ``at``, and all but the newest ``keep``."""
        while self.recent and (self.recent[0][0] < at or len(self.recent) > keep):
            _, sender, _, human, _ = self.recent.popleft()
            self.senders[sender] -= 1
            if not self.senders[sender]:
                del self.senders[sender], self.names[sender]
            self.humans -= human


class AgentActivity:
    def __init__(self, my_id: str, loop_messages: int = 20, loop_window: float = 300.0) -> None:
        self.my_id = my_id
        self.loop_messages = loop_messages
        self.loop_window = loop_window
        self._rooms: dict[str, _Room] = {}

    def observe(self, message: StoredMessage) -> None:
        """Take in one stored message (in seq order per room: one older than the room's newest
        was taken in already, or is older news than what the room shows, and is passed over)."""
        room = self._rooms.get(message.room)  # (every hub's arrivals come here: no _Room made per call)
        if room is None:
            room = self._rooms[message.room] = _Room()
        if message.seq <= room.newest_seq:
            return
        room.newest_seq = message.seq
        at = message.ts / 1000
        sender = message.sender
        human = sender.id == self.my_id or (sender.role or "").lower() in HUMAN_ROLES
        # (interned: each message decodes its own copy of the same few ids and names)
        room.add((at, sys.intern(sender.id), sys.intern(sender.name), human, message.seq))
        room.drop_before(at - self.loop_window, max(RECENT_KEPT, self.loop_messages + 1))
        if human:
            return
        for part in message.parts:
            task = TaskStatus.from_part(part) if part.get("kind") == TaskStatus.TAG else None
            if task is not None:
                room.agents[sender.id] = AgentState[STATE_OF_TASK[task.status].upper()]

    def rooms(self) -> list[str]:
        return sorted(self._rooms)

    def room_state(self, room: str) -> AgentState:
        return max(self._rooms.get(room, _Room()).agents.values(), default=AgentState.IDLE)

    def hints(self, room: str, now: float) -> list[Hint]:
        """The room's warnings at wall time ``now``."""
        state = self._rooms.get(room)
        loop = None if state is None else self._loop(state, now)
        return [] if loop is None else [loop]

    def _loop(self, state: _Room, now: float) -> Hint | None:
        """The loop warning for the messages since ``now - loop_window``: the room's counts, less
        the few oldest messages that fell out of the window since the newest arrived."""
        cutoff = now - self.loop_window
        stale = []
        for entry in state.recent:
            if entry[0] >= cutoff:
                break
            stale.append(entry)
        count = len(state.recent) - len(stale)
        if count <= self.loop_messages or state.humans - sum(entry[3] for entry in stale):
            return None
        senders = state.senders - Counter(entry[1] for entry in stale)  # drops those left at 0
        if len(senders) != 2:
            return None
        names = tuple(sorted(state.names[sender] for sender in senders))
        return Hint(
            "loop",
            names,
            state.recent[-1][4],
            f"{display_text(names[0])} and {display_text(names[1])} exchanged {count} messages "
            f"in {self.loop_window / 60:.0f} min without a human: a loop?",
        )
