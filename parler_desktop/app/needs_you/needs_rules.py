"""What needs the human on one hub (design.md §4b), derived from the messages as they are stored.

Plain values and an injectable ``now``: ``NeedsLedger.observe`` takes each stored message once,
in seq order, and keeps the open items; the Qt side (``needs_watch``) feeds it and asks. A
message raises at most one item, the first of these rows it matches:

1. ``handoff`` — a handoff whose ``to`` is my name, role or agent id, or one with no ``to`` in a
   DM with me; leaves when I reply to it.
2. ``question`` — a task ``awaiting`` whose ``task`` is a message I wrote, or posted in a DM with
   me (the question is its ``note``); leaves when I reply or a later part of that task arrives.
3. ``failed`` — a task ``failed`` whose ``task`` is a message I wrote; leaves when I acknowledge
   it (a dismissal) or reply.
4. ``mention`` — someone else's message mentioning me, or any message from someone else in a DM
   with me; leaves when the read cursor passes it or I reply.

Two more come from elsewhere: ``join`` (a pending request on a room I own: ``set_join_requests``)
and ``silent`` (a task I asked for, last ``accepted``/``working``, whose agent has posted
nothing on the hub for ``silent_after`` seconds: ``silent_items(now)``). What the human did
(dismissed, snoozed) is a ``Decision`` kept in the store; ``visible`` hides what it covers.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from parler_desktop.protocol.mentions import mentions_human
from parler_desktop.protocol.parts import Handoff, TaskStatus
from parler_desktop.protocol.trim import trim
from parler_desktop.protocol.values import JoinRequest, StoredMessage

SILENT_AFTER_SECS = 15 * 60.0
TASK_RUNS = frozenset({"accepted", "working"})


class NeedKind(enum.Enum):
    """In the order §4b's rows are matched."""

    HANDOFF = "handoff"
    QUESTION = "question"
    FAILED = "failed"
    MENTION = "mention"
    JOIN = "join"
    SILENT = "silent"

    @property
    def label(self) -> str:
        return KIND_LABELS[self]


KIND_LABELS = {
    NeedKind.HANDOFF: "Handoff to you",
    NeedKind.QUESTION: "Question",
    NeedKind.FAILED: "Your task failed",
    NeedKind.MENTION: "Mention",
    NeedKind.JOIN: "Join request",
    NeedKind.SILENT: "Silent on your work",
}


@dataclass(frozen=True)
class Me:
    """The window's identity on the hub."""

    agent_id: str
    name: str
    role: str | None

    def is_named(self, addressee: str) -> bool:
        """``addressee`` (a handoff's ``to``) is my name, role or agent id (trimmed, ASCII case ignored)."""
        wanted = trim(addressee).lower()
        return bool(wanted) and wanted in {trim(self.name).lower(), trim(self.role or "").lower(), self.agent_id.lower()}


@dataclass(frozen=True)
class NeedItem:
    """One thing waiting on the human. ``key`` is the raising message's id (``join:room:agent``
    and ``silent:task`` for the two that are not one message's)."""

    key: str
    kind: NeedKind
    room: str
    seq: int  # the message that raised it (0 for a join request)
    message_id: str
    agent_id: str
    agent_name: str
    agent_role: str | None
    text: str  # the instruction, the question, the failure, the message
    since: float  # wall seconds the agent has waited from
    task: str | None = None  # the task it is about (question, failure, silence)
    parts: tuple[dict, ...] = ()  # the raising message's parts (what Done and Hand back answer)


@dataclass(frozen=True)
class Decision:
    """What the human did about an item: ``dismissed``, or snoozed ``until`` a wall time, or
    until ``agent`` posts after ``after_seq``."""

    key: str
    action: str  # "dismissed" | "snoozed" | "until_speaks"
    until: float = 0.0
    agent: str = ""
    after_seq: int = 0

    def hides(self, now: float) -> bool:
        return self.action != "snoozed" or now < self.until


@dataclass
class _Task:
    """A task I asked for (its ``task`` is a message I wrote): its last status and worker."""

    status: str
    agent_id: str
    agent_name: str
    agent_role: str | None
    room: str
    seq: int
    message_id: str
    since: float


