"""The layers of docs/architecture.md: only app/ and ui/ import PySide6, only ui/ QtWidgets."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "parler_desktop"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_sources_found():
    assert len(SOURCES) > 5


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_qt_stays_in_app_and_ui(path: Path):
    layer = path.relative_to(PACKAGE).parts[0]
    modules = imported_modules(path)
    uses_qt = any(m.startswith("PySide6") or m == "qasync" for m in modules)
    uses_widgets = any(m.startswith("PySide6.QtWidgets") for m in modules)
    if layer in ("protocol", "hub", "client", "store", "identity.py", "paths.py", "file_lock.py", "instance_lock.py", "atomic_file.py", "disk_errors.py"):
        assert not uses_qt, f"{path} is below the Qt seam but imports Qt"
    if layer == "app":
        assert not uses_widgets, f"{path} is in app/ but imports QtWidgets"
    if layer == "protocol":
        assert not any(m.split(".")[0] in ("asyncio", "websockets", "sqlite3") for m in modules)


# What each layer may import from the package (design.md §2: imports point down the list).
ALLOWED = {
    "protocol": {"protocol"},
    "identity.py": {"protocol", "atomic_file"},
    "paths.py": set(),
    "file_lock.py": set(),
    "atomic_file.py": set(),
    "disk_errors.py": set(),
    "instance_lock.py": {"paths", "file_lock"},
    "settings.py": {"paths", "atomic_file", "disk_errors"},
    "hub": {"hub", "protocol", "identity", "paths", "file_lock", "atomic_file", "disk_errors"},
    "store": {"store", "protocol", "disk_errors"},
    "client": {"client", "protocol", "identity", "store", "paths", "settings", "disk_errors"},
    "app": {"app", "client", "protocol", "identity", "store", "paths", "settings", "hub", "atomic_file", "disk_errors"},
    "ui": {"ui", "app", "client", "protocol", "identity", "store", "paths", "settings", "hub", "disk_errors"},
}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path: Path):
    layer = path.relative_to(PACKAGE).parts[0]
    if layer not in ALLOWED:
        return  # cli/ is the composition root; __init__/__main__ are the package entry
    used = {
        m.split(".")[1].removesuffix(".py")
        for m in imported_modules(path)
        if m.startswith("parler_desktop.")
    }
    allowed = {name.removesuffix(".py") for name in ALLOWED[layer]}
    assert used <= allowed, f"{path} imports {sorted(used - allowed)} from above its layer"
