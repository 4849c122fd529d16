"""Since you last looked: what happened on a hub while the human was away, in a few lines.

``DigestTally`` counts the messages stored since it was last reset (plain values): handoffs and
questions that arrived, tasks finished and failed, files and bundles shared, the busiest rooms.
Each line names the message it opens (the first of its kind; a room's newest).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from parler_desktop.protocol.parts import BundleRef, FileRef, Handoff, TaskStatus
from parler_desktop.protocol.values import StoredMessage

BUSIEST = 3


@dataclass(frozen=True)
class DigestLine:
    text: str
    hub: str  # as the settings name it
    room: str
    seq: int


CATEGORIES = (  # (key, one, many)
    ("handoff", "handoff arrived", "handoffs arrived"),
    ("question", "question arrived", "questions arrived"),
    ("done", "task finished", "tasks finished"),
    ("failed", "task failed", "tasks failed"),
    ("file", "file or bundle shared", "files and bundles shared"),
)


def _category(part: dict) -> str | None:
    kind = part.get("kind")
    if kind == Handoff.TAG:
        return "handoff"
    if kind in (FileRef.TAG, BundleRef.TAG):
        return "file"
    if kind == TaskStatus.TAG:
        task = TaskStatus.from_part(part)
        status = None if task is None else task.status
        return {"awaiting": "question", "done": "done", "failed": "failed"}.get(status or "")
    return None


@dataclass
class DigestTally:
    my_id: str
    counts: Counter[str] = field(default_factory=Counter)
    first: dict[str, tuple[str, int]] = field(default_factory=dict)  # category -> (room, seq)
    rooms: Counter[str] = field(default_factory=Counter)
    newest: dict[str, int] = field(default_factory=dict)  # room -> newest seq

    def observe(self, messages: Iterable[StoredMessage]) -> None:
        """Count ``messages`` (a stored batch: a wake stores tens of thousands, and a chat line,
        most of them, has no category to look for)."""
        rooms, newest = self.rooms, self.newest
        for message in messages:
            if message.sender.id == self.my_id:
                continue
            room, seq, parts = message.room, message.seq, message.parts
            rooms[room] += 1
            if seq > newest.get(room, 0):
                newest[room] = seq
            if len(parts) == 1 and parts[0].get("kind") == "text":
                continue
            for category in {c for c in map(_category, parts) if c is not None}:
                self.counts[category] += 1
                self.first.setdefault(category, (room, seq))

    def reset(self) -> None:
        self.counts.clear()
        self.first.clear()
        self.rooms.clear()
        self.newest.clear()

    def lines(self, hub: str, label: str) -> list[DigestLine]:
        found = []
        for key, one, many in CATEGORIES:
            count = self.counts[key]
            if count:
                room, seq = self.first[key]
                found.append(DigestLine(f"{label}: {count} {one if count == 1 else many}", hub, room, seq))
        for room, count in self.rooms.most_common(BUSIEST):
            found.append(DigestLine(f"{label}: {room} — {count} new", hub, room, self.newest[room]))
        return found
