"""Light and dark: which scheme the window shows, and every colour of each."""
