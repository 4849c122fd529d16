"""What the human is writing: each room's draft."""
