"""Why a request or a connection failed, as values the session and the UI can branch on."""

from __future__ import annotations

from parler_desktop.protocol import errors as codes


class ConnectionLost(Exception):
    """The socket is gone (closed, reset, silent too long); reconnecting may help."""


class OutOfTurn(ConnectionLost):
    """The hub answered a request with a reply that does not fit it (another type, another room,
    another post's seq): nothing of it is taken, the line it came on is dropped, and the session
    reconnects with backoff. ``str()`` says what did not fit."""


class HubUnreachable(ConnectionLost):
    """The hub could not be dialed at all (refused, no route, name not found)."""


class TlsRefused(ConnectionLost):
    """A ``wss://`` hub's certificate (or our CA file) was not accepted; ``str()`` says why and
    what to do."""


class HubRefused(Exception):
    """The hub answered with an ``error`` frame; ``str()`` is its message for the user."""

    def __init__(self, message: str, code: str | None = None, op: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.op = op

    @property
    def is_transient(self) -> bool:
        return codes.is_transient(self.code)


class HandshakeRefused(HubRefused):
    """The hub would not let this identity in (wrong join secret or key, a name it rejects)."""


class BadReply(Exception):
    """The hub's reply could not be understood (malformed, or the wrong kind of frame)."""


class SessionClosed(Exception):
    """The session was stopped, or cannot connect until the user changes something."""
