"""What the human told us about their attention: per-room levels, Do Not Disturb, the keep/drop
rules and the tray choices, in ``config/attention.json`` beside the settings.

A room's level belongs to the room of one hub (a room of the same name on another hub is
another room): the file keeps them under ``room_levels``, hub (as the settings name it, ``""``
for the embedded hub) -> room -> level. A file from before several hubs keeps them under
``levels``, room -> level, set while the window held one hub: they are read as that hub's, the
first hub of the settings (which the settings made of that one hub), and written back in the new
form on the next save. Not every hub's: that would mute every same-named room of a hub added
since, the mix-up the new form ends.

Like the settings file, a bad file never stops the app: loading falls back to defaults for what
it cannot use and says so in a sentence, and the file is only replaced when the human saves.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parler_desktop.app.attention.attention_rules import DEFAULT_RULES, Rule, RuleError, parse_rules
from parler_desktop.atomic_file import write_atomically


class Level(enum.Enum):
    """How much of one room may notify."""

    RULES = "rules"  # the keep/drop rules decide (the default)
    ALL = "all"  # every message from others
    FOR_ME = "for_me"  # mentions and handoffs addressed to me
    NONE = "none"  # muted


LEVEL_LABELS = {
    Level.RULES: "Follow the notification rules",
    Level.ALL: "All messages",
    Level.FOR_ME: "Mentions and handoffs to me",
    Level.NONE: "Nothing (mute)",
}


@dataclass(frozen=True)
class AttentionSettings:
    levels: dict[tuple[str, str], Level] = field(default_factory=dict)  # (hub, room) -> level; absent = RULES
    quiet_until: float = 0.0  # Do Not Disturb until this wall-clock time (time.time())
    paused: bool = False  # notifications paused from the tray until resumed
    rules: tuple[Rule, ...] = DEFAULT_RULES
    close_to_tray: bool = True
    tray_hint_shown: bool = False
    silent_minutes: float = 15.0  # an agent working on the human's request, silent this long, needs them (design.md §4b)
    loop_messages: int = 20  # more than this many messages between two agents …
    loop_minutes: float = 5.0  # … within this many minutes, without a human, look like a loop

    def level(self, hub: str, room: str) -> Level:
        """The level of ``room`` of ``hub`` (as the settings name it)."""
        return self.levels.get((hub, room), Level.RULES)

    def quiet(self, now: float | None = None) -> bool:
        """Paused, or inside a Do Not Disturb period."""
        return self.paused or (time.time() if now is None else now) < self.quiet_until

    def to_json(self) -> dict[str, Any]:
        return {
            "room_levels": levels_json(self.levels),
            "quiet_until": self.quiet_until,
            "paused": self.paused,
            "rules": [rule.to_json() for rule in self.rules],
            "close_to_tray": self.close_to_tray,
            "tray_hint_shown": self.tray_hint_shown,
            "silent_minutes": self.silent_minutes,
            "loop_messages": self.loop_messages,
            "loop_minutes": self.loop_minutes,
        }


@dataclass(frozen=True)
class LoadedAttention:
    settings: AttentionSettings
    problem: str | None = None


def levels_json(levels: dict[tuple[str, str], Level]) -> dict[str, dict[str, str]]:
    """hub -> room -> level, sorted: the file's form."""
    by_hub: dict[str, dict[str, str]] = {}
    for (hub, room), level in sorted(levels.items()):
        by_hub.setdefault(hub, {})[room] = level.value
    return by_hub


def levels_from_json(data: dict[str, Any], first_hub: Callable[[], str]) -> dict[tuple[str, str], Level]:
    """The levels of the file's ``room_levels``, and those of a file from before several hubs
    (``levels``) as ``first_hub()``'s rooms' (asked only when there are some); ValueError or
    TypeError for anything else."""
    levels: dict[tuple[str, str], Level] = {}
    legacy = dict(data.get("levels", {}))
    if legacy:
        hub = first_hub()
        levels.update(((hub, str(room)), Level(level)) for room, level in legacy.items())
    for hub, rooms in dict(data.get("room_levels", {})).items():
        if not isinstance(rooms, dict):
            raise TypeError(f"the rooms of {hub!r} are not an object")
        levels.update(((str(hub), str(room)), Level(level)) for room, level in rooms.items())
    return levels


NUMBERS = ("quiet_until", "silent_minutes", "loop_messages", "loop_minutes")  # (an older file's "stuck_minutes" is ignored: Needs you's silence replaced it)
FLAGS = ("paused", "close_to_tray", "tray_hint_shown")


def _usable(name: str, value: Any) -> bool:
    """A flag is a boolean; a number is a number (a whole one for a count), above 0 but a time."""
    if name in FLAGS:
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, int if name == "loop_messages" else (int, float)):
        return False
    return name == "quiet_until" or value > 0


def load_attention(path: Path, first_hub: Callable[[], str] = lambda: "") -> LoadedAttention:
    """The settings in ``path``; ``first_hub()`` names the hub a file from before several hubs
    set its room levels on (see the module docstring)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return LoadedAttention(AttentionSettings())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return LoadedAttention(AttentionSettings(), f"Could not use {path} ({error}); notifications use the defaults.")
    if not isinstance(data, dict):
        return LoadedAttention(
            AttentionSettings(), f"{path} does not hold a JSON object; notifications use the defaults."
        )
    problems: list[str] = []
    values: dict[str, Any] = {}
    try:
        values["levels"] = levels_from_json(data, first_hub)
    except (ValueError, TypeError):
        problems.append("room levels")
    try:
        values["rules"] = parse_rules(data["rules"]) if "rules" in data else DEFAULT_RULES
    except RuleError as error:
        problems.append(f"rules ({error})")
    for name in NUMBERS + FLAGS:
        if name in data:
            if _usable(name, data[name]):
                values[name] = data[name]
            else:
                problems.append(name)
    settings = AttentionSettings(**values)
    problem = f"{path}: ignored invalid {'; '.join(problems)}; using defaults for them." if problems else None
    return LoadedAttention(settings, problem)


def save_attention(path: Path, settings: AttentionSettings) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomically(path, (json.dumps(settings.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def with_level(settings: AttentionSettings, hub: str, room: str, level: Level) -> AttentionSettings:
    """``settings`` with ``room`` of ``hub`` at ``level`` (the default, RULES, is not kept)."""
    levels = {key: value for key, value in settings.levels.items() if key != (hub, room)}
    if level is not Level.RULES:
        levels[(hub, room)] = level
    return dataclasses.replace(settings, levels=levels)
