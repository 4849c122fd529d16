"""Run a permission check as an ordinary user, even when the tests run as root (as CI does).

Root reads and writes any file whatever its mode, so a test of "this file cannot be read" proves
nothing as root. ``as_unprivileged_user(check)`` calls ``check(folder)`` with a fresh folder the
caller may write: directly for an ordinary user; as root, in a forked child that first drops to
the ``nobody`` user, with the child's traceback raised here if the check failed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

FALLBACK_UID = 65534  # nobody on most systems


def _nobody() -> tuple[int, int]:
    import pwd  # POSIX only: the callers are skipped elsewhere

    try:
        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return FALLBACK_UID, FALLBACK_UID


def as_unprivileged_user(check: Callable[[Path], None]) -> None:
    folder = Path(tempfile.mkdtemp(prefix="parler-unprivileged-"))
    try:
        if os.geteuid() != 0:
            check(folder)
            return
        uid, gid = _nobody()
        os.chown(folder, uid, gid)
        _run_in_child(check, folder, uid, gid)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_in_child(check: Callable[[Path], None], folder: Path, uid: int, gid: int) -> None:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root for good, run the check, report, and never return
        status = 1
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            check(folder)
            status = 0
        except BaseException:
            os.write(write_end, traceback.format_exc().encode())
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as report:
        failure = report.read().decode()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise AssertionError(f"the check failed as user {uid}:\n{failure}")
