"""Every agent the window knows, per hub: from directory cards (``discover``, protocol.md §7.14),
rosters, and the messages stored (task status parts, when it last spoke, what the human asked of
it). Plain Python: ``FleetModel`` feeds it from each hub's bridge and shows it.

An agent is one (hub, id). What it is on is its newest task status (§8.3) with the note and room.
Its flags are not kept here: ``FleetModel`` reads them from the Needs you queue (``HubNeeds.of_agent``:
waiting on you, silent on your work, by design.md §4b's rules) and the room list's loop warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from parler_desktop.app.dispatch.lease import HOLDING_STATUSES, lease_end
from parler_desktop.app.room_list.agent_activity import HUMAN_ROLES
from parler_desktop.protocol.parts import TaskStatus
from parler_desktop.protocol.values import AgentCard, DirectoryEntry, RosterEntry, StoredMessage

PRESENCES = ("idle", "working", "waiting", "offline")
TERMINAL = frozenset({"done", "failed", "cancelled"})
HISTORY_KEEP = 200  # task steps kept per agent for its card


@dataclass(frozen=True)
class TaskStep:
    room: str
    task: str  # the task's id (§8.3 ``task``), else "" (steps then pair in order)
    status: str
    note: str
    ts_ms: int
    tokens: int | None = None
    elapsed_ms: int | None = None


@dataclass
class AgentRecord:
    hub: str
    id: str
    name: str = ""
    role: str = ""
    presence: str = "offline"
    activity: str = ""
    card: AgentCard | None = None
    verified: bool = False
    last_seen_ms: int = 0  # its presence's time, or its newest message's
    rooms: set[str] = field(default_factory=set)  # rooms shared with the human
    task: TaskStep | None = None  # its newest task status
    history: list[TaskStep] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return (self.hub, self.id)

    @property
    def discoverable(self) -> bool:
        """It has a directory card: a DM reaches it without an invite (§7.4)."""
        return self.card is not None

    @property
    def lease_end_ms(self) -> int | None:
        """When its lease on the work it holds in a service room ends unless renewed, as the
        window reckons it (app/dispatch/lease.py: from its newest status there, or its presence
        while ``working``); None: it holds none."""
        task = self.task
        if task is None or not task.room.startswith("svc.") or task.status not in HOLDING_STATUSES:
            return None
        return lease_end(max(task.ts_ms, self.last_seen_ms if self.presence == "working" else 0))


def task_parts(message: StoredMessage) -> list[tuple[int, TaskStatus]]:
    """The message's well-formed task status parts, with their index among its parts."""
    found = []
    for position, part in enumerate(message.parts):
        task = TaskStatus.from_part(part) if part.get("kind") == TaskStatus.TAG else None
        if task is not None:
            found.append((position, task))
    return found


