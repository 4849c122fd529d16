"""The composer and the per-room draft it keeps."""
