"""The wheel holds every package: built from this checkout, installed into a fresh virtual
environment outside it, and run from there, every subcommand works.

How the fresh environment gets its third-party packages (measured on the 2-core machine):
installing torch, PySide6 and the rest into it would download or copy well over 1 GB per
run. Instead it is created without pip (0.04 s, against about 5 s with it), the wheel is
installed into it with ``--no-deps`` by this environment's pip (``pip --python``, about
1.5 s), and then one ``.pth`` path line lends it this environment's site-packages for the
third-party packages. A path listed in a ``.pth`` file is added to sys.path, but the ``.pth``
files inside it are not processed, so this environment's editable install of the checkout
(a ``.pth`` file and a finder) stays inactive; the fresh site-packages comes first on
sys.path, so ``model`` and ``visualizer`` come from the wheel, and every test checks it.
The line is written after pip has run, or pip would see the editable install's metadata
through it and call the wheel already installed.

Every command runs with its working directory outside the checkout and no PYTHONPATH, with
HOME and the XDG folders in the test's own folder. No timing is asserted; the timeouts are
generous for a machine running two copies of the suite at once.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import sysconfig
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.bench_report import check_quick_report
from visualizer import APP_ID
from visualizer.cli.desktop import escape_string, exec_argument
from visualizer.cli.version import declared_version
from visualizer.panels.registry import PANEL_KEYS

pytestmark = [pytest.mark.packaging, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
BUILD_FILES = ("pyproject.toml", "setup.py", "README.md")
PACKAGE_FOLDERS = ("model", "visualizer", "assets")  # assets/ is the package model.assets
TIMEOUT = 600  # seconds for any one command, on a busy machine
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    site_packages: Path
    work: Path  # the working directory of every command: outside the checkout
    env: dict[str, str]

    def bin(self, name: str) -> Path:
        return self.venv / ("Scripts" if os.name == "nt" else "bin") / name

    def run(self, *args: str | Path, program: str = "attnviz") -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.bin(program)), *map(str, args)],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )

    def attnviz(self, *args: str | Path) -> subprocess.CompletedProcess:
        """``attnviz ARGS`` of the fresh environment; fails the test unless it exits 0."""
        result = self.run(*args)
        assert result.returncode == 0, f"attnviz {' '.join(map(str, args))}:\n{result.stderr}"
        return result


def run_here(*args: str | Path, cwd: Path | None = None) -> None:
    result = subprocess.run(
        [str(arg) for arg in args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    base = tmp_path_factory.mktemp("packaging")
    # Built from a copy: pip builds in the source folder (build/, *.egg-info), which would
    # litter the checkout and collide when two runs build at once.
    source = base / "source"
    source.mkdir()
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, source / name)
    for name in PACKAGE_FOLDERS:
        shutil.copytree(ROOT / name, source / name, ignore=IGNORED)
    dist = base / "dist"
    run_here(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, source
    )
    (wheel,) = dist.glob("attention_visualizer-*.whl")

    venv = base / "fresh venv"  # a space, as a user's path may hold
    run_here(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    run_here(
        sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel
    )
    found = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    site_packages = Path(found.stdout.strip())
    lent = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site_packages / "_lent_dependencies.pth").write_text("".join(f"{path}\n" for path in lent))

    work = base / "work"
    work.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    env |= {
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHONNOUSERSITE": "1",
        "HOME": str(base / "home"),
        "XDG_CONFIG_HOME": str(base / "config"),
        "XDG_DATA_HOME": str(base / "data"),
        "XDG_CACHE_HOME": str(base / "cache"),
    }
    return Installed(wheel, venv, site_packages, work, env)


def checkout_files(folder: str) -> set[str]:
    """The files a package folder of the checkout holds, as paths in the wheel."""
    prefix = "model/assets" if folder == "assets" else folder
    files = set()
    for path in (ROOT / folder).rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files.add(f"{prefix}/{path.relative_to(ROOT / folder).as_posix()}")
    return files


def test_the_wheel_holds_every_file_of_every_package(installed):
    """Every module, checkpoint, curve, translation and desktop file of the checkout, and the
    shipped checkpoint byte for byte."""
    with zipfile.ZipFile(installed.wheel) as archive:
        names = set(archive.namelist())
        packaged = archive.read("model/assets/default.safetensors")
    for folder in PACKAGE_FOLDERS:
        missing = checkout_files(folder) - names
        assert not missing, f"not in the wheel: {sorted(missing)}"
    assert packaged == (ROOT / "assets" / "default.safetensors").read_bytes()
    assert {
        f"visualizer/desktop/{APP_ID}{suffix}" for suffix in (".desktop", ".svg", ".metainfo.xml")
    } <= names


# Imports what the commands import, then says where from.
WHERE_FROM = """
import json, sys
import model, visualizer, visualizer.cli.attnviz, visualizer.window.main_window, visualizer.bench.steps
from model.shipped import default_checkpoint_path
print(json.dumps({"files": [model.__file__, visualizer.__file__, visualizer.cli.attnviz.__file__,
                            str(default_checkpoint_path())],
                  "path": sys.path, "finders": [type(f).__name__ for f in sys.meta_path]}))
