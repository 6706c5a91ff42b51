"""``attnviz install-desktop``: the app in the Linux desktop's menus, for this user.

Three files ship in ``visualizer/desktop/`` and are installed under ``$XDG_DATA_HOME``
(``~/.local/share`` when unset), where freedesktop.org desktops look for a user's own apps:

    applications/<APP_ID>.desktop                 the menu entry, which runs this installation
    icons/hicolor/scalable/apps/<APP_ID>.svg      its icon
    metainfo/<APP_ID>.metainfo.xml                what software centres show (AppStream)

``--uninstall`` removes exactly those three. Installing again replaces them (after an upgrade
or a move the entry must name the new ``attnviz``), so neither needs ``--overwrite``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

from visualizer import APP_ID
from visualizer.cli.common import UsageError

# where each shipped file goes, under the data home
DESTINATIONS = {
    f"{APP_ID}.desktop": Path("applications"),
    f"{APP_ID}.svg": Path("icons/hicolor/scalable/apps"),
    f"{APP_ID}.metainfo.xml": Path("metainfo"),
}
# characters that make the Desktop Entry spec's Exec key quote an argument
EXEC_RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")
NOT_FREEDESKTOP = {"darwin": "macOS", "win32": "Windows", "cygwin": "Windows"}


def add_desktop_parser(sub) -> None:
    desktop = sub.add_parser(
        "install-desktop",
        help="add the app to this user's Linux desktop menus (a desktop entry, icon and metainfo)",
    )
    desktop.add_argument(
        "--uninstall", action="store_true", help="remove the three files install-desktop wrote"
    )


def cmd_install_desktop(args: argparse.Namespace) -> int:
    if sys.platform in NOT_FREEDESKTOP:
        raise UsageError(
            f"attnviz install-desktop: desktop entries are for Linux desktops; on "
            f"{NOT_FREEDESKTOP[sys.platform]}, start the app with `attnviz` from a terminal"
        )
    home = data_home()
    print(uninstall(home) if args.uninstall else install(home))
    return 0


def data_home() -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share``; a relative value is ignored, as the XDG
    Base Directory spec says."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def installed_paths(home: Path) -> list[Path]:
    return [home / folder / name for name, folder in DESTINATIONS.items()]


def install(home: Path) -> str:
    """Write the three files (replacing our own earlier ones); the line that says so."""
    command, workdir = launcher()
    shipped = resources.files("visualizer") / "desktop"
    existed = any(path.exists() for path in installed_paths(home))
    for name, folder in DESTINATIONS.items():
        target = home / folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        data = (shipped / name).read_bytes()
        if name.endswith(".desktop"):
            data = desktop_entry(data.decode("utf-8"), command, workdir).encode("utf-8")
        target.write_bytes(data)
    refresh_caches(home)
    verb = "replaced" if existed else "installed"
    return (
        f"attnviz: {verb} the desktop entry, icon and metainfo of {APP_ID} in {home} "
        f"(the menu entry runs {' '.join(command)})"
    )


def uninstall(home: Path) -> str:
    """Remove the three files, and nothing else; the line that says what was removed."""
    removed = []
    for path in installed_paths(home):
        if path.exists():
            path.unlink()
            removed.append(path.name)
    if not removed:
        return f"attnviz: nothing to remove: {APP_ID} has no desktop files in {home}"
    refresh_caches(home)
    return f"attnviz: removed {len(removed)} desktop file(s) of {APP_ID} from {home}: {', '.join(removed)}"


def launcher() -> tuple[list[str], Path | None]:
    """The command that starts this installation, and the folder to start it in (None: any).

    The ``attnviz`` script that is running, or the one beside the interpreter of the
    environment the package is installed in (pipx and uv link theirs onto PATH). Code run
    from a checkout (an editable install, or PYTHONPATH) is not what the environment's script
    would import: there it is this interpreter with ``-m visualizer``, started in the folder
    that holds the package so that ``-m`` finds it.
    """
    script = Path(sys.argv[0])
    if script.name == "attnviz" and script.is_file():  # run as `attnviz install-desktop`
        return [str(script.absolute())], None
    package = Path(__file__).resolve().parents[1]
    if package.is_relative_to(Path(sys.prefix).resolve()):
        beside = Path(sys.executable).parent / "attnviz"
        return ([str(beside)] if beside.is_file() else [sys.executable, "-m", "visualizer"]), None
    return [sys.executable, "-m", "visualizer"], package.parent


def desktop_entry(template: str, command: list[str], workdir: Path | None) -> str:
    """The shipped entry with its ``Exec`` line running ``command``; ``TryExec`` names the
    program, so that desktops hide the entry once that installation is gone."""
    for part in (*command, str(workdir or "")):
        if any(ord(char) < 32 for char in part):
            raise UsageError(f"attnviz install-desktop: a desktop entry cannot name the path {part!r}")
    lines = [f"TryExec={escape_string(command[0])}", f"Exec={' '.join(map(exec_argument, command))}"]
    if workdir is not None:
        lines.append(f"Path={escape_string(str(workdir))}")
    entry, count = re.subn(r"^Exec=.*$", lambda _: "\n".join(lines), template, count=1, flags=re.MULTILINE)
    if count != 1:
        raise RuntimeError("the shipped desktop entry has no Exec line")
    return entry


def exec_argument(argument: str) -> str:
    """One argument of an ``Exec`` value (Desktop Entry spec, "The Exec key"): quoted when it
    holds a reserved character, with ``"`` `` ` `` ``$`` ``\\`` escaped inside the quotes; then
    escaped as any string value, and ``%`` doubled so that it is not read as a field code."""
    if any(char in EXEC_RESERVED for char in argument):
        argument = '"' + re.sub(r'(["`$\\])', r"\\\1", argument) + '"'
    return escape_string(argument).replace("%", "%%")


def escape_string(value: str) -> str:
    """A string value of a desktop entry: a backslash is written as two."""
    return value.replace("\\", "\\\\")


def refresh_caches(home: Path) -> None:
    """Tell the desktop about the change where its tools are installed; never fails.

    ``update-desktop-database`` indexes the entries. An icon cache is refreshed only where one
    already exists or the folder is a full theme (index.theme), as xdg-icon-resource does:
    without a cache, desktops read the folder itself, and a cache created here that nothing
    else keeps up to date would only go stale.
    """
    applications = home / "applications"
    hicolor = home / "icons" / "hicolor"
    commands = [["update-desktop-database", "-q", str(applications)]]
    if (hicolor / "icon-theme.cache").exists() or (hicolor / "index.theme").exists():
        commands.append(["gtk-update-icon-cache", "-q", "-t", "-f", str(hicolor)])
    for command in commands:
        if shutil.which(command[0]) is None or not Path(command[-1]).is_dir():
            continue
        with contextlib.suppress(OSError, subprocess.SubprocessError):  # the files are in place anyway
            subprocess.run(command, capture_output=True, timeout=60, check=False)
