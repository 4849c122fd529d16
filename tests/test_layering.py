"""The layers of docs/architecture.md: only app/ and ui/ import PySide6, only ui/ QtWidgets.

Every parametrized case checks something: a file is a case of a rule only if the rule applies to
its layer, and ``test_every_layer_has_its_rules`` makes sure no layer escapes them all.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "parler_desktop"
SOURCES = sorted(PACKAGE.rglob("*.py"))


def layer_of(path: Path) -> str:
    return path.relative_to(PACKAGE).parts[0]


def imported_modules(path: Path, *, module_level_only: bool = False) -> set[str]:
    """Modules ``path`` imports; ``module_level_only`` leaves out imports inside functions and
    ``if TYPE_CHECKING:`` blocks (those never run when the module is loaded)."""
    names: set[str] = set()
    pending: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        if module_level_only and (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            or (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        ):
            continue
        pending.extend(ast.iter_child_nodes(node))
    return names


def cases(layers: object) -> list[Path]:
    return [path for path in SOURCES if layer_of(path) in layers]


def case_id(path: Path) -> str:
    return str(path.relative_to(PACKAGE))


QT = ("PySide6", "qasync")
BELOW_THE_QT_SEAM = (
    "protocol", "hub", "client", "demo", "store", "identity.py", "paths.py", "file_lock.py", "instance_lock.py",
    "atomic_file.py", "disk_errors.py", "settings.py", "__init__.py", "__main__.py", "assets.py", "logs.py", "system_libs.py",
    "window_state.py", "platform", "stop_signals.py",
)
# What each layer must not import from Qt; ui/ may import all of it, so it has no case here.
QT_FORBIDDEN = {**{layer: QT for layer in BELOW_THE_QT_SEAM}, "app": ("PySide6.QtWidgets",)}

# What each layer may import from the package (imports point down the list). cli/ is the
# composition root and may import every layer, so it has no case here.
ALLOWED = {
    "protocol": {"protocol"},
    "identity.py": {"protocol", "atomic_file", "disk_errors", "platform"},
    "paths.py": set(),
    "assets.py": set(),
    "logs.py": {"protocol"},
    "system_libs.py": set(),
    "platform": {"platform", "assets", "atomic_file", "instance_lock", "paths"},
    "file_lock.py": set(),
    "atomic_file.py": set(),
    "disk_errors.py": set(),
    "instance_lock.py": {"paths", "file_lock"},
    "settings.py": {"paths", "atomic_file", "disk_errors", "protocol", "platform"},
    "window_state.py": {"atomic_file"},
    "stop_signals.py": set(),
    "hub": {"hub", "protocol", "identity", "paths", "file_lock", "atomic_file", "disk_errors"},
    "store": {"store", "protocol", "disk_errors", "file_lock"},
    "client": {"client", "protocol", "identity", "store", "paths", "settings", "disk_errors", "platform", "logs", "stop_signals"},
    "demo": {"demo", "client", "protocol", "identity"},
    "app": {
        "app", "client", "protocol", "identity", "store", "paths", "settings", "hub", "atomic_file", "disk_errors", "assets",
        "platform",
    },
    "ui": {
        "ui", "app", "demo", "platform", "client", "protocol", "identity", "store", "paths", "settings", "window_state", "hub",
        "disk_errors",
    },
    "__init__.py": set(),
    "__main__.py": {"cli"},
}


def test_every_layer_has_its_rules():
    """A new top-level module or package must be placed in the lists above."""
    layers = {layer_of(path) for path in SOURCES}
    assert len(SOURCES) > 5
    unplaced = sorted(layers - set(QT_FORBIDDEN) - {"ui", "cli"}) + sorted(layers - set(ALLOWED) - {"cli"})
    assert not unplaced, f"list {sorted(set(unplaced))} in BELOW_THE_QT_SEAM (or QT_FORBIDDEN) and in ALLOWED"
    assert set(QT_FORBIDDEN) | {"ui", "cli"} == layers == set(ALLOWED) | {"cli"}  # and nothing listed is gone


@pytest.mark.parametrize("path", cases(QT_FORBIDDEN), ids=case_id)
def test_qt_stays_in_app_and_ui(path: Path):
    forbidden = QT_FORBIDDEN[layer_of(path)]
    assert sorted(m for m in imported_modules(path) if m.startswith(forbidden)) == []


@pytest.mark.parametrize("path", cases({"cli"}), ids=case_id)
def test_the_command_line_loads_qt_only_when_a_window_is_wanted(path: Path):
    """The headless commands (listen, send, join, hub) must run where Qt cannot even load."""
    assert sorted(m for m in imported_modules(path, module_level_only=True) if m.startswith(QT)) == []


@pytest.mark.parametrize("path", cases({"protocol"}), ids=case_id)
def test_protocol_is_pure_values(path: Path):
    assert sorted(m for m in imported_modules(path) if m.split(".")[0] in ("asyncio", "websockets", "sqlite3")) == []


@pytest.mark.parametrize("path", cases(ALLOWED), ids=case_id)
def test_imports_point_down(path: Path):
    used = {
        m.split(".")[1].removesuffix(".py")
        for m in imported_modules(path)
        if m.startswith("parler_desktop.")
    }
    allowed = {name.removesuffix(".py") for name in ALLOWED[layer_of(path)]}
    assert used <= allowed, f"{path} imports {sorted(used - allowed)} from above its layer"
