"""``attnviz install-desktop``: the desktop entry, icon and AppStream metainfo, valid, installed
for the user into $XDG_DATA_HOME and removed again, exactly those three files."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from visualizer import APP_ID
from visualizer.cli import desktop
from visualizer.cli.attnviz import main
from visualizer.cli.version import declared_version

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "visualizer" / "desktop"
ENTRY, ICON, METAINFO = (SHIPPED / name for name in desktop.DESTINATIONS)


def validate(tool: str, *args: str) -> None:
    """Run a validator; skip (saying which package has it) where it is not installed."""
    if shutil.which(tool) is None:
        package = {"desktop-file-validate": "desktop-file-utils", "appstreamcli": "appstream"}[tool]
        pytest.skip(f"{tool} is not installed (Debian/Ubuntu: apt-get install {package})")
    result = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    # desktop-file-validate's hints are advice (two main categories, Education and Science,
    # are meant); an error or a warning fails
    problems = [line for line in (result.stdout + result.stderr).splitlines() if "error:" in line]
    assert not problems, problems


@pytest.fixture
def data_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "data home"  # a space, as a user's path may hold
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def test_the_shipped_desktop_entry_is_valid():
    validate("desktop-file-validate", str(ENTRY))


def test_the_shipped_metainfo_is_valid_and_names_the_entry_and_this_version():
    validate("appstreamcli", "validate", "--no-net", str(METAINFO))
    component = ElementTree.parse(METAINFO).getroot()
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable") == ENTRY.name
    assert component.find("releases/release").get("version") == declared_version(ROOT / "pyproject.toml")


def test_the_icon_is_a_square_svg():
    svg = ElementTree.parse(ICON).getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.get("viewBox") == "0 0 128 128"


def test_install_writes_the_three_files_and_uninstall_removes_exactly_those(data_home, capsys):
    assert main(["install-desktop"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("attnviz: installed") and str(data_home) in line
    entry = data_home / "applications" / f"{APP_ID}.desktop"
    icon = data_home / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg"
    metainfo = data_home / "metainfo" / f"{APP_ID}.metainfo.xml"
    assert icon.read_bytes() == ICON.read_bytes() and metainfo.read_bytes() == METAINFO.read_bytes()
    keys = dict(line.split("=", 1) for line in entry.read_text().splitlines() if "=" in line)
    assert keys["Icon"] == APP_ID and keys["Terminal"] == "false"
    assert {"Education", "Science"} <= set(keys["Categories"].split(";")) and keys["Keywords"]
    # run from this checkout (not installed in the test's environment): the interpreter with
    # -m visualizer, started where the package is found
    assert keys["Exec"] == f"{desktop.exec_argument(sys.executable)} -m visualizer"
    assert keys["TryExec"] == desktop.escape_string(sys.executable)
    assert keys["Path"] == desktop.escape_string(str(ROOT))
    validate("desktop-file-validate", str(entry))

    assert main(["install-desktop"]) == 0  # again: the same files, replaced
    assert capsys.readouterr().out.startswith("attnviz: replaced")
    other = data_home / "applications" / "someone.else.desktop"
    other.write_text("[Desktop Entry]\n")
    assert main(["install-desktop", "--uninstall"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("attnviz: removed 3 desktop file(s)")
    assert not entry.exists() and not icon.exists() and not metainfo.exists()
    assert other.exists()
    assert main(["install-desktop", "--uninstall"]) == 0
    assert capsys.readouterr().out.startswith("attnviz: nothing to remove")


def test_caches_are_refreshed_where_the_tools_exist_and_skipped_where_not(data_home, monkeypatch, capsys):
    ran = []
    monkeypatch.setattr(desktop.subprocess, "run", lambda command, **_: ran.append(command[0]))
    (data_home / "icons" / "hicolor").mkdir(parents=True)
    (data_home / "icons" / "hicolor" / "icon-theme.cache").write_bytes(b"")  # a cache to refresh
    monkeypatch.setattr(desktop.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert main(["install-desktop"]) == 0
    assert ran == ["update-desktop-database", "gtk-update-icon-cache"]
    ran.clear()
    monkeypatch.setattr(desktop.shutil, "which", lambda name: None)
    assert main(["install-desktop", "--uninstall"]) == 0 and ran == []
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_a_relative_xdg_data_home_is_ignored(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", "relative/share")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert desktop.data_home() == tmp_path / ".local" / "share"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert desktop.data_home() == tmp_path / ".local" / "share"


@pytest.mark.parametrize(
    ("argument", "written"),
    [
        ("/opt/attnviz/bin/attnviz", "/opt/attnviz/bin/attnviz"),
        ("/home/a b/attnviz", '"/home/a b/attnviz"'),
        ("/home/100%/attnviz", "/home/100%%/attnviz"),
        # quoted for $, then its backslash (and the one escaping it) written twice
        ("/srv/$x/attnviz", '"/srv/\\\\$x/attnviz"'),
        ('/srv/say "hi"/attnviz', '"/srv/say \\\\"hi\\\\"/attnviz"'),
        ("/srv/back\\slash/attnviz", '"/srv/back\\\\\\\\slash/attnviz"'),
    ],
)
def test_exec_arguments_are_quoted_and_escaped_as_the_spec_says(argument, written, tmp_path):
    assert desktop.exec_argument(argument) == written
    entry = tmp_path / f"{APP_ID}.desktop"
    entry.write_text(desktop.desktop_entry(ENTRY.read_text(), [argument, "-m", "visualizer"], None))
    validate("desktop-file-validate", str(entry))


def test_a_path_with_a_newline_is_refused():
    with pytest.raises(desktop.UsageError):
        desktop.desktop_entry(ENTRY.read_text(), ["/srv/a\nb/attnviz"], None)


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_elsewhere_than_linux_it_says_the_entry_is_linux_only(platform, monkeypatch, data_home, capsys):
    monkeypatch.setattr(sys, "platform", platform)
    assert main(["install-desktop"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "Linux" in line and not data_home.exists()