def _text_only(parts: Sequence[dict]) -> bool | None:
    """None when a part is not text; else whether a text has an "@" (what may mention someone)."""
    if len(parts) == 1:  # (most messages: one text part)
        part = parts[0]
        return "@" in str(part.get("text", "")) if part.get("kind") == "text" else None
    if any(part.get("kind") != "text" for part in parts):
        return None
    return any("@" in str(part.get("text", "")) for part in parts)


def _text_of(message: StoredMessage) -> str:
    return "\n".join(str(part.get("text", "")) for part in message.parts if part.get("kind") == "text").strip()


@dataclass
class NeedsLedger:
    me: Me
    silent_after: float = SILENT_AFTER_SECS
    room_kinds: dict[str, str] = field(default_factory=dict)
    cursors: dict[str, int] = field(default_factory=dict)
    items: dict[str, NeedItem] = field(default_factory=dict)
    _mine: set[str] = field(default_factory=set)  # ids of the messages I wrote
    _replied: set[str] = field(default_factory=set)  # ids of messages I replied to
    _tasks: dict[str, _Task] = field(default_factory=dict)
    _last_post: dict[str, float] = field(default_factory=dict)  # agent id -> wall seconds of its newest message
    _joins: dict[str, NeedItem] = field(default_factory=dict)
    _task_moved_at: dict[str, int] = field(default_factory=dict)  # task -> seq of its newest part not ``awaiting``
    newest_seq: int = 0  # of the messages taken in
    _questions: dict[str, set[str]] = field(default_factory=dict)  # task -> keys of its question items
    _unowned: dict[str, list[StoredMessage]] = field(default_factory=dict)  # task -> its awaiting/failed parts, the task not known as mine (yet)

    # -- taking messages in ------------------------------------------------------------------
    def observe(self, message: StoredMessage) -> list[str]:
        """Take in one stored message (once or more, in any order: a message arriving while the
        store is read at start is taken in twice); returns the keys of the questions it ended."""
        sender, seq = message.sender, message.seq
        if seq > self.newest_seq:
            self.newest_seq = seq
        if sender.id == self.me.agent_id:
            self.mine(message.id)
            if message.reply_to:
                self.replied(message.reply_to)
            return []
        at, last_post = message.ts / 1000, self._last_post
        if at > last_post.get(sender.id, 0.0):
            last_post[sender.id] = at
        parts = message.parts
        text_only = _text_only(parts)  # most messages: chatter, nothing to parse (a wake takes in tens of thousands)
        if text_only is not None:
            handoffs, statuses = [], []
            if not text_only and not message.mentions and self.room_kinds.get(message.room) != "dm":
                return []  # (a mention needs "mentions" or an "@": mentions_human's rule, its cheap half first)
        else:
            handoffs = [h for p in parts if p.get("kind") == Handoff.TAG and (h := Handoff.from_part(p)) is not None]
            statuses = [t for p in parts if p.get("kind") == TaskStatus.TAG and (t := TaskStatus.from_part(p)) is not None]
        kind, text, task = self._match(message, handoffs, statuses)
        left = self._task_moved(message, statuses) if statuses else []
        if kind is not None and message.id not in self._replied:
            self.items[message.id] = NeedItem(
                message.id, kind, message.room, message.seq, message.id, sender.id, sender.name, sender.role,
                text, message.ts / 1000, task, tuple(parts),
            )
            if kind is NeedKind.QUESTION and task:
                self._questions.setdefault(task, set()).add(message.id)
        return left

    def mine(self, message_id: str) -> None:
        """``message_id`` is a message I wrote (stored, or reported sent by the outbox): task
        parts about it that came first (a push can be stored before my own post) are matched again."""
        if message_id not in self._mine:
            self._mine.add(message_id)
            for early in self._unowned.pop(message_id, []):
                self.observe(early)

    def _match(
        self, message: StoredMessage, handoffs: list[Handoff], statuses: list[TaskStatus]
    ) -> tuple[NeedKind | None, str, str | None]:
        dm = self.room_kinds.get(message.room) == "dm"
        for handoff in handoffs:
            if self.me.is_named(handoff.to) if handoff.to is not None else dm:
                return NeedKind.HANDOFF, handoff.next + (f"\n\n{handoff.summary}" if handoff.summary else ""), None
        for task in statuses:
            moved = self._task_moved_at.get(task.task or "", 0) > message.seq  # (a message taken in twice)
            if task.status == "awaiting" and not moved and (task.task in self._mine or dm):
                return NeedKind.QUESTION, task.note or _text_of(message) or "(no question given)", task.task
        for task in statuses:
            if task.status in ("awaiting", "failed") and task.task and task.task not in self._mine:
                self._unowned.setdefault(task.task, []).append(message)
        for task in statuses:
            if task.status == "failed" and task.task in self._mine:
                return NeedKind.FAILED, task.note or task.result or _text_of(message) or "(no reason given)", task.task
        if message.seq > self.cursors.get(message.room, 0) and (
            dm or mentions_human(message.sender.id, message.parts, message.mentions or (), self.me.agent_id, self.me.name, self.me.role)
        ):
            return NeedKind.MENTION, _text_of(message), None
        return None, "", None

    def _task_moved(self, message: StoredMessage, statuses: list[TaskStatus]) -> list[str]:
        """A task part: a question on the same task leaves, and my tasks' states follow it."""
        left = []
        for task in statuses:
            if task.task is None:
                continue
            if task.status != "awaiting":
                self._task_moved_at[task.task] = max(self._task_moved_at.get(task.task, 0), message.seq)
                left += [key for key in self._questions.pop(task.task, ()) if key in self.items]
            known = self._tasks.get(task.task)
            if task.task in self._mine and (known is None or known.seq < message.seq):
                sender = message.sender
                self._tasks[task.task] = _Task(
                    task.status, sender.id, sender.name, sender.role, message.room, message.seq, message.id, message.ts / 1000
                )
        for key in left:
            self.items.pop(key, None)
        return left

    def replied(self, message_id: str) -> None:
        """I replied to ``message_id`` (stored, or sent from the outbox): its item leaves."""
        self._replied.add(message_id)
        item = self.items.get(message_id)
        if item is not None and item.kind is not NeedKind.JOIN:
            del self.items[message_id]

    def set_cursor(self, room: str, cursor: int) -> None:
        """The read cursor moved: the mentions it passed leave."""
        self.cursors[room] = max(self.cursors.get(room, 0), cursor)
        passed = [k for k, i in self.items.items() if i.kind is NeedKind.MENTION and i.room == room and i.seq <= cursor]
        for key in passed:
            del self.items[key]

    def forget_room(self, room: str) -> None:
        for key in [key for key, item in self.items.items() if item.room == room]:
            del self.items[key]

    def set_join_requests(self, room: str, requests: Sequence[JoinRequest]) -> None:
        """The room's pending requests as the hub listed them (replacing what was known)."""
        for key in [key for key, item in self._joins.items() if item.room == room]:
            del self._joins[key]
        for request in requests:
            key = f"join:{room}:{request.agent}"
            self._joins[key] = NeedItem(
                key, NeedKind.JOIN, room, 0, "", request.agent, request.name or request.agent, request.role,
                f"{request.name or request.agent} asks to join", request.requested_at / 1000,
            )

    def drop_join(self, key: str) -> None:
        self._joins.pop(key, None)

    # -- asking ------------------------------------------------------------------------------
    def silent_items(self, now: float) -> list[NeedItem]:
        found = []
        for task_id, task in self._tasks.items():
            quiet_since = self._last_post.get(task.agent_id, task.since)
            if task.status in TASK_RUNS and now - quiet_since > self.silent_after:
                found.append(
                    NeedItem(
                        f"silent:{task_id}", NeedKind.SILENT, task.room, task.seq, task.message_id, task.agent_id,
                        task.agent_name, task.agent_role,
                        f"{task.agent_name} has posted nothing for {(now - quiet_since) / 60:.0f} min", quiet_since, task_id,
                    )
                )
        return found

    def open_items(self, now: float) -> list[NeedItem]:
        """Every item open at ``now``, decisions not applied."""
        return [*self.items.values(), *self._joins.values(), *self.silent_items(now)]

    def poster_spoke(self, agent_id: str, seq: int, decisions: Iterable[Decision]) -> list[str]:
        """The keys of "until the agent posts again" snoozes that ``agent_id``'s message ``seq`` ends."""
        return [d.key for d in decisions if d.action == "until_speaks" and d.agent == agent_id and seq > d.after_seq]


def visible(items: Iterable[NeedItem], decisions: dict[str, Decision], now: float) -> list[NeedItem]:
    """The items the human has not dismissed or snoozed, oldest first."""
    shown = [item for item in items if not ((d := decisions.get(item.key)) is not None and d.hides(now))]
    return sorted(shown, key=lambda item: (item.since, item.seq, item.key))
