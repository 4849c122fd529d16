"""The timeline view: rows painted by a delegate (no widget per message), their layout, links, cards and actions."""
