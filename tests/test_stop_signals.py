"""SIGINT and SIGTERM stop a command on every OS. asyncio's loop.add_signal_handler is Unix-only
(NotImplementedError on Windows' loops: asyncio's "Platform Support"), so ``send``, ``listen``,
``join``, ``hub`` and ``demo --no-window`` raised it at their start there. Checked here on a loop
that refuses it as Windows' do."""

from __future__ import annotations

import asyncio
import signal

from parler_desktop.stop_signals import calling_on_signals


class WindowsLikeLoop(asyncio.SelectorEventLoop):
    def add_signal_handler(self, sig, callback, *args):  # noqa: ANN001, ANN002 - asyncio's signature
        raise NotImplementedError  # as asyncio's ProactorEventLoop and SelectorEventLoop on Windows

    def remove_signal_handler(self, sig):  # noqa: ANN001
        raise NotImplementedError


async def stopped_by(signum: int) -> bool:
    stop = asyncio.Event()
    with calling_on_signals(stop.set):
        asyncio.get_running_loop().call_soon(signal.raise_signal, signum)
        await asyncio.wait_for(stop.wait(), 5)
    return stop.is_set()


def run_on(loop: asyncio.AbstractEventLoop, signum: int) -> bool:
    try:
        return loop.run_until_complete(stopped_by(signum))
    finally:
        loop.close()


def test_ctrl_c_stops_a_command_where_the_loop_has_no_signal_handlers():
    before = signal.getsignal(signal.SIGINT)
    assert run_on(WindowsLikeLoop(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before  # Python's own handler is back


def test_sigterm_and_sigint_stop_a_command_on_this_os_s_loop():
    for signum in (signal.SIGINT, signal.SIGTERM):
        assert run_on(asyncio.SelectorEventLoop(), signum)
