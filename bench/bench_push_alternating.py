"""Compare two ways of the window's code in one run of ``bench_push.py``: even messages take way
A, odd ones way B.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_push_alternating.py [--ways FILE] [--messages 200]

Whole runs of ``bench_push.py`` drift with the machine (on a shared virtual machine the same code
gives model -> painted p50 anywhere from 1.2 to 1.8 ms within an hour), far more than a change
of 50-100 µs moves them. Alternating the two ways message by message in one run cancels that
drift: both halves see the same machine.

``--ways FILE`` is a Python file defining ``a()`` and ``b()``, each switching the window's code to
its way, for instance by setting a flag that the code under test reads. It is run before the
window is made: Qt calls a Python override of a virtual method (``paintEvent``, ``sizeHint``)
through the class as it was then, so such a method is replaced there, once, by one that asks the
flag; a method only Python calls can be assigned in ``a()`` and ``b()``. The switch happens as
each message is read off the socket, before anything measured. Without ``--ways`` the two ways
are the same code, and the difference between the halves is this machine's noise: the figure a
real difference must clear (on the 2-core virtual machine these were written on, up to about 50 µs
either way).

Figures: for each way, the p50 of model -> painted, read -> painted, send -> painted and model ->
on screen (``bench_push.PaintWatch.on_screen``), over the messages that took it (warm-up excluded).
"""

from __future__ import annotations

import argparse
import re
import runpy
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_push  # noqa: E402
from bench_hub import percentile  # noqa: E402

from parler_desktop.client.inbox import BoundedInbox  # noqa: E402

NUMBERED = re.compile(r"push (\d+):")  # bench_push.label


def alternate(way_a: Callable[[], None], way_b: Callable[[], None]) -> None:
    """Switch to way A before each even-numbered message is handed on, B before each odd one."""
    put = BoundedInbox.put

    def put_after_switching(inbox: BoundedInbox, message: object) -> None:
        parts = getattr(message, "parts", ())
        number = NUMBERED.match(parts[0].get("text") or "") if parts else None
        if number is not None:
            (way_a if int(number.group(1)) % 2 == 0 else way_b)()
        put(inbox, message)

    BoundedInbox.put = put_after_switching  # this process's only session is the window's


def report_ways(stages: bench_push.StageWatch, paints: bench_push.PaintWatch, sent: bench_push.Sent) -> None:
    read, appended, painted = stages.stage("read"), stages.stage("appended"), paints.painted
    for parity, way in ((0, "A"), (1, "B")):
        spans: dict[str, list[float]] = {
            "model -> painted": [], "read -> painted": [], "send -> painted": [], "model -> on screen": [],
        }
        for n, (sent_at, _bare_at) in list(enumerate(sent))[bench_push.WARMUP:]:
            text = bench_push.label(n)
            if n % 2 != parity or text not in painted or text not in read or text not in appended:
                continue
            for name, start in zip(spans, (appended[text], read[text], sent_at)):
                spans[name].append(painted[text] - start)
            if (shown := paints.on_screen(text)) is not None:
                spans["model -> on screen"].append(shown - appended[text])
        figures = ", ".join(f"{name} {percentile(values, 0.5) * 1000:.3f} ms" for name, values in spans.items() if values)
        print(f"way {way} ({len(spans['send -> painted'])} messages): p50 {figures}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ways", type=Path, help="a Python file defining a() and b()")
    parser.add_argument("--messages", type=int, default=200)
    options = parser.parse_args()
    ways = runpy.run_path(str(options.ways)) if options.ways else {"a": lambda: None, "b": lambda: None}
    alternate(ways["a"], ways["b"])
    report_ways(*bench_push.run(options.messages))
