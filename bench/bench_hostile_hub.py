"""What a hostile hub costs ``listen``, against the same command on an honest hub in the same run.

Run: .venv/bin/python bench/bench_hostile_hub.py [--seconds 5] [--only NAME ...]

Each case starts the real hub, a peer that made room ``team`` with a few messages, and a home that
joined it; then ``listen --json`` runs for ``--seconds`` through tests/support/hostile_hub.py's
proxy, honest (a pass-through) and hostile, one after the other. Figures per run: peak RSS
(VmHWM), CPU seconds, lines and bytes on stderr, messages printed, bytes on disk under the home.

Figures of one run (8 s each, listen before issue 47's fixes → after; the honest hub's run is the
same before and after: 37 MB peak RSS, 5 stderr lines, 0.21 MB on disk):
faults 211,975 stderr lines (28.7 MB) → 7; history 75,500 messages printed, 37 MB disk → 0 and
0.21 MB; phantoms 97 MB RSS, 16.7 MB disk → 37.7 MB, 0.21 MB; huge 3,795 MB RSS → 37.7 MB;
pushes 61 MB → 135 MB RSS (32,505 made-up messages stored and printed instead of 2,505: storage,
not buffering, which stays bounded by the inbox).

Cases (issue 47):
- ``faults``: 20,000 malformed pushes a second (each one a fault to report);
- ``history``: every ``since`` pull answered by a full page of made-up messages (endless history);
- ``pushes``: deliveries for ``team`` pushed as fast as the proxy can (50,000 a second at most);
- ``phantoms``: deliveries for rooms the hub never listed;
- ``huge``: the first pull of ``team`` answered by a text frame claiming 10 GiB, its bytes sent as
  fast as the line takes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.cli_runner import command, environment, run_cli  # noqa: E402
from support.hostile_hub import HostileHub, Link, Misbehaviour  # noqa: E402
from support.raw_agent import RawAgent  # noqa: E402

from parler_desktop.hub import EmbeddedHub, HubConfig  # noqa: E402


def fake_message(seq: int, room: str = "team") -> dict:
    return {"seq": seq, "id": f"f{seq}", "room": room, "from": {"id": "UFAKE", "name": "fake"},
            "parts": [{"kind": "text", "text": f"made up {seq} " + "x" * 200}], "ts": 1_700_000_000_000 + seq}


class Faults(Misbehaviour):
    def welcomed(self, link: Link):
        async def flood() -> None:
            while True:
                started = time.monotonic()
                for number in range(200):
                    await link.to_client(f'{{"type":"delivery","message":{{"seq":"x{number}"}}}}')
                await asyncio.sleep(max(0.0, 0.01 - (time.monotonic() - started)))  # 20,000 a second

        return flood()


class History(Misbehaviour):
    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if reply.get("type") == "pulled" and request and request.get("since") is not None and request.get("limit"):
            since, limit = request["since"], request["limit"]
            return [{**reply, "messages": [fake_message(since + 1 + n, request["room"]) for n in range(limit)],
                     "cursor": since + limit}]
        return [reply]


class Pushes(Misbehaviour):
    def welcomed(self, link: Link):
        async def flood() -> None:
            seq = 10_000_000
            while True:
                started = time.monotonic()
                for _ in range(500):
                    seq += 1
                    await link.to_client({"type": "delivery", "message": fake_message(seq)})
                await asyncio.sleep(max(0.0, 0.01 - (time.monotonic() - started)))  # 50,000 a second at most

        return flood()


class Phantoms(Misbehaviour):
    def welcomed(self, link: Link):
        async def flood() -> None:
            seq = 20_000_000
            while True:
                for _ in range(100):
                    seq += 1
                    await link.to_client({"type": "delivery", "message": fake_message(seq, f"phantom-{seq}")})
                await asyncio.sleep(0.01)

        return flood()


class Huge(Misbehaviour):
    def reply(self, link: Link, reply: dict, request: dict | None) -> list:
        if reply.get("type") == "pulled" and request and request.get("room") == "team" and request.get("limit") and link.number == 1:
            asyncio.ensure_future(self._stream(link))
            return []
        return [reply]

    async def _stream(self, link: Link) -> None:
        link.client.transport.write(bytes([0x81, 127]) + struct.pack("!Q", 10 << 30))
        chunk = b"[" * (1 << 20)
        transport = link.client.transport
        for _ in range(10 << 10):  # 10 GiB, as fast as the client reads it
            if transport.is_closing() or link.client.state.name != "OPEN":
                return
            transport.write(chunk)
            while transport.get_write_buffer_size() > (8 << 20) and not transport.is_closing():
                await asyncio.sleep(0.005)


CASES = {"faults": Faults, "history": History, "pushes": Pushes, "phantoms": Phantoms, "huge": Huge}


def proc_figures(pid: int) -> dict[str, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    hwm = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return {"peak_rss_mb": hwm / 1024, "cpu_s": (int(fields[11]) + int(fields[12])) / ticks}


def disk_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


async def run_listen(hub_url: str, misbehaviour: Misbehaviour, link_code: str, seconds: float, folder: Path) -> dict:
    home = folder / "home"
    joined = await run_cli(home, "join", "--hub", hub_url, link_code)
    assert joined.status == 0, joined.stderr
    proxy = HostileHub.in_thread(hub_url, misbehaviour)
    out, err = (folder / "stdout").open("wb"), (folder / "stderr").open("wb")
    process = await asyncio.create_subprocess_exec(
        *command(home, "listen", "--hub", proxy.url, "--json"), stdin=asyncio.subprocess.DEVNULL, stdout=out, stderr=err,
        env=environment(),
    )
    try:
        await asyncio.sleep(seconds)
        figures = proc_figures(process.pid)
    finally:
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()
        proxy.stop()
        out.close()
        err.close()
    stderr = (folder / "stderr").read_bytes()
    stdout = (folder / "stdout").read_bytes()
    figures.update(
        stderr_lines=stderr.count(b"\n"), stderr_kb=len(stderr) / 1024, printed=stdout.count(b"\n"),
        disk_mb=disk_bytes(home / "data") / 1e6 if (home / "data").exists() else 0.0,
    )
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), default=sorted(CASES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        hub = EmbeddedHub(HubConfig(host="127.0.0.1", port=0, db_path=Path(tmp) / "hub.db", blob_dir=Path(tmp) / "blobs"))
        url = hub.start()
        try:
            peer = await RawAgent.connect(url, name="bot")
            await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited")
            for number in range(5):
                await peer.ok({"op": "send", "target": {"kind": "room", "room": "team"},
                               "parts": [{"kind": "text", "text": f"honest {number}"}]}, "sent")
            for name in args.only:
                for label, misbehaviour in (("honest", Misbehaviour()), ("hostile", CASES[name]())):
                    code = (await peer.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited"))["code"]
                    folder = Path(tmp) / f"{name}-{label}"
                    folder.mkdir()
                    figures = await run_listen(url, misbehaviour, code, args.seconds, folder)
                    print(json.dumps({"case": name, "hub": label, **{k: round(v, 2) for k, v in figures.items()}}), flush=True)
            await peer.close()
        finally:
            hub.stop()


if __name__ == "__main__":
    asyncio.run(main())
