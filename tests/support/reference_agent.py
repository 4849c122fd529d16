"""The reference ``parler`` agent CLI as one agent, for tests/interop/ and bench/bench_upload.py.

Nothing here is the reference code: it runs a binary built from it (docs/interop.md says how).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.identity import Identity


@dataclass
class Ran:
    status: int
    stdout: str
    stderr: str


class ReferenceAgent:
    """The reference ``parler`` CLI as one agent: its own config (hub URL, identity, name)."""

    def __init__(self, binary: str, work: Path, url: str, name: str) -> None:
        self.binary = binary
        self.work = work
        self.identity = Identity.generate()
        self.name = name
        state = work / "parler"
        state.mkdir(parents=True)
        (work / "home").mkdir()
        config = {"hub_url": url, "id": self.identity.agent_id, "seed": self.identity.seed, "name": name}
        (state / "config.json").write_text(json.dumps(config))
        os.chmod(state / "config.json", 0o600)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(work / "home"),
            "PARLER_HOME": str(state),
            "LANG": "C.UTF-8",
            "RUST_LOG": "warn",
        }
        self.started: list[asyncio.subprocess.Process] = []

    @property
    def id(self) -> str:
        return self.identity.agent_id

    async def run(self, *args: str, timeout: float = 30.0) -> Ran:
        process = await asyncio.create_subprocess_exec(
            self.binary, *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self.env, cwd=self.work,
        )
        try:
            out, err = await asyncio.wait_for(process.communicate(), timeout)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise
        return Ran(process.returncode or 0, out.decode(), err.decode())

    async def ok(self, *args: str, timeout: float = 30.0) -> str:
        """Run a command that must succeed; its stdout."""
        ran = await self.run(*args, timeout=timeout)
        assert ran.status == 0, (args, ran)
        return ran.stdout

    async def start(self, *args: str) -> asyncio.subprocess.Process:
        """A long-running command (``recv --watch``), killed at teardown."""
        process = await asyncio.create_subprocess_exec(
            self.binary, *args, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self.env, cwd=self.work,
        )
        self.started.append(process)
        return process

    async def stop(self) -> None:
        for process in self.started:
            if process.returncode is None:
                process.kill()
            await process.wait()
