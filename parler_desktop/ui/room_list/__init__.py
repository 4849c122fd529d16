"""The room list panel: filter, rows with badges, the agents' dots and the room's context menu."""
