"""Pushes shown before they are stored: a few at a time, with their verdicts; a burst waits for the
store (its signatures are checked on the store's thread)."""

from __future__ import annotations

from parler_desktop.client.arrivals import SHOWN_AT_ONCE, Arrivals
from parler_desktop.client.events import MessagesArrived
from parler_desktop.protocol.values import SignatureState

from test_store import make_message


def test_a_few_pushes_are_announced_with_verdicts_and_a_burst_is_left_to_the_store():
    events: list[MessagesArrived] = []
    checked: list[int] = []
    arrivals = Arrivals(events.append, lambda m: checked.append(m.seq) or SignatureState.UNSIGNED)
    burst = [make_message(seq, room="team") for seq in range(100, 101 + SHOWN_AT_ONCE)]
    assert arrivals.announce(burst) == burst and not events and not checked and arrivals.up_to("team") == 0
    few = [make_message(12, room="ops"), make_message(11, room="team"), make_message(10, room="team")]
    to_store = arrivals.announce(few)
    assert [(e.room, [m.seq for m in e.messages]) for e in events] == [("team", [10, 11]), ("ops", [12])]
    assert all(m.signature is SignatureState.UNSIGNED for m in to_store) and sorted(checked) == [10, 11, 12]
    assert (arrivals.up_to("team"), arrivals.up_to("ops"), arrivals.up_to("other")) == (11, 12, 0)
