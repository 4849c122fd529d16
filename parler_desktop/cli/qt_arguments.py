"""Qt's own command-line options are Qt's: ``parler-desktop -platform xcb -style Fusion``.

Every Qt application accepts them (``-platform``, ``-style``, ``-reverse``, ``-session`` from a
session manager, …). They are taken out of the arguments before ours are parsed and handed to the
QApplication, which reads them itself. Written ``-name value``, ``-name=value`` or with two
dashes, as Qt accepts them; only the window (``gui``, ``demo``) has a use for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

# QGuiApplication's and QApplication's options (their documentation), X11's included.
WITH_VALUE = frozenset({
    "platform", "platformpluginpath", "platformtheme", "plugin", "qmljsdebugger", "qwindowgeometry", "qwindowicon",
    "qwindowtitle", "session", "style", "stylesheet", "display", "geometry",
})
FLAGS = frozenset({"reverse", "widgetcount", "nograb", "dograb"})
EQUALS_ONLY = frozenset({"qmljsdebugger"})  # Qt reads it only as -qmljsdebugger=VALUE


@dataclass
class SplitArguments:
    ours: list[str] = field(default_factory=list)
    qt: list[str] = field(default_factory=list)  # as Qt reads them: -name value, -flag


def platform_option(qt_arguments: Sequence[str]) -> str | None:
    """The platform plugin ``-platform`` chose (it wins over QT_QPA_PLATFORM; the last one given
    counts), if any."""
    chosen = [value for option, value in zip(qt_arguments, qt_arguments[1:]) if option == "-platform"]
    return chosen[-1] if chosen else None


def split_qt_arguments(argv: Sequence[str]) -> SplitArguments:
    """``argv`` as (ours, Qt's); ``--`` ends the options, and what follows it stays ours.
    Raises ValueError for a Qt option missing its value."""
    split = SplitArguments()
    arguments = iter(argv)
    for argument in arguments:
        if argument == "--":
            split.ours += [argument, *arguments]
            break
        name, equals, value = argument.lstrip("-").partition("=")
        if not argument.startswith("-") or argument.startswith("---"):
            split.ours.append(argument)
        elif name in FLAGS and not equals:
            split.qt.append(f"-{name}")
        elif name in WITH_VALUE:
            if not equals:
                value = next(arguments, None)
                if value is None:
                    raise ValueError(f"Qt's option -{name} needs a value")
            split.qt += [f"-{name}={value}"] if name in EQUALS_ONLY else [f"-{name}", value]
        else:
            split.ours.append(argument)
    return split
