"""Needs you wired into the window: the queue, its Today panel."""
