"""Benchmark sending a 100 MiB file from the window (issue 43 item 5) against a bare client.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_upload.py

The hub runs in a child process (its limits raised to take a 100 MiB blob: HubLimits'
``max_blob_bytes`` is 25 MiB by default). The baseline, in another child process, is a bare
websockets client (tests/support/raw_agent.py) that reads the file whole, hashes it and does
``put_blob`` with one binary frame, as a minimal client would; the reference ``parler send-file``
is not built here (docs/interop.md). Then the window in this process sends another 100 MiB file
through the composer's way in (``FileUploads.send_files``: hash on a worker thread, bytes streamed
in chunks, the post through the outbox) while a key is typed into the composer every 20 ms:
printed are both speeds and their ratio, the slowest key echo (key event posted → text changed),
the longest event-loop stall, and how much this process's peak memory grew during the upload.
"""

from __future__ import annotations

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

from parler_desktop.hub import EmbeddedHub, HubConfig, HubLimits  # noqa: E402
from parler_desktop.paths import Home  # noqa: E402
from parler_desktop.settings import Settings, save_settings  # noqa: E402
from parler_desktop.ui.desktop import DesktopApp  # noqa: E402

MIB = 1024 * 1024
SIZE = 100 * MIB
KEY_EVERY_MS = 20


def hub_child(root: str, pipe: Connection) -> None:
    """Child process: a hub that takes 100 MiB blobs, and a room with two invites."""

    async def serve() -> None:
        limits = HubLimits(max_blob_bytes=128 * MIB, upload_reservation_pool_bytes=512 * MIB).relaxed()
        hub = EmbeddedHub(HubConfig(db_path=Path(root) / "hub.sqlite3", port=0, limits=limits))
        url = await asyncio.to_thread(hub.start)
        owner = await RawAgent.connect(url, name="owner")
        codes = [(await owner.ok({"op": "invite", "kind": "channel", "room": "files"}, "invited"))["code"] for _ in range(2)]
        pipe.send((url, codes))
        await asyncio.to_thread(pipe.recv)  # done
        await owner.close()
        await asyncio.to_thread(hub.stop)

    asyncio.run(serve())


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


async def main() -> None:
    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        for name in ("bare.bin", "window.bin"):
            with (root / name).open("wb") as handle:
                for _ in range(SIZE // MIB):
                    handle.write(os.urandom(MIB))
        ours, theirs = spawn.Pipe()
        hub = spawn.Process(target=hub_child, args=(str(root), theirs), daemon=True)
        hub.start()
        url, (bare_code, window_code) = await asyncio.to_thread(ours.recv)

        bare_ours, bare_theirs = spawn.Pipe()
        bare = spawn.Process(target=bare_child, args=(url, bare_code, str(root / "bare.bin"), bare_theirs), daemon=True)
        bare.start()
        bare_secs = await asyncio.to_thread(bare_ours.recv)
        await asyncio.to_thread(bare.join, 30)

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
        window.uploads.send_files([str(root / "window.bin")])
        await wait_for(lambda: bool(posted), 120)
        window_secs = time.perf_counter() - start
        echo.stop()
        stall = meter.stop()
        rss_growth = peak_rss_mib() - rss_before
        await desktop.shutdown()
        window.close()
        ours.send("done")
        await asyncio.to_thread(hub.join, 30)

        print(f"baseline: bare client (read whole, one put_blob), 100 MiB in {bare_secs:6.2f} s ({SIZE / MIB / bare_secs:6.1f} MiB/s)")
        print(
            f"window: 100 MiB hashed, streamed and posted in {window_secs:6.2f} s ({SIZE / MIB / window_secs:6.1f} MiB/s), "
            f"{bare_secs / window_secs:.2f}x the bare client's speed"
        )
        print(
            f"meanwhile: {len(echo.echoes)} keys typed, slowest echo {max(echo.echoes, default=0):5.1f} ms, "
            f"longest event-loop stall {stall:5.1f} ms; peak memory grew {rss_growth:5.1f} MiB for a {SIZE // MIB} MiB file"
        )


if __name__ == "__main__":
    run_on_app_loop(main())
