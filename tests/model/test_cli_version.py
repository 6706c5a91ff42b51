"""``attnviz --version``: the installed version, printed without importing torch or Qt."""

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from visualizer.cli import version

ROOT = Path(__file__).resolve().parents[2]

# a fresh process: pytest-qt and the tests have imported torch and Qt in this one
PROBE = """
import json, sys
from visualizer.cli.attnviz import main
try:
    main(["--version"])
    code = None
except SystemExit as stop:
    code = stop.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & {"torch", "PySide6", "pyqtgraph", "numpy"})
print(json.dumps({"code": code, "heavy": heavy}))
"""


def test_version_prints_the_version_and_exits_0_without_torch_or_qt():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    printed, report = result.stdout.strip().splitlines()
    assert printed == f"attnviz {version.version()}"
    assert json.loads(report) == {"code": 0, "heavy": []}


def test_the_version_is_the_one_pyproject_declares():
    assert version.declared_version(ROOT / "pyproject.toml") == version.version().split()[0]


def test_a_checkout_that_was_never_installed_says_so(monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    declared = version.declared_version(ROOT / "pyproject.toml")
    assert version.version() == f"{declared} (not installed: {ROOT})"
    monkeypatch.setattr(version, "PYPROJECT", ROOT / "missing.toml")
    assert version.version() == "unknown (not installed)"
