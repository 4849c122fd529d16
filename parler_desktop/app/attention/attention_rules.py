"""Keep/drop rules for notifications, after AgentParley's model: an ordered list of
``{"action": "keep" | "drop", "when": {condition: value, ...}}``; the first rule whose every
condition holds decides, and a message no rule matches is dropped.

Conditions (strings compare without case; ``*`` and ``?`` are wildcards; a list means any of):
``room``, ``room_kind`` (channel/dm/service), ``author``, ``author_role``, ``part_kind`` (text,
handoff, task, file, bundle, dispatch or a full extension kind; ``loop`` for the app's own
warning about agents, see ``agent_activity``), ``task_state`` (accepted,
working, awaiting, done, failed, cancelled), ``text_prefix``, ``text_contains``, and the flags
``mentions_me`` (``protocol/mentions.py``: the rule behind the @ badge, which counts handoffs
addressed to me too) and ``handoff_to_me`` (a handoff naming me or my role), true or false.
Rules come from a settings file the human edits, so parsing reports the first problem as a
sentence naming the rule and the condition.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parler_desktop.protocol.mentions import mentions_human
from parler_desktop.protocol.parts import Handoff, TaskStatus
from parler_desktop.protocol.values import StoredMessage

ACTIONS = ("keep", "drop")
TASK_STATES = tuple(TaskStatus.MARKERS)
SHORT_KINDS = {
    "handoff": Handoff.TAG,
    "task": TaskStatus.TAG,
    "file": "com.parler.file",
    "bundle": "com.parler.bundle",
    "dispatch": "com.parler.dispatch",
}
PATTERN_CONDITIONS = ("room", "room_kind", "author", "author_role", "part_kind", "task_state")
TEXT_CONDITIONS = ("text_prefix", "text_contains")
FLAG_CONDITIONS = ("mentions_me", "handoff_to_me")
CONDITIONS = PATTERN_CONDITIONS + TEXT_CONDITIONS + FLAG_CONDITIONS


class RuleError(ValueError):
    """A rule list that cannot be used; the message says which rule and what to change."""


@dataclass(frozen=True)
class MessageFacts:
    """What the conditions look at, read once from a message."""

    room: str
    room_kind: str
    author: str
    author_role: str
    part_kinds: frozenset[str]
    task_states: frozenset[str]
    text: str
    mentions_me: bool
    handoff_to_me: bool

    @classmethod
    def of(
        cls, message: StoredMessage, room_kind: str, my_id: str, my_name: str, my_role: str | None
    ) -> "MessageFacts":
        kinds = {str(part.get("kind", "")) for part in message.parts}
        kinds |= {short for short, kind in SHORT_KINDS.items() if kind in kinds}
        states = {task.status for task in map(TaskStatus.from_part, message.parts) if task is not None}
        text = "\n".join(p["text"] for p in message.parts if p.get("kind") == "text" and isinstance(p.get("text"), str))
        return cls(
            room=message.room,
            room_kind=room_kind,
            author=message.sender.name,
            author_role=message.sender.role or "",
            part_kinds=frozenset(kinds),
            task_states=frozenset(states),
            text=text,
            mentions_me=mentions_human(
                message.sender.id, message.parts, message.mentions or (), my_id, my_name, my_role
            ),
            handoff_to_me=any(
                handoff is not None and handoff.to is not None and handoff.is_addressed_to(my_name, my_role)
                for handoff in map(Handoff.from_part, message.parts)
            ),
        )


@dataclass(frozen=True)
class Rule:
    action: str  # "keep" | "drop"
    when: tuple[tuple[str, Any], ...]  # (condition, value) pairs; values of patterns are tuples

    def matches(self, facts: MessageFacts) -> bool:
        return all(_holds(name, value, facts) for name, value in self.when)

    def to_json(self) -> dict[str, Any]:
        when = {
            name: (list(value) if len(value) > 1 else value[0]) if isinstance(value, tuple) else value
            for name, value in self.when
        }
        return {"action": self.action, "when": when}


def _holds(name: str, value: Any, facts: MessageFacts) -> bool:
    if name in FLAG_CONDITIONS:
        return getattr(facts, name) is value
    if name == "text_prefix":
        return any(facts.text.lower().lstrip().startswith(prefix) for prefix in value)
    if name == "text_contains":
        return any(needle in facts.text.lower() for needle in value)
    candidates = {
        "room": (facts.room,),
        "room_kind": (facts.room_kind,),
        "author": (facts.author,),
        "author_role": (facts.author_role,),
        "part_kind": facts.part_kinds,
        "task_state": facts.task_states,
    }[name]
    return any(fnmatch.fnmatchcase(candidate.lower(), pattern) for candidate in candidates for pattern in value)


def decide(rules: Sequence[Rule], facts: MessageFacts) -> bool:
    """True to keep (notify): the first matching rule's action; no match drops."""
    return next((rule.action == "keep" for rule in rules if rule.matches(facts)), False)


def parse_rules(data: Any) -> tuple[Rule, ...]:
    """Rules from their JSON form; raises ``RuleError`` naming the first bad rule."""
    if not isinstance(data, list):
        raise RuleError('The rules must be a list of {"action": ..., "when": {...}} objects.')
    return tuple(_parse_rule(number, item) for number, item in enumerate(data, start=1))


def _parse_rule(number: int, item: Any) -> Rule:
    where = f"Rule {number}"
    if not isinstance(item, Mapping):
        raise RuleError(f'{where} is not an object like {{"action": "keep", "when": {{...}}}}.')
    unknown = set(item) - {"action", "when"}
    if unknown:
        raise RuleError(f'{where}: unknown member {sorted(unknown)[0]!r} (a rule has "action" and "when").')
    action = item.get("action")
    if action not in ACTIONS:
        raise RuleError(f'{where}: "action" must be "keep" or "drop", not {action!r}.')
    when = item.get("when", {})
    if not isinstance(when, Mapping):
        raise RuleError(f'{where}: "when" must be an object of conditions.')
    return Rule(action, tuple(_parse_condition(where, name, value) for name, value in when.items()))


def _parse_condition(where: str, name: str, value: Any) -> tuple[str, Any]:
    if name not in CONDITIONS:
        raise RuleError(f"{where}: unknown condition {name!r}; known: {', '.join(CONDITIONS)}.")
    if name in FLAG_CONDITIONS:
        if not isinstance(value, bool):
            raise RuleError(f"{where}: {name} must be true or false, not {value!r}.")
        return name, value
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        raise RuleError(f"{where}: {name} must be a non-empty text or a list of texts.")
    lowered = tuple(v.strip().lower() for v in values)
    if name == "task_state":
        bad = [v for v in lowered if not any(fnmatch.fnmatchcase(state, v) for state in TASK_STATES)]
        if bad:
            raise RuleError(f"{where}: task_state {bad[0]!r} is not one of {', '.join(TASK_STATES)}.")
    return name, lowered


DEFAULT_RULES: tuple[Rule, ...] = parse_rules(
    [
        {"action": "keep", "when": {"mentions_me": True}},
        {"action": "keep", "when": {"handoff_to_me": True}},
        {"action": "keep", "when": {"task_state": ["failed", "awaiting"]}},
        {"action": "keep", "when": {"room_kind": "dm"}},
        {"action": "keep", "when": {"part_kind": "loop"}},
        {"action": "drop", "when": {}},
    ]
)
