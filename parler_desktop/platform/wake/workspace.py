"""macOS: NSWorkspace announces a wake with ``NSWorkspaceDidWakeNotification`` on its own
notification centre (NSWorkspace.notificationCenter, AppKit).

The observer is a block run on the main operation queue, which is the Cocoa run loop Qt's event
loop runs on, so ``on_wake`` is called on the window's thread. rubicon-objc is the bridge (it is
also desktop-notifier's on macOS): Qt offers no sleep or wake hook. Elsewhere, or when AppKit
cannot be reached, ``start()`` returns False and the clock-jump detector still notices a resume.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

DID_WAKE = "NSWorkspaceDidWakeNotification"


class WorkspaceWake:
    def __init__(self, on_wake: Callable[[], None]) -> None:
        self._on_wake = on_wake
        self._center: Any = None
        self._observer: Any = None
        self._block: Any = None  # kept alive as long as the observer

    def start(self) -> bool:
        """Observe NSWorkspace's wake notification; False where it cannot be observed."""
        try:
            from rubicon.objc import Block, ObjCClass, ObjCInstance, at
            from rubicon.objc.runtime import load_library

            load_library("AppKit")
            workspace = ObjCClass("NSWorkspace").sharedWorkspace
            queue = ObjCClass("NSOperationQueue").mainQueue
            self._block = Block(self._woke, None, ObjCInstance)
            self._center = workspace.notificationCenter
            self._observer = self._center.addObserverForName(at(DID_WAKE), object=None, queue=queue, usingBlock=self._block)
        except Exception as error:  # no rubicon, no AppKit, or the Objective-C runtime refused: the clock still tells
            log.info("no NSWorkspace wake notifications (%s)", error)
            self._center = self._observer = self._block = None
            return False
        return True

    def stop(self) -> None:
        if self._center is not None and self._observer is not None:
            self._center.removeObserver(self._observer)
        self._center = self._observer = self._block = None

    def _woke(self, _notification: object) -> None:
        self._on_wake()
