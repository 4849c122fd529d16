"""FleetRows: the Agents view's rows in order, from where each agent goes (its sort name and
groups, or hidden), and what a live change to some agents repaints. Plain Python: ``FleetModel``
asks it; it lays the rows out again only when an agent moved, so a presence or a receipt costs
the rows of the agents it changed, not a pass over every agent."""

from __future__ import annotations

from collections.abc import Callable, Iterable

Key = tuple[str, str]  # an agent's (hub, id)
Group = tuple[str, str, str]  # ("hub", hub, "") or ("room", hub, room) (the scopes of the costs), or ("", "", title)
Row = Group | Key  # a group's heading, or an agent's key
NO_GROUP: Group = ("", "", "")  # the rows when they are not grouped: no heading
Placement = tuple[str, tuple[Group, ...]] | None  # an agent's sort name and groups; None: not shown


class FleetRows:
    def __init__(self) -> None:
        self.rows: list[Row] = []
        self.heading_of: dict[Group, int] = {}  # a group's heading row
        self.sizes: dict[Group, int] = {}  # agents in each group shown
        self._placed: dict[Key, Placement] = {}  # each agent where the last layout put it
        self._rows_of: dict[Key | None, list[int]] | None = None  # made when asked

    @property
    def heading_rows(self) -> list[int]:
        """The rows that are a group's heading (the view spans them)."""
        return list(self.heading_of.values())

    def lay_out(self, placed: dict[Key, Placement], title: Callable[[Group], str]) -> list[Row]:
        """The rows for every agent's placement: groups in title order, each's agents in name
        order (``set_rows`` shows them)."""
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
        self.heading_of = {}
        for group in sorted(grouped, key=titles.__getitem__):
            if group != NO_GROUP:
                self.heading_of[group] = len(rows)
                rows.append(group)
            rows.extend(grouped[group])
        self.sizes = {group: len(members) for group, members in grouped.items()}
        self._placed = placed
        return rows

    def set_rows(self, rows: list[Row]) -> None:
        self.rows = rows
        self._rows_of = None

    def rows_of(self, key: Key | None) -> list[int]:
        """The agent's rows (one a group it is in; ``None``: the first agent row)."""
        if self._rows_of is None:
            self._rows_of = {}
            for row, value in enumerate(self.rows):
                if len(value) == 2:
                    self._rows_of.setdefault(value, []).append(row)  # type: ignore[arg-type]
                    self._rows_of.setdefault(None, [row])
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
