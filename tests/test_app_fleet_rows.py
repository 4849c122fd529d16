"""FleetRows (plain Python): the Agents view's rows from each agent's placement, when an agent's
change moves rows, and which rows a change repaints (its rows and its groups' headings)."""

from __future__ import annotations

from parler_desktop.app.agents.fleet_rows import NO_GROUP, FleetRows

HUB_A, HUB_B = ("hub", "a", ""), ("hub", "b", "")


def title(group: tuple[str, str, str]) -> str:
    return group[1] or group[2]


def test_rows_are_grouped_by_title_and_named_in_order_and_a_change_repaints_its_rows_and_heading():
    placed = {
        ("b", "1"): ("zed", (HUB_B,)),
        ("a", "2"): ("bob", (HUB_A,)),
        ("a", "3"): ("amy", (HUB_A,)),
        ("a", "4"): None,  # hidden by the filter
    }
    layout = FleetRows.laid_out(placed, title)
    assert layout.rows == [HUB_A, ("a", "3"), ("a", "2"), HUB_B, ("b", "1")]
    assert layout.heading_rows == [0, 3] and layout.sizes == {HUB_A: 2, HUB_B: 1}
    assert layout.rows_of(("a", "2")) == [2] and layout.rows_of(None) == [1] and layout.rows_of(("a", "4")) == []

    assert not layout.moved(("a", "2"), ("bob", (HUB_A,)))  # its presence changed: it stays
    assert layout.repainted([("a", "2")]) == [(0, 0), (2, 2)]  # its hub's heading (the cost) and its row
    assert layout.repainted([("a", "2"), ("a", "3")]) == [(0, 2)]  # adjacent rows: one run
    assert layout.repainted([("a", "4")]) == []  # hidden: nothing shown to repaint
    assert layout.moved(("a", "2"), ("aaron", (HUB_A,)))  # renamed: its row moves
    assert layout.moved(("a", "4"), ("dee", (HUB_A,)))  # shown now
    assert not layout.moved(("a", "5"), None)  # a new agent the filter hides
    assert layout.moved(("a", "6"), ("eve", (HUB_A,)))  # a new agent shown


def test_an_agent_in_several_groups_has_a_row_in_each_and_ungrouped_rows_have_no_heading():
    build, docs = ("room", "a", "build"), ("room", "a", "docs")
    layout = FleetRows.laid_out({("a", "1"): ("amy", (build, docs)), ("a", "2"): ("bob", (docs,))}, lambda group: group[2])
    assert layout.rows == [build, ("a", "1"), docs, ("a", "1"), ("a", "2")]
    assert layout.rows_of(("a", "1")) == [1, 3]
    assert layout.repainted([("a", "1")]) == [(0, 3)]
    layout = FleetRows.laid_out({("a", "1"): ("amy", (NO_GROUP,))}, title)
    assert layout.rows == [("a", "1")] and layout.heading_rows == []