class FleetState:
    """The agents of every hub, keyed by (hub, id); each ``observe_*`` returns whether it changed
    anything shown, and what arrives live (a directory, a roster, a message) puts the agents it
    changed in ``touched``, for the view to repaint theirs alone (it empties the set)."""

    def __init__(self) -> None:
        self.agents: dict[tuple[str, str], AgentRecord] = {}
        self.touched: set[tuple[str, str]] = set()
        self.me: dict[str, tuple[str, str]] = {}  # hub -> (the human's id there, name)
        self.dm_rooms: dict[str, set[str]] = {}  # hub -> its DM rooms

    def forget_hub(self, hub: str) -> None:
        """The hub went, or its session changed: what was known of it goes."""
        for key in [key for key in self.agents if key[0] == hub]:
            del self.agents[key]

    def agent(self, hub: str, agent_id: str) -> AgentRecord:
        record = self.agents.get((hub, agent_id))
        if record is None:
            record = self.agents[(hub, agent_id)] = AgentRecord(hub, agent_id)
        return record

    def set_me(self, hub: str, agent_id: str, name: str) -> None:
        self.me[hub] = (agent_id, name)
        self.agents.pop((hub, agent_id), None)

    def _is_me(self, hub: str, agent_id: str) -> bool:
        return self.me.get(hub, ("",))[0] == agent_id

    def observe_directory(self, hub: str, entries: Iterable[DirectoryEntry]) -> bool:
        changed = False
        for entry in entries:
            if self._is_me(hub, entry.card.id) or entry.card.kind != "agent":
                continue
            record = self.agent(hub, entry.card.id)
            shown = (record.card, record.verified, record.presence, record.activity, record.last_seen_ms, record.name, record.role)
            record.card, record.verified = entry.card, entry.verified
            record.presence, record.activity = entry.status or "offline", entry.activity or ""
            record.last_seen_ms = max(record.last_seen_ms, entry.last_seen)
            record.name, record.role = entry.card.name or record.name, entry.card.role or record.role
            if shown != (record.card, record.verified, record.presence, record.activity, record.last_seen_ms, record.name, record.role):
                self.touched.add(record.key)
                changed = True
        return changed

    def observe_roster(self, hub: str, room: str, entries: Sequence[RosterEntry]) -> bool:
        changed = False
        for entry in entries:
            if self._is_me(hub, entry.id) or (entry.role or "").lower() in HUMAN_ROLES:
                continue
            record = self.agent(hub, entry.id)
            shown = (record.presence, record.activity, record.name, record.role, room in record.rooms)
            record.rooms.add(room)
            if entry.last_seen >= record.last_seen_ms:
                record.presence, record.activity = entry.status or "offline", entry.activity or ""
                record.last_seen_ms = entry.last_seen
            record.name = record.name or entry.name
            record.role = record.role or entry.role or entry.service_role or ""
            if shown != (record.presence, record.activity, record.name, record.role, True):
                self.touched.add(record.key)
                changed = True
        return changed

    def observe_sender(self, hub: str, room: str, agent_id: str | None, name: str | None, role: str | None, ts_ms: int) -> None:
        """What the cache says of one sender of a room: its name and role, when it last spoke."""
        if not isinstance(agent_id, str) or self._is_me(hub, agent_id) or (role or "").lower() in HUMAN_ROLES:
            return
        record = self.agent(hub, agent_id)
        record.rooms.add(room)
        record.name = record.name or (name if isinstance(name, str) else "")
        record.role = record.role or (role if isinstance(role, str) else "")
        record.last_seen_ms = max(record.last_seen_ms, ts_ms)

    def observe_message(self, hub: str, message: StoredMessage, tasks: list[tuple[int, TaskStatus]] | None = None) -> bool:
        """A stored message (the caller takes each in once): an agent's says it spoke, and its task
        statuses what it is on (``tasks``: its ``task_parts``, when the caller has them: decoded once)."""
        sender = message.sender
        if self._is_me(hub, sender.id) or (sender.role or "").lower() in HUMAN_ROLES:
            return False
        record = self.agent(hub, sender.id)
        self.touched.add(record.key)
        record.rooms.add(message.room)
        record.name = sender.name or record.name
        record.role = record.role or sender.role or ""
        record.last_seen_ms = max(record.last_seen_ms, message.ts)
        for _position, task in task_parts(message) if tasks is None else tasks:
            self.observe_task(record, message.room, message.ts, task)
        return True

    def observe_task(self, record: AgentRecord, room: str, ts_ms: int, task: TaskStatus) -> None:
        """One task status part (the caller takes each in once)."""
        step = TaskStep(room, task.task or "", task.status, task.note or "", ts_ms, task.tokens, task.elapsed_ms)
        if record.task is None or ts_ms >= record.task.ts_ms:
            record.task = step
        record.history.append(step)
        if len(record.history) > HISTORY_KEEP:
            del record.history[: len(record.history) - HISTORY_KEEP]

    def dm_room_with(self, hub: str, agent_id: str) -> str | None:
        """A DM room of ``hub`` the human shares with the agent, if the window knows one."""
        record = self.agents.get((hub, agent_id))
        rooms = self.dm_rooms.get(hub, set())
        return None if record is None else next((room for room in sorted(record.rooms) if room in rooms), None)


def task_runs(history: Sequence[TaskStep]) -> list[tuple[TaskStep, TaskStep | None]]:
    """The history as tasks: each task's first step and its final one (None: not finished), the
    steps of one task told by its id (steps without one are a task each until a final step)."""
    runs: list[tuple[TaskStep, TaskStep | None]] = []
    open_runs: dict[tuple[str, str], int] = {}
    for step in history:
        key = (step.room, step.task)
        index = open_runs.get(key)
        if index is None:
            runs.append((step, None))
            index = open_runs[key] = len(runs) - 1
        if step.status in TERMINAL:
            runs[index] = (runs[index][0], step)
            del open_runs[key]
    return runs
