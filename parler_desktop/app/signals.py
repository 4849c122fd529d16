"""``emit(signal, *args)``: emit a Qt signal from Python without corrupting the interpreter.

PySide6 6.12.0's ``SignalInstance.emit`` returns ``True`` without taking a reference for it, so
every emit from Python drops one reference of ``True``; after a few thousand emits Python aborts
("bool_dealloc: deallocating True or False"). PySide6 6.11 does not. This measures once whether
the installed PySide leaks and, only then, gives the reference back after each emit. Every
emit in app/ and ui/ goes through here; drop it once the minimum PySide6 excludes 6.12.0.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from PySide6.QtCore import QObject, Signal, SignalInstance


class _Probe(QObject):
    ping = Signal()


def _emit_drops_references() -> bool:
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(16):
        probe.ping.emit()
    dropped = before - sys.getrefcount(True) >= 8
    if dropped:  # give back what the probe took
        for _ in range(16):
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
    return dropped


EMIT_DROPS_REFERENCES = _emit_drops_references()


def emit(signal: SignalInstance, *args: Any) -> None:
    result = signal.emit(*args)
    if EMIT_DROPS_REFERENCES and isinstance(result, bool):
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(result))
