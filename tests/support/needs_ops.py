"""What the Needs you tests do with an agent: a request the human posted (so that a task on it
is the human's work, design.md §4b), and a task part on it."""

from __future__ import annotations

from typing import Any

from support.desktop_fixtures import post_as
from support.peer_ops import hub_history
from support.qt_loop import run_coroutine


def human_request(qtbot, qloop, bridge: Any, peer: Any, room: str, text: str) -> str:
    """The human posts ``text`` in ``room`` (through ``bridge``'s outbox); its id on the hub."""
    run_coroutine(qtbot, qloop, bridge.post(room, text))
    found: list[str] = []

    def sent() -> bool:
        found[:] = [m["id"] for m in run_coroutine(qtbot, qloop, hub_history(peer, room)) if m["parts"][0].get("text") == text]
        return bool(found)

    qtbot.waitUntil(sent, timeout=10_000)
    return found[0]


def task_on(qtbot, qloop, peer: Any, room: str, task: str, status: str, note: str | None = None) -> dict:
    part = {"kind": "com.parler.task", "status": status, "task": task, **({"note": note} if note else {})}
    return post_as(qtbot, qloop, peer, room, f"task {status}", parts=[{"kind": "text", "text": f"task {status}"}, part])
