"""The frozen app's entry point (PyInstaller needs a script): the same ``main`` as the command."""

from parler_desktop.cli import main

raise SystemExit(main())
