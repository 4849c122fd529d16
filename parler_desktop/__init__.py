"""parler-desktop: a desktop client for people who supervise AI agents on a Parler hub."""

__version__ = "0.1.0"
