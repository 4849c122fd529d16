"""A backstop for a test that pytest-timeout cannot stop: print every thread's stack, then exit.

pytest-timeout (``timeout`` in pyproject.toml) fails a test from a SIGALRM handler, which Python
runs only between bytecodes of the main thread, and only once. A test stuck inside a C call that
never returns to Python (a Qt ``QThread.wait()`` on a thread that never ends, say), or one whose
timeout exception a Qt slot or an asyncio callback swallowed, is never stopped: the run hangs
until CI kills it, with nothing to show where. faulthandler's watchdog is a C thread: some time
after the test's own timeout it writes all threads' stacks to the terminal and exits the run
with an error.
"""

from __future__ import annotations

import faulthandler
import os
import sys

import pytest
from pytest_timeout import Settings

GRACE_SECS = 30  # past the test's own timeout, which gets the first chance to end it

_stderr_key = pytest.StashKey[int]()  # the terminal's stderr, for the stacks


def pytest_configure(config: pytest.Config) -> None:
    # A copy of the terminal's stderr, made while pytest's capture is suspended: during a test,
    # fd 2 goes to a capture file that an exiting process never prints.
    config.stash[_stderr_key] = os.dup(sys.stderr.fileno())


def pytest_unconfigure(config: pytest.Config) -> None:
    os.close(config.stash[_stderr_key])


def pytest_timeout_set_timer(item: pytest.Item, settings: Settings) -> None:
    """Armed with the timeout pytest-timeout settled on (its mark, ``--timeout``, the ini), just
    before pytest-timeout sets its own timer (returning nothing lets it)."""
    faulthandler.dump_traceback_later(settings.timeout + GRACE_SECS, exit=True, file=item.config.stash[_stderr_key])


def pytest_timeout_cancel_timer(item: pytest.Item) -> None:
    faulthandler.cancel_dump_traceback_later()
