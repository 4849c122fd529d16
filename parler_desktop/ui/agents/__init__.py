"""The Agents view and an agent's card."""
