"""Where the human left the window: the hub and room shown last, the hubs folded in the sidebar,
the window's size and how wide its side panels were.

A chat client reopens where it was closed (Slack, Telegram and nheko all do); with several hubs
the first hub's newest room is rarely the one the human was reading. The state is small and
disposable, so it lives in a file of its own beside the settings (the settings are what the human
chose; this is only where they were). A missing, unreadable or damaged file reads as no state:
the window opens the first hub's newest room, as on a first launch.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from parler_desktop.atomic_file import write_atomically

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WindowState:
    hub: str | None = None  # the hub shown last, as the settings name it ("" = the embedded hub)
    room: str | None = None  # the room of ``hub`` open last
    folded: tuple[str, ...] = ()  # hubs whose rooms the sidebar hides under their heading
    size: tuple[int, int] | None = None  # the window's width and height (None: fit to the screen)
    # the room list's and the members' widths in a wide window, and that window's width
    panels: tuple[int, int, int] | None = None


def _pixels(value: object, count: int) -> tuple[int, ...] | None:
    """``count`` positive whole numbers of pixels (a width and a height, widths), else None."""
    if isinstance(value, list) and len(value) == count and all(type(n) is int and 0 < n <= 100_000 for n in value):
        return tuple(value)
    return None


def load_window_state(path: Path) -> WindowState:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return WindowState()
    except (OSError, UnicodeDecodeError, ValueError) as error:
        log.warning("ignoring the window state in %s: %s", path, error)
        return WindowState()
    if not isinstance(data, dict):
        log.warning("ignoring the window state in %s: not a JSON object", path)
        return WindowState()
    hub, room, folded = data.get("hub"), data.get("room"), data.get("folded", [])
    if not isinstance(folded, list) or not all(isinstance(url, str) for url in folded):
        folded = []
    return WindowState(
        hub=hub if isinstance(hub, str) else None,
        room=room if isinstance(room, str) and isinstance(hub, str) else None,
        folded=tuple(folded),
        size=_pixels(data.get("size"), 2),  # type: ignore[arg-type]
        panels=_pixels(data.get("panels"), 3),  # type: ignore[arg-type]
    )


def save_window_state(path: Path, state: WindowState) -> None:
    """Write atomically; raises ``OSError`` (e.g. a full disk) for the caller to log."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    payload = {"hub": state.hub, "room": state.room, "folded": list(state.folded)}
    for name, pixels in (("size", state.size), ("panels", state.panels)):
        if pixels is not None:
            payload[name] = list(pixels)
    write_atomically(path, (json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8"))
