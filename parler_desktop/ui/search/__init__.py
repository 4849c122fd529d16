"""Search wired into the window."""
