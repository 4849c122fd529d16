"""Dispatch to role…: the dialog, the dispatched-work panel and their hookup."""
