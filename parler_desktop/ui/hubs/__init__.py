"""Hubs in the window: the connection line, the Hub menu's room actions and invite links from outside."""
