"""Windows' resume message read from a native ``MSG`` (winuser.h), without Qt and without Windows.

Windows sends ``WM_POWERBROADCAST`` to every top-level window; ``wParam`` is
``PBT_APMRESUMEAUTOMATIC`` on every resume from sleep or hibernation (``PBT_APMRESUMESUSPEND``
follows only when a person caused it, so it is not needed). Qt hands a native event filter the
address of the ``MSG`` as ``windows_generic_MSG``.
"""

from __future__ import annotations

import ctypes

NATIVE_EVENT_TYPES = (b"windows_generic_MSG", b"windows_dispatcher_MSG")
WM_POWERBROADCAST = 0x0218
PBT_APMRESUMEAUTOMATIC = 0x0012


class POINT(ctypes.Structure):
    _fields_ = [("x", ctypes.c_long), ("y", ctypes.c_long)]


class MSG(ctypes.Structure):
    """winuser.h's MSG: HWND, UINT, WPARAM (UINT_PTR), LPARAM (LONG_PTR), DWORD, POINT."""

    _fields_ = [
        ("hwnd", ctypes.c_void_p),
        ("message", ctypes.c_uint),
        ("wParam", ctypes.c_size_t),
        ("lParam", ctypes.c_ssize_t),
        ("time", ctypes.c_uint32),
        ("pt", POINT),
    ]


def is_resume(message: int, wparam: int) -> bool:
    return message == WM_POWERBROADCAST and wparam == PBT_APMRESUMEAUTOMATIC


def is_resume_event(event_type: bytes, address: int) -> bool:
    """Whether the native event Qt passed (its type and the MSG's address) announces a resume."""
    if event_type not in NATIVE_EVENT_TYPES or not address:
        return False
    msg = MSG.from_address(address)
    return is_resume(msg.message, msg.wParam)
