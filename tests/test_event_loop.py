"""The window's event loop: qasync's, with asyncio's call_soon semantics at asyncio's cost."""

from __future__ import annotations

import asyncio
import contextvars
import socket

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


def turns_until(qapp, done) -> int:
    """How many passes of Qt's event loop until ``done()``."""
    for turn in range(1, 50):
        qapp.processEvents()
        if done():
            return turn
    raise AssertionError("never")


def test_a_ready_socket_is_read_in_the_turn_that_finds_it_ready(qtbot, qapp, qloop):  # noqa: F811
    reader, writer = socket.socketpair()
    with reader, writer:
        got: list[bytes] = []
        qloop.add_reader(reader.fileno(), lambda: got.append(reader.recv(100)))
        writer.send(b"push")
        assert turns_until(qapp, lambda: got) == 1  # qasync on its own: 2, the read waited for a timer
        writer.send(b"again")
        assert turns_until(qapp, lambda: len(got) == 2) == 1 and got == [b"push", b"again"]  # enabled again
        qloop.remove_reader(reader.fileno())


def test_a_socket_callback_may_remove_itself_and_its_errors_reach_the_loop(qtbot, qapp, qloop):  # noqa: F811
    errors: list[dict] = []
    qloop.set_exception_handler(lambda _loop, context: errors.append(context))
    reader, writer = socket.socketpair()
    with reader, writer:

        def read_once() -> None:
            reader.recv(100)
            qloop.remove_reader(reader.fileno())  # as a transport closing on end of file does
            raise RuntimeError("bad frame")

        qloop.add_reader(reader.fileno(), read_once)
        writer.send(b"x")
        turns_until(qapp, lambda: errors)
        for _ in range(5):
            qapp.processEvents()  # the notifier, released a turn later, is gone without harm
        assert isinstance(errors[0]["exception"], RuntimeError) and len(errors) == 1
        got: list[bytes] = []
        qloop.add_reader(reader.fileno(), lambda: got.append(reader.recv(100)))  # the fd is watched anew
        writer.send(b"y")
        turns_until(qapp, lambda: got)
        qloop.remove_reader(reader.fileno())
