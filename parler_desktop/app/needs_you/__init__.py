"""Needs you: what waits on the human across every hub (design.md §4b)."""
