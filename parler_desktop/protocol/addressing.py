"""Whether a message is addressed to the human: the one rule the badge, the notification rules
and the card actions share, so "for you" means the same thing everywhere.

A message is for me when it is not mine and it mentions my name or role (in ``mentions`` or
written as ``@name`` in a text part), or carries a handoff whose ``to`` names me or my role.
A handoff without ``to`` is for whoever picks it up, not for me in particular.
"""

from __future__ import annotations

from parler_desktop.protocol.parts import Handoff
from parler_desktop.protocol.values import StoredMessage


def my_handles(name: str, role: str | None) -> set[str]:
    """My name and role as they are compared: stripped, lower-case, never empty."""
    return {handle.strip().lower() for handle in (name, role or "") if handle.strip()}


def handoff_to_me(message: StoredMessage, name: str, role: str | None) -> Handoff | None:
    """The message's handoff when it names me (or my role) in ``to``; None otherwise."""
    for part in message.parts:
        handoff = Handoff.from_part(part)
        if handoff is not None and handoff.to is not None and handoff.is_addressed_to(name, role):
            return handoff
    return None


def mentions_me(message: StoredMessage, name: str, role: str | None) -> bool:
    """My name or role in ``mentions``, or ``@name`` / ``@role`` in a text part."""
    handles = my_handles(name, role)
    if any(mention.strip().lower() in handles for mention in message.mentions or ()):
        return True
    text = " ".join(p["text"] for p in message.parts if p.get("kind") == "text" and isinstance(p.get("text"), str)).lower()
    return any(f"@{handle}" in text for handle in handles)


def is_for_me(message: StoredMessage, my_id: str, name: str, role: str | None) -> bool:
    """Addressed to me (see the module docstring); never my own message."""
    if message.sender.id == my_id:
        return False
    return mentions_me(message, name, role) or handoff_to_me(message, name, role) is not None
