"""Searching the stored messages."""
