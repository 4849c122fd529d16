"""The single-instance channel: a later launch on the same home hands its request to the
running window (raise yourself; open this invite link; start the demo) instead of refusing.

The window listens on a local socket named after its home (a Unix socket in the user's private
``$XDG_RUNTIME_DIR`` where there is one, else Qt's per-user default; a named pipe on Windows),
readable by this user only. The home lock (``instance_lock.py``) already makes the window the
only listener, so a socket left by a crashed window is simply replaced. A request is one line
of JSON; the window answers ``ok`` once it has taken it, so the sender can exit at once.
The sender needs only QtCore and QtNetwork: it works without a display.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from parler_desktop.paths import Home

MAX_REQUEST_BYTES = 16 * 1024
ACK = b"ok\n"
SEND_TIMEOUT_MS = 3000


def channel_name(home: Home) -> str:
    digest = hashlib.sha256(str(home.data_dir.resolve()).encode()).hexdigest()[:16]
    name = f"parler-desktop-{digest}"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return str(Path(runtime) / name)
    return name


class InstanceServer(QObject):
    """Listens for later launches; emits what they ask for."""

    raiseRequested = Signal()
    linkRequested = Signal(str)
    demoRequested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._name = name

    def listen(self) -> bool:
        QLocalServer.removeServer(self._name)  # we hold the home lock: any old socket is stale
        return self._server.listen(self._name)

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while (peer := self._server.nextPendingConnection()) is not None:
            peer.readyRead.connect(lambda peer=peer: self._read(peer))
            peer.disconnected.connect(peer.deleteLater)

    def _read(self, peer: QLocalSocket) -> None:
        if not peer.canReadLine():
            if peer.bytesAvailable() > MAX_REQUEST_BYTES:
                peer.abort()
            return
        line = bytes(peer.readLine(MAX_REQUEST_BYTES).data())
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            peer.abort()
            return
        peer.write(ACK)
        peer.flush()
        peer.disconnectFromServer()
        link = request.get("link")
        if isinstance(link, str) and link:
            self.linkRequested.emit(link)
        else:
            self.raiseRequested.emit()
            if request.get("demo") is True:
                self.demoRequested.emit()


def hand_over(name: str, link: str | None, demo: bool = False) -> bool:
    """Ask the running window to raise itself and open ``link`` or start the demo; True once it
    has taken the request.

    Blocking, with a timeout: for the start of a second launch, before any event loop runs.
    """
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(SEND_TIMEOUT_MS):
        return False
    request = {"link": link} if link else {"raise": True, "demo": demo}
    socket.write(json.dumps(request).encode() + b"\n")
    if not socket.waitForBytesWritten(SEND_TIMEOUT_MS):
        return False
    answer = b""
    while not answer.endswith(b"\n") and socket.waitForReadyRead(SEND_TIMEOUT_MS):
        answer += bytes(socket.readAll().data())
    socket.abort()
    return answer == ACK
