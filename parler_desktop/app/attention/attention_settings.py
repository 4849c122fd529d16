"""What the human told us about their attention: per-room levels, Do Not Disturb, the keep/drop
rules and the tray choices, in ``config/attention.json`` beside the settings.

Like the settings file, a bad file never stops the app: loading falls back to defaults for what
it cannot use and says so in a sentence, and the file is only replaced when the human saves.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import time
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
    levels: dict[str, Level] = field(default_factory=dict)  # room -> level; absent = RULES
    quiet_until: float = 0.0  # Do Not Disturb until this wall-clock time (time.time())
    paused: bool = False  # notifications paused from the tray until resumed
    rules: tuple[Rule, ...] = DEFAULT_RULES
    close_to_tray: bool = True
    tray_hint_shown: bool = False
    stuck_minutes: float = 10.0  # an agent "working" with no message this long seems stuck
    loop_messages: int = 20  # more than this many messages between two agents …
    loop_minutes: float = 5.0  # … within this many minutes, without a human, look like a loop

    def level(self, room: str) -> Level:
        return self.levels.get(room, Level.RULES)

    def quiet(self, now: float | None = None) -> bool:
        """Paused, or inside a Do Not Disturb period."""
        return self.paused or (time.time() if now is None else now) < self.quiet_until

    def to_json(self) -> dict[str, Any]:
        return {
            "levels": {room: level.value for room, level in sorted(self.levels.items())},
            "quiet_until": self.quiet_until,
            "paused": self.paused,
            "rules": [rule.to_json() for rule in self.rules],
            "close_to_tray": self.close_to_tray,
            "tray_hint_shown": self.tray_hint_shown,
            "stuck_minutes": self.stuck_minutes,
            "loop_messages": self.loop_messages,
            "loop_minutes": self.loop_minutes,
        }


@dataclass(frozen=True)
class LoadedAttention:
    settings: AttentionSettings
    problem: str | None = None


NUMBERS = ("quiet_until", "stuck_minutes", "loop_messages", "loop_minutes")
FLAGS = ("paused", "close_to_tray", "tray_hint_shown")


def _usable(name: str, value: Any) -> bool:
    """A flag is a boolean; a number is a number (a whole one for a count), above 0 but a time."""
    if name in FLAGS:
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, int if name == "loop_messages" else (int, float)):
        return False
    return name == "quiet_until" or value > 0


def load_attention(path: Path) -> LoadedAttention:
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
        values["levels"] = {str(room): Level(level) for room, level in dict(data.get("levels", {})).items()}
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


def with_level(settings: AttentionSettings, room: str, level: Level) -> AttentionSettings:
    levels = {name: value for name, value in settings.levels.items() if name != room}
    if level is not Level.RULES:
        levels[room] = level
    return dataclasses.replace(settings, levels=levels)
