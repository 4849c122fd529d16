"""What held the Qt thread in each stall (issue 42 item 3): a watchdog thread samples the Qt
thread's Python stack while the 2 ms meter's ticks are late, and the samples of every stall over
``STALL_MS`` are summed by the callback that was running (the outermost frame of ours) and by
the innermost frame of ours, in ms of stall.

A sample is taken every ``EVERY_SECS`` once a tick is ``LATE_SECS`` late; the watchdog needs the
GIL for it, so while the Qt thread holds the GIL in Qt's C++ code the sample is taken when it
next runs Python: the stack then still names the Python frame that called Qt. A stall with no
frame of ours is Qt's own work (layout, paint) or another process holding the cores.

Used by bench_hubs.py's ``--stall-causes``: ``causes.beat`` is called by the meter's every tick.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from types import FrameType

LATE_SECS = 0.02
EVERY_SECS = 0.003
OURS = "parler_desktop"


def project_frames(frame: FrameType | None) -> list[str]:
    """``file:function`` of each frame of ours in ``frame``'s stack, innermost first."""
    found = []
    while frame is not None:
        path = frame.f_code.co_filename
        if OURS in path:
            found.append(f"{path.rsplit(OURS + '/', 1)[-1]}:{frame.f_code.co_name}")
        frame = frame.f_back
    return found


def innermost_outside(frame: FrameType | None) -> str:
    """The innermost frame when it is not ours (the library call ours made), else ''."""
    if frame is None or OURS in frame.f_code.co_filename:
        return ""
    return f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_code.co_name}"


IDLE_CALLS = frozenset({"wait", "_worker", "select", "get", "_wait_for_tstate_lock", "poll", "recv", "accept", "sleep", "_recv", "_poll"})


def working_frame(frame: FrameType) -> str:
    """Another thread's innermost frame as ``file:function``, or '' when it waits (it holds no GIL then)."""
    if frame.f_code.co_name in IDLE_CALLS:
        return ""
    return f"{frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_code.co_name}"


class StallCauses:
    def __init__(self, stall_ms: float) -> None:
        self.stall_ms = stall_ms
        self._beat = time.perf_counter()
        self._cpu = time.thread_time()  # the Qt thread's CPU time at the last beat
        self._main = threading.main_thread().ident
        self._samples: list[tuple[float, list[str], str, list[str]]] = []  # (when, our frames innermost first, library frame, the others')
        self._stalls: list[tuple[float, float, float]] = []  # (start, end, the Qt thread's CPU secs) of every late stretch over stall_ms
        self._running = False
        self._thread: threading.Thread | None = None

    def beat(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        if now - self._beat > self.stall_ms / 1000:
            self._stalls.append((self._beat, now, cpu - self._cpu))
        self._beat, self._cpu = now, cpu

    def start(self) -> None:
        self._beat, self._cpu = time.perf_counter(), time.thread_time()
        self._running = True
        self._thread = threading.Thread(target=self._watch, name="stall-causes", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._running = False
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        while self._running:
            time.sleep(EVERY_SECS)
            if time.perf_counter() - self._beat < LATE_SECS:
                continue
            frames = sys._current_frames()
            frame = frames.pop(self._main, None)
            frames.pop(threading.get_ident(), None)
            others = [busy for other in frames.values() if (busy := working_frame(other))]
            self._samples.append((time.perf_counter(), project_frames(frame), innermost_outside(frame), others))

    def report(self, top: int = 12) -> list[str]:
        """Lines: the stalls' ms by outermost frame of ours (the callback), by innermost frame of
        ours with the library call under it, and the longest stalls' own stacks."""
        by_callback: Counter[str] = Counter()
        by_inner: Counter[str] = Counter()
        beside: Counter[str] = Counter()  # other threads' work in the stalls' samples
        sampled = 0
        longest: list[tuple[float, str]] = []
        for start, end, cpu in self._stalls:
            inside = [(frames, library) for when, frames, library, _others in self._samples if start <= when <= end]
            for when, _frames, _library, others in self._samples:
                if start <= when <= end:
                    beside.update(others or ["(none: every other thread waits)"])
                    sampled += 1
            if not inside:
                continue
            share = (end - start) * 1000 / len(inside)
            callbacks: Counter[str] = Counter()
            for frames, library in inside:
                callback = frames[-1] if frames else "(no frame of ours: Qt's own work, or the machine)"
                inner = (frames[0] if frames else "-") + (f" > {library}" if library else "")
                by_callback[callback] += share
                by_inner[inner] += share
                callbacks[" < ".join(frames[:6]) or callback] += 1
            longest.append(((end - start) * 1000, cpu * 1000, callbacks.most_common(1)[0][0]))
        lines = [
            f"stalls over {self.stall_ms:g} ms: {len(self._stalls)}, {sum(e - s for s, e, _ in self._stalls) * 1000:.0f} ms in all, "
            f"of which the Qt thread ran {sum(c for _, _, c in self._stalls) * 1000:.0f} ms (the rest it waited: for the cores, the GIL)"
        ]
        lines.append("  by callback (outermost frame of ours), ms of stall:")
        lines += [f"    {ms:7.0f}  {name}" for name, ms in by_callback.most_common(top)]
        lines.append("  by innermost frame of ours (> the library call under it), ms of stall:")
        lines += [f"    {ms:7.0f}  {name}" for name, ms in by_inner.most_common(top)]
        lines.append(f"  what other threads ran meanwhile (they may hold the GIL), in how many of the stalls' {sampled} samples:")
        lines += [f"    {count:7d}  {name}" for name, count in beside.most_common(top)]
        lines.append("  the longest stalls (the Qt thread's CPU in them; their commonest stack, innermost first):")
        lines += [f"    {ms:5.0f} ms ({cpu:3.0f} ms CPU)  {stack}" for ms, cpu, stack in sorted(longest, reverse=True)[:top]]
        return lines

