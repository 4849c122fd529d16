"""The chosen scheme's colours applied to the application, and View → Appearance."""
