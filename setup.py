"""Which packages the wheel holds; everything else is in pyproject.toml.

The assets live in the top-level ``resources/`` (icons, desktop entry, AppStream metainfo) and
ship inside the package as ``parler_desktop/resources``, where ``parler_desktop.assets`` finds
them. pyproject.toml cannot both discover packages and add a mapped one, hence this file.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["parler_desktop*"]), "parler_desktop.resources"],
    package_dir={"parler_desktop.resources": "resources"},
)
