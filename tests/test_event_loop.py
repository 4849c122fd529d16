"""The window's event loop: qasync's, with asyncio's call_soon semantics at asyncio's cost."""

from __future__ import annotations

import asyncio
import contextvars

import pytest
import qasync
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture

pytestmark = pytest.mark.timeout(30)

WHO = contextvars.ContextVar("who", default="nobody")


def test_callbacks_run_in_order_on_a_later_turn_and_a_cancelled_one_never(qtbot, qloop, monkeypatch):  # noqa: F811
    ran: list[str] = []
    monkeypatch.setattr(qasync.QEventLoop, "call_later", None)  # qasync's checked path is not taken
    qloop.call_soon(ran.append, "first")
    cancelled = qloop.call_soon(ran.append, "cancelled")
    qloop.call_soon(lambda: (ran.append("second"), qloop.call_soon(ran.append, "next turn")))
    cancelled.cancel()
    context = contextvars.copy_context()
    context.run(WHO.set, "the caller")
    qloop.call_soon(lambda: ran.append(WHO.get()), context=context)
    assert ran == []  # not now: on the loop's next turn
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=5000)
    assert ran == ["first", "second", "the caller", "next turn"]


def test_tasks_and_futures_wake_through_it(qtbot, qloop):  # noqa: F811
    async def ping_pong() -> int:
        ready = asyncio.Event()
        qloop.call_soon(ready.set)
        await ready.wait()
        for _ in range(100):
            await asyncio.sleep(0)
        return 7

    assert run_coroutine(qtbot, qloop, ping_pong()) == 7
