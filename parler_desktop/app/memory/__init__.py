"""A room's shared memory: the facts its agents (and the human) remembered."""
