"""What became of each piece of work dispatched to a role in a service room (protocol.md §7.15,
§8.6), read from the room's log alone.

The hub tells only the worker holding a lease about it (``queue`` answers workers of the role,
``claimed`` the claimant), so a supervisor reads the log: the ``com.parler.dispatch`` message is
queued work; a worker that claims it posts ``com.parler.task`` receipts for it (``task`` or
``replyTo`` naming the dispatch, as ``parler supervise`` does): ``accepted`` = claimed by that
worker, ``working``, then ``done``/``failed``/``cancelled``. A lease ran out when another worker
accepts the same work, or when its holder is no longer ``working`` and gave no sign on it for
longer than a lease lasts by default (``lease.py``: when it ends, as the window reckons it): the
work is then back in the queue. Before the hub has it, the
human's dispatch is in the outbox: ``sending``, or ``unsent`` when the hub refused it. Plain
values, no Qt.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from parler_desktop.app.dispatch.lease import lease_end, ran_out
from parler_desktop.protocol.parts import Dispatch, TaskStatus
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store.outbox_item import OutboxItem, OutboxStatus

FINAL = ("done", "failed", "cancelled")
HELD = ("claimed", "working", "awaiting")  # a worker holds a lease on it


@dataclass(frozen=True)
class Step:
    """One thing that happened to the work, as the room showed it."""

    ts: int
    state: str  # queued, claimed, working, awaiting, done, failed, cancelled, expired
    who: str = ""  # the worker's name (from the hub's ``from``)
    note: str = ""


@dataclass(frozen=True)
class DispatchedWork:
    message_id: str
    role: str
    text: str
    posted_ts: int
    state: str = "queued"  # or sending/unsent (in the outbox), claimed, working, awaiting, a final one, expired
    holder_id: str = ""
    holder: str = ""
    last_ts: int = 0  # the newest step's time
    renewed_ts: int = 0  # the holder's newest "working" presence seen (it renews the lease as it works)
    steps: tuple[Step, ...] = field(default_factory=tuple)

    @property
    def is_final(self) -> bool:
        return self.state in FINAL

    @property
    def lease_end_ms(self) -> int | None:
        """When the holder's lease ends unless renewed (None: nobody holds one)."""
        return lease_end(max(self.last_ts, self.renewed_ts)) if self.state in HELD else None


def _text_of(parts: Iterable[dict]) -> str:
    return " ".join(p["text"] for p in parts if p.get("kind") == "text" and isinstance(p.get("text"), str))


def _dispatch_in(parts: Iterable[dict]) -> Dispatch | None:
    return next((d for d in map(Dispatch.from_part, parts) if d is not None), None)


class DispatchLedger:
    """Dispatched work of one room, oldest first, updated message by message (each message is
    read once: a receipt seen before its dispatch waits for it)."""

    def __init__(self) -> None:
        self._work: dict[str, DispatchedWork] = {}
        self._early: dict[str, list[StoredMessage]] = {}  # receipts whose dispatch is not read yet
        self._seen: set[str] = set()  # ids of the dispatches and receipts read (each read once)
        self._outbox: dict[str, tuple[DispatchedWork, str | None]] = {}  # client id -> (work, message id once sent)

    @property
    def work(self) -> list[DispatchedWork]:
        """Stored work oldest first, then the human's dispatches the hub has not answered for."""
        return [*self._work.values(), *(work for work, _ in self._outbox.values())]

    def posted(self, item: OutboxItem) -> bool:
        """Follow the human's dispatch ``item`` in the outbox; True when the list changed. A sent
        one stays until its stored message is read (``add``), so its row never blinks out."""
        dispatch = _dispatch_in(item.parts)
        if dispatch is None:
            return False
        if item.status is OutboxStatus.DISCARDED or item.message_id in self._work:
            return self._outbox.pop(item.client_id, None) is not None
        state = {OutboxStatus.PENDING: "sending", OutboxStatus.FAILED: "unsent"}.get(item.status, "queued")
        ts = int(item.created_at * 1000)
        work = DispatchedWork(item.client_id, dispatch.role, _text_of(item.parts), ts, state=state, last_ts=ts)
        self._outbox[item.client_id] = (work, item.message_id)
        return True

    def add(self, messages: Iterable[StoredMessage]) -> set[str]:
        """Read ``messages`` (any order, repeats ignored); the ids of the work they changed."""
        changed: set[str] = set()
        for message in sorted(messages, key=lambda m: m.seq):
            if message.id in self._seen:
                continue
            dispatch = _dispatch_in(message.parts)
            statuses = [] if dispatch is not None else list(filter(None, map(TaskStatus.from_part, message.parts)))
            if dispatch is None and not statuses:
                continue  # the room's talk changes no work: remembered by nothing (issue 42)
            self._seen.add(message.id)
            if dispatch is not None:
                self._work[message.id] = DispatchedWork(
                    message.id, dispatch.role, _text_of(message.parts), message.ts, last_ts=message.ts,
                    steps=(Step(message.ts, "queued", message.sender.name),),
                )
                changed.add(message.id)
                for client_id, (_, sent_as) in list(self._outbox.items()):
                    if sent_as == message.id:
                        del self._outbox[client_id]
                for early in self._early.pop(message.id, []):
                    self._receipt(early, message.id, changed)
                continue
            for status in statuses:
                task = status.task or message.reply_to
                if task is None:
                    continue
                if task in self._work:
                    self._receipt(message, task, changed)
                else:
                    self._early.setdefault(task, []).append(message)
        return changed

    def _receipt(self, message: StoredMessage, task: str, changed: set[str]) -> None:
        work = self._work[task]
        status = next(s for s in map(TaskStatus.from_part, message.parts) if s is not None)
        if work.is_final:
            return  # a late worker's receipt: the hub closed the claim with the first final one
        who, steps = message.sender.name, list(work.steps)
        state = "claimed" if status.status == "accepted" else status.status
        if work.state != "expired" and work.holder_id not in ("", message.sender.id) and status.status == "accepted":
            steps.append(Step(message.ts, "expired", work.holder, "the lease ran out; back in the queue"))
        steps.append(Step(message.ts, state, who, status.note or ""))
        renewed = work.renewed_ts if work.holder_id == message.sender.id else 0
        self._work[task] = replace(
            work, state=state, holder_id=message.sender.id, holder=who, last_ts=message.ts, renewed_ts=renewed, steps=tuple(steps)
        )
        changed.add(task)

    def lapse(self, now_ms: int, working: Mapping[str, int]) -> set[str]:
        """Take in who is ``working`` now (agent id -> its presence's time: a renewal of its lease)
        and mark work back in the queue whose lease ran out (``lease.ran_out``); the ids it changed."""
        changed: set[str] = set()
        for work in list(self._work.values()):
            if work.state not in HELD:
                continue
            renewed = working.get(work.holder_id, 0)
            if renewed > work.renewed_ts:
                work = self._work[work.message_id] = replace(work, renewed_ts=renewed)
                changed.add(work.message_id)
            end = work.lease_end_ms
            assert end is not None
            if ran_out(end, now_ms, work.holder_id in working):
                step = Step(end, "expired", work.holder, "the lease ran out; back in the queue")
                self._work[work.message_id] = replace(work, state="expired", steps=(*work.steps, step))
                changed.add(work.message_id)
        return changed
