"""FleetRows: the Agents view's rows in order, from where each agent goes (its sort name and
groups, or hidden), and what a live change to some agents repaints. Plain Python: ``FleetModel``
asks it; it lays the rows out again only when an agent moved, so a presence or a receipt costs
the rows of the agents it changed, not a pass over every agent (``RowsPass`` lays them out then)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

Key = tuple[str, str]  # an agent's (hub, id)
Group = tuple[str, str, str]  # ("hub", hub, "") or ("room", hub, room) (the scopes of the costs), or ("", "", title)
Row = Group | Key  # a group's heading, or an agent's key
NO_GROUP: Group = ("", "", "")  # the rows when they are not grouped: no heading
Placement = tuple[str, tuple[Group, ...]] | None  # an agent's sort name and groups; None: not shown


class FleetRows:
    """Rows laid out once (``laid_out``) and then only read: a new layout is made beside the one
    shown, and the model swaps it in."""

    def __init__(
        self, rows: list[Row] | None = None, heading_of: dict[Group, int] | None = None, sizes: dict[Group, int] | None = None,
        placed: dict[Key, Placement] | None = None, rows_of: dict[Key | None, list[int]] | None = None,
    ) -> None:
        self.rows: list[Row] = rows or []
        self.heading_of: dict[Group, int] = heading_of or {}  # a group's heading row
        self.sizes: dict[Group, int] = sizes or {}  # agents in each group shown
        self._placed: dict[Key, Placement] = placed or {}  # each agent where this layout put it
        self._rows_of: dict[Key | None, list[int]] = rows_of or {}  # each agent's rows; None: the first agent row

    @property
    def heading_rows(self) -> list[int]:
        """The rows that are a group's heading (the view spans them)."""
        return list(self.heading_of.values())

    @classmethod
    def laid_out(cls, placed: dict[Key, Placement], title: Callable[[Group], str]) -> FleetRows:
        """The rows for every agent's placement: groups in title order, each's agents in name order."""
        shown = sorted((placement[0], key) for key, placement in placed.items() if placement is not None)
        grouped: dict[Group, list[Key]] = {}
        for _name, key in shown:  # in name order: so is every group
            for group in placed[key][1]:  # type: ignore[index]
                members = grouped.get(group)
                if members is None:
                    members = grouped[group] = []
                members.append(key)
        titles = {group: title(group).lower() for group in grouped}
        rows: list[Row] = []
        heading_of: dict[Group, int] = {}
        rows_of: dict[Key | None, list[int]] = {}  # (made here, in the pass: not in the turn that shows the rows)
        for group in sorted(grouped, key=titles.__getitem__):
            if group != NO_GROUP:
                heading_of[group] = len(rows)
                rows.append(group)
            for key in grouped[group]:
                found = rows_of.get(key)
                if found is None:
                    rows_of[key] = [len(rows)]
                else:
                    found.append(len(rows))
                rows.append(key)
        first = next((row for row, value in enumerate(rows) if len(value) == 2), None)
        if first is not None:
            rows_of[None] = [first]
        return cls(rows, heading_of, {group: len(members) for group, members in grouped.items()}, placed, rows_of)

    def rows_of(self, key: Key | None) -> list[int]:
        """The agent's rows (one a group it is in; ``None``: the first agent row)."""
        return self._rows_of.get(key, [])

    def moved(self, key: Key, placement: Placement) -> bool:
        """Whether the agent's rows move (it came, went, was renamed, or left or joined a filter
        or a group) for ``placement``: then the rows are laid out again."""
        if placement is None and key not in self._placed:
            self._placed[key] = None  # a new agent the filter hides: no row moves
            return False
        return placement != self._placed.get(key)

    def repainted(self, keys: Iterable[Key]) -> list[tuple[int, int]]:
        """The runs of adjacent rows (first, last) that show the agents: their rows and their
        groups' headings (which sum their costs)."""
        rows: set[int] = set()
        for key in keys:
            rows.update(self.rows_of(key))
            placement = self._placed.get(key)
            if placement is not None:
                rows.update(self.heading_of[group] for group in placement[1] if group in self.heading_of)
        runs: list[tuple[int, int]] = []
        for row in sorted(rows):
            if runs and row == runs[-1][1] + 1:
                runs[-1] = (runs[-1][0], row)
            else:
                runs.append((row, row))
        return runs
