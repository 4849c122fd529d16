"""``parler-desktop self-test``, the check every bundle build runs: window, hub, agent, both ways."""

from __future__ import annotations

import pytest
from support.cli_runner import run_cli

from parler_desktop.system_libs import EXIT_MISSING_LIBRARIES


@pytest.mark.timeout(60)
async def test_self_test_passes_here_and_names_its_timings(tmp_path):
    done = await run_cli(tmp_path / "unused-home", "self-test")
    assert done.status == 0, done.stderr
    assert done.stdout.startswith("self-test ok: window connected ") and "message round trip" in done.stdout


@pytest.mark.timeout(60)
async def test_self_test_fails_clearly_when_qt_cannot_load(tmp_path):
    broken = tmp_path / "libs"
    broken.mkdir()
    (broken / "libEGL.so.1").write_bytes(b"not a library" * 10)
    done = await run_cli(tmp_path / "unused-home", "self-test", LD_LIBRARY_PATH=str(broken))
    assert done.status == EXIT_MISSING_LIBRARIES and "libEGL.so.1" in done.stderr and "libegl1" in done.stderr