"""


def test_model_and_visualizer_come_from_the_fresh_environment(installed):
    result = installed.run("-c", WHERE_FROM, program="python")
    assert result.returncode == 0, result.stderr
    where = json.loads(result.stdout)
    for file in where["files"]:
        assert Path(file).is_relative_to(installed.site_packages), file
    assert str(ROOT) not in where["path"]
    assert not any("editable" in finder.lower() for finder in where["finders"]), where["finders"]


def test_version_names_the_installed_release(installed):
    assert (
        installed.attnviz("--version").stdout.strip()
        == f"attnviz {declared_version(ROOT / 'pyproject.toml')}"
    )


def test_the_headless_subcommands_run_from_the_installed_copy(installed):
    """trace on the shipped model; train a tiny model for a few steps, then eval, attribute,
    heads and half on it (small, so each runs in seconds)."""
    work = installed.work
    installed.attnviz("train", "--config", "tiny", "--steps", "3", "--out", work / "tiny.safetensors")
    assert (work / "tiny.safetensors").stat().st_size > 0
    tiny = ("--checkpoint", work / "tiny.safetensors")
    commands = [
        ("trace", "--text", "reverse: abc", "--out", work / "trace.npz"),
        ("eval", *tiny, "--n", "1", "--json", work / "eval.json"),
        (
            "attribute",
            *tiny,
            "--text",
            "reverse: ab",
            "--step",
            "1",
            "--ig-steps",
            "4",
            "--json",
            work / "a.json",
        ),
        ("heads", *tiny, "--n", "2", "--task", "reverse", "--no-prune", "--json", work / "heads.json"),
        ("half", work / "tiny.safetensors", "--out", work / "tiny-half.safetensors"),
    ]
    with ThreadPoolExecutor(max_workers=2) as pool:  # two at a time: the machine's two cores
        results = list(pool.map(lambda args: installed.run(*args), commands))
    for args, result in zip(commands, results, strict=True):
        assert result.returncode == 0, f"attnviz {args[0]}:\n{result.stderr}"
    assert results[0].stdout.strip() == "cba"  # the shipped model reverses
    assert json.loads((work / "trace.json").read_text())["output_text"] == "cba"
    for name in ("trace.npz", "tiny-half.safetensors"):
        assert (work / name).stat().st_size > 0
    for name in ("eval.json", "a.json", "heads.json"):
        assert json.loads((work / name).read_text())


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's header (its IHDR chunk comes first)."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[12:16] == b"IHDR", path
    return struct.unpack(">II", header[16:24])


def test_a_screenshot_of_every_page_from_the_installed_copy(installed):
    """The main view and every page of panels.registry.PANELS, each in its own fresh process."""
    pages = ("attention", *PANEL_KEYS)
    shots = {page: installed.work / f"page-{page}.png" for page in pages}

    def screenshot(page: str) -> subprocess.CompletedProcess:
        args = ("--text", "reverse: abc", "--steps", "2", "--panel", page, "--size", "960x640")
        return installed.run(*args, "--screenshot", shots[page])

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(pages, pool.map(screenshot, pages), strict=True))
    for page, result in results.items():
        assert result.returncode == 0, f"--panel {page}:\n{result.stderr}"
        assert png_size(shots[page]) == (960, 640), page


def test_bench_quick_runs_from_the_installed_copy(installed):
    """Every part runs, the start-up's fresh processes (``python -m visualizer``) and the training
    process included, and the report says what it must (tests/bench_report.py). The figures are
    the benchmark's business; its waits give up only after minutes, so a part that fails here
    (a module or a file missing from the wheel, a timeout) is a real failure."""
    out = installed.work / "bench.json"
    result = installed.run("bench", "--quick", "--json", out)
    assert result.returncode == 0 and out.is_file(), result.stderr
    check_quick_report(json.loads(out.read_text()))


def test_install_desktop_points_at_the_installed_attnviz(installed):
    data = Path(installed.env["XDG_DATA_HOME"])
    line = installed.attnviz("install-desktop").stdout.strip()
    assert line.startswith("attnviz: installed") and str(data) in line
    entry = data / "applications" / f"{APP_ID}.desktop"
    keys = dict(line.split("=", 1) for line in entry.read_text().splitlines() if "=" in line)
    script = str(installed.bin("attnviz"))
    assert keys["TryExec"] == escape_string(script) and keys["Exec"] == exec_argument(script)
    assert keys["Exec"].startswith('"')  # quoted: the path has a space
    assert (data / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    if shutil.which("desktop-file-validate"):
        run_here("desktop-file-validate", entry)
    assert installed.attnviz("install-desktop", "--uninstall").stdout.startswith("attnviz: removed 3")
    assert not entry.exists()
