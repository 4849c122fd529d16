"""Work dispatched to a role in a service room, and what became of it."""
