"""The members panel."""
