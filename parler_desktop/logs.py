"""The app's log: a rotating file in the home's log folder, and no exception left unlogged.

INFO by default, DEBUG with ``--verbose``; warnings and errors also go to stderr. The file is
private (0600) like everything else in a home, although nothing secret is logged: websockets'
own DEBUG lines would print whole frames (a ``hello`` carries the join secret), so that logger
stays at INFO even with ``--verbose``.

A logged message is written escaped (``protocol/readable.escaped``): it may quote what a hub or a
peer sent, and a log read in a terminal must not be driven by it. Tracebacks keep their lines.

Unhandled exceptions are logged with their trace: those raised in a Qt slot (PySide6 hands them
to ``sys.excepthook``) and those in an asyncio callback or an unowned task (the loop's exception
handler). Supervised tasks log their own failures (``client/tasks.py``). The window shows each
logged trace once (``ui/error_report.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from parler_desktop.protocol.readable import escaped

LOG_FILE = "parler-desktop.log"
MAX_BYTES = 1_000_000
BACKUP_COUNT = 4  # five files of 1 MB at most
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
STDERR_FORMAT = "%(levelname)s %(name)s: %(message)s"
QUIET_LOGGERS = ("websockets",)  # DEBUG would log frame contents

log = logging.getLogger(__name__)


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


class EscapingFormatter(logging.Formatter):
    """Writes the message with its control characters escaped (the module docstring says why)."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escaped(record.message)
        return super().formatMessage(record)


class PrivateRotatingFileHandler(RotatingFileHandler):
    """Creates each log file 0600 from its first byte (rotation renames; the new file is fresh)."""

    def _open(self) -> Any:
        return open(self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors, opener=_private)  # noqa: SIM115


@contextlib.contextmanager
def logging_to(log_dir: Path, verbose: bool = False) -> Iterator[Path | None]:
    """Log to stderr and to ``log_dir/parler-desktop.log`` while inside; yields the file's path,
    or None (said on stderr) when the folder cannot be used: the app then runs on with stderr
    only. On leaving, the handlers are closed and the root logger is as it was."""
    root = logging.getLogger()
    previous = root.level, {name: logging.getLogger(name).level for name in QUIET_LOGGERS}
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    stderr = logging.StreamHandler()
    stderr.setLevel(logging.DEBUG if verbose else logging.WARNING)
    stderr.setFormatter(EscapingFormatter(STDERR_FORMAT))
    added: list[logging.Handler] = [stderr]
    root.addHandler(stderr)
    path: Path | None = None
    try:
        log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler = PrivateRotatingFileHandler(log_dir / LOG_FILE, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8")
    except OSError as error:
        log.warning("not writing a log file in %s: %s", log_dir, error.strerror or error)
    else:
        handler.setFormatter(EscapingFormatter(FORMAT))
        root.addHandler(handler)
        added.append(handler)
        path = Path(handler.baseFilename)
    try:
        yield path
    finally:
        for each in added:
            root.removeHandler(each)
            each.close()
        root.setLevel(previous[0])
        for name, level in previous[1].items():
            logging.getLogger(name).setLevel(level)


def log_unhandled_exceptions(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Route Qt-slot and asyncio exceptions into the log; returns a function that undoes it."""
    previous_hook = sys.excepthook
    previous_handler = loop.get_exception_handler()

    def excepthook(kind: type[BaseException], error: BaseException, trace: Any) -> None:
        log.error("unhandled exception: %s", error, exc_info=(kind, error, trace))

    def loop_handler(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        message = context.get("message", "unhandled exception in the event loop")
        log.error("%s: %s", message, error if error is not None else context, exc_info=error)

    sys.excepthook = excepthook
    loop.set_exception_handler(loop_handler)

    def undo() -> None:
        sys.excepthook = previous_hook
        loop.set_exception_handler(previous_handler)

    return undo
