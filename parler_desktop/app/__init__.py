"""The single Qt seam: the session bridge, list models, read tracking and connection status.

QtCore/QtGui only; widgets live in ``parler_desktop.ui``.
"""
