"""The app's assets (icons, desktop entry, AppStream metainfo), installed as parler_desktop.resources."""
