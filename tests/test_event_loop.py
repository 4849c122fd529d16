"""The window's event loop: qasync's, with asyncio's call_soon semantics at asyncio's cost."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import socket
import threading
import weakref

import pytest
import qasync
from PySide6.QtWidgets import QStyleOptionViewItem, QWidget
from support.qt_loop import close_loop, qloop, run_coroutine  # noqa: F401 - fixture

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


def test_what_a_ready_socket_makes_ready_runs_in_the_same_turn(qtbot, qapp, qloop):  # noqa: F811
    """A frame read wakes the reader, which wakes the session: all in the turn that read it."""
    reader, writer = socket.socketpair()
    with reader, writer:
        got: list[str] = []

        def session_step(data: bytes) -> None:
            got.append(f"stored {data.decode()}")

        def reader_step(data: bytes) -> None:
            got.append(f"read {data.decode()}")
            qloop.call_soon(session_step, data)

        qloop.add_reader(reader.fileno(), lambda: qloop.call_soon(reader_step, reader.recv(100)))
        writer.send(b"push")
        assert turns_until(qapp, lambda: len(got) == 2) == 1
        assert got == ["read push", "stored push"]
        qloop.remove_reader(reader.fileno())


def test_callbacks_run_within_a_turn_leave_no_timer_behind(qtbot, qapp, qloop):  # noqa: F811
    """What a ready socket's callback makes ready runs before its turn ends: starting the loop's
    zero timer for it (a call into Qt on a push's way to the screen, and a wake-up later for an
    empty queue) would be for nothing. Made ready from a Qt slot, it still gets the timer."""
    reader, writer = socket.socketpair()
    with reader, writer:
        got: list[str] = []
        qloop.add_reader(reader.fileno(), lambda: qloop.call_soon(got.append, reader.recv(100).decode()))
        writer.send(b"push")
        assert turns_until(qapp, lambda: got == ["push"]) == 1
        assert not qloop._ready_timer.isActive()
        qloop.remove_reader(reader.fileno())
    qloop.call_soon(got.append, "from a slot")
    assert qloop._ready_timer.isActive()
    qtbot.waitUntil(lambda: got[-1] == "from a slot", timeout=5000)


def test_a_task_that_keeps_yielding_leaves_qt_its_turns(qtbot, qapp, qloop):  # noqa: F811
    """Callbacks made ready by callbacks run in the same turn only for a moment: a task yielding
    with ``sleep(0)`` lets Qt's timers (input, painting) in long before it is done."""
    from PySide6.QtCore import QTimer

    steps: list[int] = []
    fired_at: list[int] = []

    async def spin() -> None:
        for step in range(100_000):  # about a second of yielding
            steps.append(step)
            if step == 10:
                QTimer.singleShot(0, lambda: fired_at.append(len(steps)))
            await asyncio.sleep(0)

    reader, writer = socket.socketpair()
    with reader, writer:
        spinning: list[asyncio.Task] = []
        qloop.add_reader(reader.fileno(), lambda: (reader.recv(100), spinning.append(qloop.create_task(spin()))))
        writer.send(b"go")  # the spinning starts inside a socket's turn
        qtbot.waitUntil(lambda: bool(fired_at), timeout=10_000)
        qloop.remove_reader(reader.fileno())
    assert fired_at[0] < 50_000  # Qt's timer fired long before the task was done
    spinning[0].cancel()
    qtbot.waitUntil(spinning[0].done, timeout=5000)


def test_a_callback_that_runs_qt_s_loop_leaves_the_others_in_order(qtbot, qapp, qloop):  # noqa: F811
    ran: list[str] = []

    def first() -> None:
        ran.append("first")
        qloop.call_soon(ran.append, "made ready by first")
        qapp.processEvents()  # the queue is run inside: the rest must still run once, in order

    qloop.call_soon(first)
    qloop.call_soon(ran.append, "second")
    qloop.call_soon(ran.append, "third")
    qtbot.waitUntil(lambda: len(ran) == 4, timeout=5000)
    for _ in range(3):
        qapp.processEvents()
    assert ran == ["first", "second", "third", "made ready by first"]


def test_a_queue_of_slow_callbacks_leaves_qt_its_turns_between_them(qtbot, qapp, qloop):  # noqa: F811
    """However many callbacks are ready, one turn runs them only until its budget is spent."""
    import time

    from PySide6.QtCore import QTimer

    ran: list[int] = []
    fired_after: list[int] = []
    for n in range(40):
        qloop.call_soon(lambda n=n: (time.sleep(0.001), ran.append(n)))  # a millisecond of work each
    timer = QTimer(singleShot=True, interval=1)  # a timer (a zero single shot would be a posted call)
    timer.timeout.connect(lambda: fired_after.append(len(ran)))
    timer.start()
    qtbot.waitUntil(lambda: len(ran) == 40, timeout=10_000)
    assert fired_after and fired_after[0] < 10 and ran == list(range(40))


def test_closing_leaves_a_blocking_call_running_instead_of_waiting_for_it(qtbot, qapp, qloop, monkeypatch):  # noqa: F811
    """A host name lookup that a dead network holds for many seconds (a laptop just woken) does
    not hold the quitting app, and its home lock, until it gives up."""
    started, answered = threading.Event(), threading.Event()

    def unanswered_lookup(*_args: object, **_kwargs: object) -> list[object]:
        started.set()
        answered.wait(10)
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", unanswered_lookup)
    qloop.create_task(qloop.getaddrinfo("hub.example", 443))
    qtbot.waitUntil(started.is_set, timeout=5000)
    answer_later = threading.Timer(3, answered.set)  # a close() that waits for the lookup returns after this
    answer_later.start()
    try:
        close_loop(qapp, qloop)
        assert qloop.is_closed() and not answered.is_set()  # closed while the lookup still ran
    finally:
        answer_later.cancel()
        answered.set()


def test_closing_frees_the_qt_objects_left_in_reference_cycles(qtbot, qapp, qloop):  # noqa: F811
    """Closing the loop is the app's last step before Python exits; what a closed window left in
    reference cycles is freed then, not by the collection Python makes as it exits (which frees
    a row option's ``rect`` wrapper by passing a pointer into the option to ``free()``)."""

    class Row(QWidget):
        def __init__(self) -> None:
            super().__init__()
            self.itself = self  # a cycle, as a window's widgets make
            self.option = QStyleOptionViewItem()
            self.option.rect.width()  # a wrapper that points into the option

    gc.disable()  # only the loop's close may collect it
    try:
        row = Row()
        freed = weakref.ref(row)
        del row
        close_loop(qapp, qloop)
        assert freed() is None
    finally:
        gc.enable()
