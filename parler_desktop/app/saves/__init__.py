"""Shared files the human saves: streamed to disk, with progress, Cancel and what went wrong."""
