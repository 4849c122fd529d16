"""Run ``python -m parler_desktop …`` as a real subprocess from an async test."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Completed:
    status: int
    stdout: str
    stderr: str


def command(home: Path | None, *args: str) -> list[str]:
    """The command line; ``home=None`` leaves ``--home`` to ``args`` (e.g. after the subcommand)."""
    before = ["--home", str(home)] if home is not None else []
    return [sys.executable, "-m", "parler_desktop", *before, *args]


def environment(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PARLER_")}
    env.update(extra)
    return env


async def run_cli(home: Path | None, *args: str, timeout: float = 30.0, stdin: str | None = None, **env: str) -> Completed:
    process = await asyncio.create_subprocess_exec(
        *command(home, *args),
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=environment(**env),
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(stdin.encode() if stdin is not None else None), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    return Completed(process.returncode or 0, out.decode(), err.decode())


@contextlib.asynccontextmanager
async def started_cli(home: Path, *args: str, **env: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """A long-running command (``listen``) with stdout and stderr piped; killed and reaped on
    leaving if it is still running, so a failing test leaves no process behind."""
    process = await asyncio.create_subprocess_exec(
        *command(home, *args),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=environment(**env),
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
