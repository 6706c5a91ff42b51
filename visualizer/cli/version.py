"""``attnviz --version``: the installed distribution's version, read without torch or Qt."""

from __future__ import annotations

import argparse
import re
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "attention-visualizer"
# a source checkout: the project file beside the package
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def version() -> str:
    """The version pip recorded when it installed this copy (an editable install included);
    in a checkout that was never installed, the one pyproject.toml declares, said as such."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    declared = declared_version(PYPROJECT)
    return f"{declared} (not installed: {PYPROJECT.parent})" if declared else "unknown (not installed)"


def declared_version(pyproject: Path) -> str | None:
    """``[project] version`` of a pyproject.toml, or None. A pattern rather than tomllib,
    which Python 3.10 (still supported) lacks; the line is ours and plain."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, flags=re.MULTILINE)
    return found.group(1) if found else None


class VersionAction(argparse.Action):
    """Like argparse's ``action="version"``, but the version is looked up only when asked:
    reading the installed metadata costs a scan of sys.path that every other start skips."""

    def __init__(
        self,
        option_strings: list[str],
        dest: str = argparse.SUPPRESS,
        default: object = argparse.SUPPRESS,
        help: str | None = None,
    ) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit(0)
