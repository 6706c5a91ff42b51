"""The command line's long work shows its progress on a terminal (``visualizer.cli.progress``, fed
by ``model.core.progress`` as the window's jobs are) and says nothing of it to a pipe; ``--help``
states every option's default; ``attnviz train --help`` names every recipe."""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from model.core.progress import report
from model.tasks.recipes import RECIPES
from tests.waits import PROCESS_S
from visualizer.cli.attnviz import build_parser, main
from visualizer.cli.progress import BAR_WIDTH, REDRAW_S, progress_bar

ROOT = Path(__file__).resolve().parents[2]
BAR = re.compile(r"\r(?P<title>[\w -]+) \[(?P<bar>[#.]+)\] +(?P<percent>\d+)%  \d+:\d\d  (?P<stage>[^\r]*)")


class Terminal(io.StringIO):
    """What stderr is in a terminal, as far as the bar can tell."""

    def isatty(self) -> bool:
        return True


def bars(text: str) -> list[tuple[str, int, str]]:
    """Each bar drawn: (title, percent, stage); the bar's length agrees with its percent."""
    drawn = []
    for match in BAR.finditer(text):
        filled = match["bar"].count("#")
        assert len(match["bar"]) == BAR_WIDTH and filled == round(int(match["percent"]) / 100 * BAR_WIDTH)
        drawn.append((match["title"], int(match["percent"]), match["stage"].strip()))
    return drawn


def test_the_bar_draws_what_the_work_reports_and_wipes_itself(monkeypatch):
    import visualizer.cli.progress as progress

    clock = [100.0]
    monkeypatch.setattr(progress, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress_bar("eval"):
        report(0.0, "decoding held-out examples")
        clock[0] += REDRAW_S / 2
        report(0.25, "decoding held-out examples")  # soon after the last: not drawn
        clock[0] += REDRAW_S
        report(0.5, "decoding held-out examples")
        clock[0] += REDRAW_S / 2
        report(1.0, "done")  # the end is always drawn
    text = terminal.getvalue()
    assert bars(text) == [
        ("eval", 0, "decoding held-out examples"),
        ("eval", 50, "decoding held-out examples"),
        ("eval", 100, "done"),
    ]
    assert "0:00" in text.split("\r")[1]
    *_, last, wipe, after = text.split("\r")
    assert wipe == " " * len(wipe) and len(wipe) >= len(last.rstrip()) and after == ""  # wiped


def test_the_bar_says_nothing_when_stderr_is_no_terminal():
    piped = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stderr", piped)
        with progress_bar("eval"):
            report(0.5, "decoding held-out examples")
            report(1.0, "done")
    assert piped.getvalue() == ""


def run_in_terminal(monkeypatch, capsys, argv: list[str]) -> tuple[int, str, str]:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(argv)
    return code, capsys.readouterr().out, terminal.getvalue()


def test_eval_shows_its_progress_on_a_terminal(tiny_checkpoint_path, monkeypatch, capsys):
    code, out, err = run_in_terminal(
        monkeypatch, capsys, ["eval", "--checkpoint", str(tiny_checkpoint_path), "--n", "1"]
    )
    assert code == 0 and ("every target met" in out or "below target" in out)
    drawn = bars(err)
    assert drawn[0] == ("eval", 0, "decoding held-out examples") and drawn[-1] == ("eval", 100, "done")
    assert [percent for _, percent, _ in drawn] == sorted(percent for _, percent, _ in drawn)


def test_eval_by_length_shows_each_length(tiny_checkpoint_path, monkeypatch, capsys):
    argv = ["eval", "--checkpoint", str(tiny_checkpoint_path), "--by-length", "--max-length", "2"]
    code, out, err = run_in_terminal(monkeypatch, capsys, argv)
    assert code == 0 and "length" in out
    assert bars(err)[-1] == ("eval --by-length", 100, "input length 2 of 2")


def test_heads_and_attribute_show_their_passes(tiny_checkpoint_path, monkeypatch, capsys):
    checkpoint = ["--checkpoint", str(tiny_checkpoint_path)]
    code, out, err = run_in_terminal(
        monkeypatch, capsys, ["heads", *checkpoint, "--text", "reverse: ab", "--no-prune"]
    )
    assert code == 0 and "most important" in out
    drawn = bars(err)
    assert drawn[0][0] == "heads" and drawn[-1][1] == 100 and drawn[-1][2].endswith("zeroed")
    argv = ["attribute", *checkpoint, "--text", "reverse: ab", "--step", "1", "--ig-steps", "2"]
    code, out, err = run_in_terminal(monkeypatch, capsys, argv)
    assert code == 0 and out.splitlines()[1].startswith("step   1")  # under the table's key line
    drawn = bars(err)
    assert drawn[0] == ("attribute", drawn[0][1], "the model's pass") and drawn[-1][:2] == ("attribute", 100)


def test_long_commands_print_no_progress_into_a_pipe(tiny_checkpoint_path, capsys):
    assert (
        main(["heads", "--checkpoint", str(tiny_checkpoint_path), "--text", "reverse: ab", "--no-prune"]) == 0
    )
    captured = capsys.readouterr()
    assert "\r" not in captured.err and "passes" not in captured.err and captured.err == ""


def parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    found = {"attnviz": parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found |= {f"attnviz {name}": sub for name, sub in action.choices.items()}
    return found


def test_every_option_states_its_default_in_help():
    """Each option's help says "(default: …)": argparse's own default, or in words where the
    default is not a value (the shipped model, the recipe's, not written); flags are off."""
    unstated = []
    for name, parser in parsers().items():
        formatter = parser._get_formatter()
        for action in parser._actions:
            if not action.option_strings or action.help == argparse.SUPPRESS or action.nargs == 0:
                continue
            if action.required:
                continue
            text = formatter._expand_help(action) if formatter._get_help_string(action) else ""
            if "(default: " not in text:
                unstated.append(f"{name} {action.option_strings[0]}")
            elif (
                action.default not in (None, argparse.SUPPRESS) and f"(default: {action.default})" not in text
            ):
                unstated.append(f"{name} {action.option_strings[0]} (says another default)")
    assert not unstated, unstated


def test_train_help_lists_every_recipe_without_importing_torch():
    code = (
        "import sys\n"
        "from visualizer.cli.attnviz import main\n"
        "try:\n"
        "    main(['train', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('torch' in sys.modules, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=PROCESS_S
    )
    assert result.returncode == 0 and result.stderr.strip() == "False", result.stderr
    listed = " ".join(result.stdout.split()).replace("- ", "-")  # argparse wraps at hyphens
    assert len(RECIPES) == 13
    for recipe in RECIPES:
        assert f" {recipe}," in listed or f" {recipe} " in listed, recipe
    assert main(["train", "--config", "huge", "--out", "x.safetensors"]) == 2
