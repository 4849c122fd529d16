"""WaitingMessages: the oldest first, each seq once (a later copy replaces an earlier one), however
they arrive and however many are taken at a time."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest

from hypothesis import given
from hypothesis import strategies as st

from parler_desktop.app.timeline.waiting_messages import WaitingMessages


@dataclass(frozen=True)
class Arrived:
    seq: int
    copy: int  # which arrival of this seq


arrivals = st.lists(st.lists(st.integers(1, 40), max_size=12), max_size=8)  # batches of seqs
takes = st.lists(st.integers(1, 10), min_size=1, max_size=20)


@given(arrivals, takes)
def test_taken_oldest_first_each_seq_once_and_the_last_copy_wins(batches, counts):
    waiting = WaitingMessages()
    copies: dict[int, int] = {}
    expected: dict[int, Arrived] = {}
    for batch, count in zip_longest(batches, counts, fillvalue=None):  # then takes with nothing new
        batch, count = batch or [], count or 1
        messages = []
        for seq in batch:
            copies[seq] = copies.get(seq, 0) + 1
            messages.append(Arrived(seq, copies[seq]))
        waiting.add(messages)
        for message in messages:
            expected[message.seq] = message  # (until taken: a seq that comes again later waits again)
        now = waiting.take(count)
        assert now == sorted(now, key=lambda m: m.seq) and len(now) <= count
        assert all(m == expected.pop(m.seq) for m in now)  # the newest copy of each seq
        if now:
            assert not expected or now[-1].seq <= min(expected)  # nothing older left behind
        assert len(waiting) == len(expected)
    rest = waiting.take(len(expected) + 1)
    assert rest == sorted(expected.values(), key=lambda m: m.seq)
    assert len(waiting) == 0 and not waiting


def test_clear_forgets_every_waiting_message():
    waiting = WaitingMessages()
    waiting.add([Arrived(3, 1), Arrived(1, 1)])
    waiting.clear()
    assert waiting.take(5) == [] and len(waiting) == 0
    waiting.add([Arrived(2, 1)])
    assert waiting.take(5) == [Arrived(2, 1)]
