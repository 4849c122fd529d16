"""Signature verdicts kept with the stored messages, so nobody checks a signature twice.

An Ed25519 check costs ~0.1 ms; done in the window it ran on the UI thread when a row was first
painted. Here it runs on the store's thread as a message is stored (a push shown before its
write comes with the verdict ``client/arrivals.py`` checked, and that is kept), and the verdict is
a column of the row: every reader (timeline, ``listen``) gets ``StoredMessage.signature`` set.

The verdict binds DM signatures to the identity the store belongs to (protocol.md §8), and the
check needs the identity layer, so the session hands the store its check
(``check_signatures_with``) before it stores anything. Rows stored without a verdict (by a
version before this column, or before the check was given) are checked the first time they are
read, and the verdict kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from parler_desktop.protocol.values import SignatureState, StoredMessage
from parler_desktop.store import codec
from parler_desktop.store.database import StoreDatabase

MessageRow = tuple[int, str, str | None]  # (seq, wire, signature) as selected by ``MESSAGE_COLUMNS``
MESSAGE_COLUMNS = "seq, wire, signature"
SignatureCheck = Callable[[StoredMessage], SignatureState]


class SignatureChecks(StoreDatabase):
    """The signature half of ``LocalStore``'s messages."""

    _signature_of: SignatureCheck | None = None

    def check_signatures_with(self, signature_of: SignatureCheck) -> None:
        """From now on, give each message stored its verdict from ``signature_of``."""
        self._signature_of = signature_of

    def _messages_where(self, where: str, params: Sequence[object]) -> list[StoredMessage]:
        """The messages ``where`` selects (``WHERE …``, with any ``ORDER BY`` and ``LIMIT``),
        ascending by seq, their rows read in one step (``_rows_at_once``: a page of 60 rows was
        60 waits for the GIL while the window's thread ran Python, when a room was opened)."""
        rows = self._rows_at_once(MESSAGE_COLUMNS, f"SELECT {MESSAGE_COLUMNS} FROM messages {where}", params)
        rows.sort(key=lambda row: row[0])
        return self.messages_from_rows(rows)

    def verdicts(self, messages: Iterable[StoredMessage]) -> list[StoredMessage]:
        """``messages`` with their verdicts (checked here, on the store's thread, unless the
        session checked one as it arrived, to show it at once); unchanged while no check was given."""
        if self._signature_of is None:
            return list(messages)
        return [m if m.signature is not None else m.with_signature(self._signature_of(m)) for m in messages]

    def messages_from_rows(self, rows: Sequence[MessageRow]) -> list[StoredMessage]:
        """Messages from their rows; a row without a verdict is checked now and its verdict kept
        (by a writable store: a read-only one checks it again on each read)."""
        messages: list[StoredMessage] = []
        checked: list[tuple[str, int]] = []
        for seq, wire, verdict in rows:
            message = codec.message_from_wire_text(wire)
            if verdict is not None:
                message = message.with_signature(SignatureState(verdict))
            elif self._signature_of is not None:
                message = message.with_signature(self._signature_of(message))
                checked.append((message.signature.value, seq))  # type: ignore[union-attr]
            messages.append(message)
        if checked and not self.read_only:
            with self._write():
                self._db.executemany("UPDATE messages SET signature = ? WHERE seq = ?", checked)
        return messages
