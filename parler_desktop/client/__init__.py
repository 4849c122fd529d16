"""The hub client: one reconnecting, subscribed session per (hub, identity); no Qt.

``HubSession`` (session.py) is the entry point: it builds the parts below and offers the user's
operations; it reports everything as the events of ``events.py``. Its parts, one job each:

- lifecycle.py — the connection state machine: dial, handshake, serve, back off, AUTH_FAILED,
  wake probes; hands the live connection (paced requests) to the session's operations
- address.py — hub addresses and invite links as typed (protocol.md §1.1); hub_identity.py —
  which key file is the human's identity on a hub (the home's, or one chosen for that hub)
- connection.py — one WebSocket: handshake, one request in flight, push inbox, heartbeat;
  reply_fit.py — whether a reply fits its request (else ``OutOfTurn``: nothing taken, the line dropped)
  fault_log.py — the hub's faults said once, then counted (a flood is a line per 10 s)
- tls.py — whom a ``wss://`` hub is trusted through (the system's CAs, or the hub's CA file) and
  what a certificate failure tells the person
- backoff.py, clock.py, pacing.py, wake.py — reconnect delays, injectable time, the hub's
  operation budget, resume detection
- sync.py — catch-up and reconciliation (sync marks, ``rooms`` counts), no gaps, no repeats;
  history_window.py — a long room's newest page, found by probing, and what a catch-up left on
  the hub, read page by page as the human scrolls up;
  page_writer.py — pulled pages stored behind the pulls, several rooms per transaction, bounded
  (a tight disk still progresses);
  arrivals.py — a few pushes announced (``MessagesArrived``) before they are stored, to be shown;
  room_holds.py — rooms held back a while after a page that does not advance
- outbox.py — posting exactly once through the durable outbox, sent once a pull shows the hub's
  copy; other_posts.py — posts another
  process on the home got accepted, fetched at once (the hub does not push their author's own)
- read_markers.py, roster.py — the hub cursor (ack-only pulls), roster polling
- commit.py, tasks.py — store writes whose events survive cancellation; task ownership
- feed.py, headless.py — what the ``listen``/``send``/``join`` commands share
- uploads.py — a file the human sends: hashed, streamed as a blob (again after a dropped line),
  then posted once through the outbox
"""

from parler_desktop.client.address import normalize_hub_url, parse_invite
from parler_desktop.client.errors import (
    BadReply,
    ConnectionLost,
    HandshakeRefused,
    HubRefused,
    HubUnreachable,
    SessionClosed,
)
from parler_desktop.client.session import HubSession
from parler_desktop.client.tuning import SessionTuning

__all__ = [
    "BadReply", "ConnectionLost", "HandshakeRefused", "HubRefused", "HubSession", "HubUnreachable", "SessionClosed",
    "SessionTuning", "normalize_hub_url", "parse_invite",
]
