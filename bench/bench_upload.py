"""Benchmark sending a 100 MiB file from the window (issue 43 item 5) against the reference
``parler send-file`` and a bare client on the same hub.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_upload.py [--reference-hub PATH]

With ``PARLER_REFERENCE_CLI`` set (the reference ``parler``, docs/interop.md), the first baseline
is ``parler send-file --room files`` in its own home (its config names this hub and an identity of
its own; it joined the room with ``parler join``): wall time of the command, start to exit, as a
person at a shell sees it (the CLI reads the file whole, hashes it, does ``put_blob`` with one
binary frame and posts the file). Without the variable that baseline is skipped, and the output
says so. The second is a bare websockets client (tests/support/raw_agent.py) doing the same without
the post: a minimal Python client. The hub is ours in a child process, its limits raised to take a
100 MiB blob (HubLimits' ``max_blob_bytes`` is 25 MiB by default), or with ``--reference-hub PATH``
the reference ``parler-hub`` (tests/support/reference_hub.py; ``--max-blob-bytes`` and
``--max-inflight-blob-bytes`` 128 MiB). Then the window in this process sends another 100 MiB file
through the composer's way in (``FileUploads.send_files``: hash on a worker thread, bytes streamed
in chunks, the post through the outbox) while a key is typed into the composer every 20 ms: printed
are each speed, the window's as a ratio to each baseline's, the slowest key echo (key event posted
→ text changed), the longest event-loop stall, and how much this process's peak memory grew during
the upload. Issue 43 asks for ≥ 0.5× ``parler send-file``, echo ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ui import StallMeter, run_on_app_loop, wait_for  # noqa: E402
from support.raw_agent import RawAgent  # noqa: E402
from support.reference_agent import ReferenceAgent  # noqa: E402
from support.reference_hub import ReferenceHub  # noqa: E402

from parler_desktop.hub import EmbeddedHub, HubConfig, HubLimits  # noqa: E402
from parler_desktop.paths import Home  # noqa: E402
from parler_desktop.settings import Settings, save_settings  # noqa: E402
from parler_desktop.ui.desktop import DesktopApp  # noqa: E402

MIB = 1024 * 1024
SIZE = 100 * MIB
KEY_EVERY_MS = 20
REFERENCE_HUB_LIMITS = ("--max-blob-bytes", str(128 * MIB), "--max-inflight-blob-bytes", str(128 * MIB))


def hub_child(root: str, pipe: Connection) -> None:
    """Child process: our hub, taking 100 MiB blobs, until told it is done."""

    async def serve() -> None:
        limits = HubLimits(max_blob_bytes=128 * MIB, upload_reservation_pool_bytes=512 * MIB).relaxed()
        hub = EmbeddedHub(HubConfig(db_path=Path(root) / "hub.sqlite3", port=0, limits=limits))
        pipe.send(await asyncio.to_thread(hub.start))
        await asyncio.to_thread(pipe.recv)  # done
        await asyncio.to_thread(hub.stop)

    asyncio.run(serve())


def mint_codes(url: str, count: int) -> list[str]:
    """An owner makes the room "files" and mints ``count`` invite codes to it (on a loop of its own:
    called in a thread)."""

    async def mint() -> list[str]:
        owner = await RawAgent.connect(url, name="owner")
        codes = [(await owner.ok({"op": "invite", "kind": "channel", "room": "files"}, "invited"))["code"] for _ in range(count)]
        await owner.close()
        return codes

    return asyncio.run(mint())


async def reference_send_file(binary: str, work: Path, url: str, code: str, path: Path) -> float:
    """The baseline issue 43 names: the reference CLI joins the room, then ``parler send-file``;
    the seconds the latter took, start to exit."""
    agent = ReferenceAgent(binary, work, url.removesuffix("/ws"), "refsender")  # it dials /ws itself
    await agent.ok("join", "--passive", code)
    start = time.perf_counter()
    out = await agent.ok("send-file", "--room", "files", str(path), timeout=120)
    elapsed = time.perf_counter() - start
    assert f"{SIZE} bytes" in out, out
    return elapsed


def bare_child(url: str, code: str, path: str, pipe: Connection) -> None:
    """Child process: the baseline, a bare client: read whole, hash, one put_blob."""

    async def upload() -> float:
        agent = await RawAgent.connect(url, name="bare")
        await agent.ok({"op": "redeem", "code": code}, "joined")
        start = time.perf_counter()
        data = Path(path).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        frame = {"op": "put_blob", "target": {"kind": "room", "room": "files"}, "sha256": digest, "size": len(data)}
        await agent.ok(frame, "blob_ready")
        await agent.send_bytes(data)
        stored = await agent.recv(timeout=120)
        assert stored["type"] == "blob_stored", stored
        elapsed = time.perf_counter() - start
        await agent.close()
        return elapsed

    pipe.send(asyncio.run(upload()))


class KeyEcho:
    """Posts a key press to the composer every ``KEY_EVERY_MS`` and records, for each, the time
    until the text box's text changed: what a person typing meanwhile waits for."""

    def __init__(self, edit) -> None:  # noqa: ANN001
        self._edit = edit
        self._posted: list[float] = []
        self.echoes: list[float] = []
        self._timer = QTimer(interval=KEY_EVERY_MS)
        self._timer.timeout.connect(self._post)
        edit.textChanged.connect(self._changed)

    def start(self) -> None:
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _post(self) -> None:
        self._posted.append(time.perf_counter())
        QCoreApplication.postEvent(self._edit, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_X, Qt.KeyboardModifier.NoModifier, "x"))

    def _changed(self) -> None:
        if self._posted:
            self.echoes.append((time.perf_counter() - self._posted.pop(0)) * 1000)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_random(path: Path) -> Path:
    """A 100 MiB file of random bytes (each sender its own: the hub stores a blob once)."""
    with path.open("wb") as handle:
        for _ in range(SIZE // MIB):
            handle.write(os.urandom(MIB))
    return path


def speed(secs: float) -> str:
    return f"{secs:6.2f} s ({SIZE / MIB / secs:6.1f} MiB/s)"


async def main(reference_hub: str | None) -> None:
    spawn = multiprocessing.get_context("spawn")
    reference_cli = os.environ.get("PARLER_REFERENCE_CLI", "").strip() or None
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        if reference_hub:
            hub = await asyncio.to_thread(ReferenceHub(reference_hub, root, REFERENCE_HUB_LIMITS).start)
            url = hub.url
            print(f"hub: the reference parler-hub ({reference_hub})")
        else:
            ours, theirs = spawn.Pipe()
            hub = spawn.Process(target=hub_child, args=(str(root), theirs), daemon=True)
            hub.start()
            url = await asyncio.to_thread(ours.recv)
            print("hub: ours (parler_desktop.hub, in a child process)")
        window_code, bare_code, cli_code = await asyncio.to_thread(mint_codes, url, 3)

        cli_secs = None
        if reference_cli:
            cli_file = write_random(root / "cli.bin")
            cli_secs = await reference_send_file(reference_cli, root / "cli", url, cli_code, cli_file)
            cli_file.unlink()
        bare_ours, bare_theirs = spawn.Pipe()
        bare_file = write_random(root / "bare.bin")
        bare = spawn.Process(target=bare_child, args=(url, bare_code, str(bare_file), bare_theirs), daemon=True)
        bare.start()
        bare_secs = await asyncio.to_thread(bare_ours.recv)
        await asyncio.to_thread(bare.join, 30)
        bare_file.unlink()
        window_file = write_random(root / "window.bin")

        home = Home.resolve(root / "home").ensure()
        save_settings(home.settings_file, Settings(display_name="boss"))
        desktop = DesktopApp(home, url)
        gc.freeze()
        desktop.collector.start()
        window = desktop.window
        window.show()
        await desktop.connect(url)
        await wait_for(lambda: desktop.bridge.is_live, 15)
        await desktop.bridge.session.redeem(window_code)
        await wait_for(lambda: "files" in window.rooms.room_names(), 10)
        window.room_panel.select_room("files")
        await wait_for(lambda: window.timeline_model.room == "files" and window.composer.isEnabled(), 10)
        await asyncio.sleep(0.5)

        echo, meter = KeyEcho(window.composer.edit), StallMeter()
        posted: list[str] = []
        window.uploads.statusMessage.connect(posted.append)
        rss_before = peak_rss_mib()
        meter.start()
        echo.start()
        start = time.perf_counter()
        window.uploads.send_files([str(window_file)])
        await wait_for(lambda: bool(posted), 120)
        window_secs = time.perf_counter() - start
        echo.stop()
        stall = meter.stop()
        rss_growth = peak_rss_mib() - rss_before
        await desktop.shutdown()
        window.close()
        if reference_hub:
            hub.kill()
        else:
            ours.send("done")
            await asyncio.to_thread(hub.join, 30)

        if cli_secs is None:
            print("baseline: reference `parler send-file` skipped: PARLER_REFERENCE_CLI is not set (docs/interop.md)")
        else:
            print(f"baseline: reference `parler send-file` (read whole, one put_blob, post), 100 MiB in {speed(cli_secs)}")
        print(f"baseline: bare client (read whole, one put_blob), 100 MiB in {speed(bare_secs)}")
        ratios = ([f"{cli_secs / window_secs:.2f}x parler send-file's speed"] if cli_secs else []) + [
            f"{bare_secs / window_secs:.2f}x the bare client's"
        ]
        print(f"window: 100 MiB hashed, streamed and posted in {speed(window_secs)}, {', '.join(ratios)}")
        print(
            f"meanwhile: {len(echo.echoes)} keys typed, slowest echo {max(echo.echoes, default=0):5.1f} ms, "
            f"longest event-loop stall {stall:5.1f} ms; peak memory grew {rss_growth:5.1f} MiB for a {SIZE // MIB} MiB file"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-hub", metavar="PATH", help="measure on the reference parler-hub at PATH")
    run_on_app_loop(main(parser.parse_args().reference_hub))
