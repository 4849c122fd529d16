"""Room memory…: the panel of a room's facts, and its hookup."""
