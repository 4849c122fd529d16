"""The Parler extension parts of protocol.md §8.2–§8.7: build them and read them back.

``from_part`` returns None for a part of another kind or one whose members are not of the
documented shape, so a hostile or newer part can never break rendering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from parler_desktop.protocol.codec import I64, U64, WireError, WireShape
from parler_desktop.protocol.frames import TaskState
from parler_desktop.protocol.trim import trim
from parler_desktop.protocol.values import Part

SIG_KIND = "com.parler.sig"
OBSERVATION_KIND = "com.parler.observation"

X = TypeVar("X", bound="ExtensionPart")


class ExtensionPart(WireShape):
    TAG_KEY: ClassVar[str] = "kind"

    def to_part(self) -> Part:
        return self.to_wire()

    @classmethod
    def from_part(cls: type[X], part: Any) -> X | None:
        if not isinstance(part, dict) or part.get("kind") != cls.TAG:
            return None
        try:
            return cls.from_wire(part)
        except WireError:
            return None


@dataclass(frozen=True)
class Handoff(ExtensionPart):
    TAG = "com.parler.handoff"
    next: str
    summary: str | None = None
    to: str | None = None
    bundle: str | None = None

    def is_addressed_to(self, name: str, role: str | None) -> bool:
        """Addressed to me when ``to`` is absent or equals my name or role, ignoring ASCII case."""
        if self.to is None:
            return True
        wanted = trim(self.to).lower()
        return wanted == trim(name).lower() or (role is not None and wanted == trim(role).lower())


@dataclass(frozen=True)
class TaskStatus(ExtensionPart):
    TAG = "com.parler.task"
    status: TaskState
    task: str | None = None
    note: str | None = None
    result: str | None = None
    tokens: U64 | None = None
    elapsed_ms: U64 | None = None

    # Symbols every desktop font draws, as in part_text.py.
    MARKERS: ClassVar[dict[str, str]] = {
        "accepted": "☐", "working": "⚙", "awaiting": "⚑", "done": "☑", "failed": "☒", "cancelled": "⊘",
    }


@dataclass(frozen=True)
class FileRef(ExtensionPart):
    TAG = "com.parler.file"
    blob: str
    name: str
    size: U64
    media_type: str | None = None
    summary: str | None = None

    @property
    def safe_name(self) -> str:
        """The basename only: a hostile name can never point outside the chosen folder."""
        base = self.name.replace("\\", "/").rsplit("/", 1)[-1].strip()
        return base if base not in ("", ".", "..") else "download"


@dataclass(frozen=True)
class BundleRef(ExtensionPart):
    TAG = "com.parler.bundle"
    blob: str
    vcs: str
    size: U64
    tip: str | None = None
    base: str | None = None
    summary: str | None = None
    media_type: str | None = None


@dataclass(frozen=True)
class Dispatch(ExtensionPart):
    TAG = "com.parler.dispatch"
    role: str


@dataclass(frozen=True)
class Signature(ExtensionPart):
    """The author signature part (§8.1); ``target`` stays a raw object for byte-exact checks."""

    TAG = SIG_KIND
    sig: str
    ts: I64
    uid: str
    target: dict
    alg: str = "ed25519"
    v: I64 = 1
