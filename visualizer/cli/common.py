"""What every ``attnviz`` subcommand shares: one-line usage errors, --overwrite, the model to load."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_USAGE = 2


class UsageError(Exception):
    """A mistake by the user: printed as one line, exit status 2."""


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """``--help`` states each option's default: "(default: X)" after its help, unless the help
    says its default itself (an option whose default is None says in words what it is), or the
    option is a flag (off unless given)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "(default" in text
            or not action.option_strings
            or action.nargs == 0  # --overwrite, --quick, --help: flags
            or default is None
            or default is argparse.SUPPRESS
        ):
            return action.help
        return f"{text} (default: %(default)s)"


class OneLineParser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", DefaultsHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # argparse prints usage over several lines
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def add_overwrite_option(parser: argparse.ArgumentParser, subcommand: bool = False) -> None:
    default = argparse.SUPPRESS if subcommand else False
    parser.add_argument(
        "--overwrite", action="store_true", default=default, help="replace output files that already exist"
    )


def refuse_to_overwrite(args: argparse.Namespace, *paths: Path) -> None:
    """Raise UsageError if an output file exists and --overwrite was not given."""
    if getattr(args, "overwrite", False):
        return
    for path in paths:
        if path.exists():
            raise UsageError(f"attnviz: {path} already exists; pass --overwrite to replace it")


def add_model_options(parser: argparse.ArgumentParser, checkpoint: bool = True) -> None:
    """A subcommand's ``--checkpoint`` and ``--device`` (either may also come before it)."""
    if checkpoint:
        parser.add_argument(
            "--checkpoint",
            type=Path,
            dest="sub_checkpoint",
            metavar="PATH",
            help="the model (default: the shipped model)",
        )
    parser.add_argument(
        "--device", dest="sub_device", metavar="DEVICE", help="cpu, cuda, mps or auto (default: auto)"
    )


def add_language_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--src-lang",
        help="multilingual models (NLLB, mBART-50): the source's language code, e.g. eng_Latn "
        "(default: the model's own)",
    )
    parser.add_argument(
        "--tgt-lang",
        help="multilingual models: the language to write (forced first), e.g. fra_Latn "
        "(default: the model's own)",
    )


def apply_languages(family, args: argparse.Namespace) -> None:
    """``--src-lang`` and ``--tgt-lang`` on a loaded model; a code it lacks is a usage error."""
    source, target = getattr(args, "src_lang", None), getattr(args, "tgt_lang", None)
    if source is None and target is None:
        return
    try:
        family.set_languages(source, target)
    except ValueError as error:
        raise UsageError(f"attnviz: {error}") from error


def checkpoint_arg(args: argparse.Namespace) -> Path:
    from model.shipped import default_checkpoint_path

    path = getattr(args, "sub_checkpoint", None) or args.checkpoint
    if path is None:
        path = default_checkpoint_path()
        if not path.is_file():
            raise UsageError(f"attnviz: the shipped checkpoint {path} is missing; pass --checkpoint PATH")
    return path


def device_arg(args: argparse.Namespace) -> str:
    return getattr(args, "sub_device", None) or args.device


def load(args: argparse.Namespace):
    from model.registry import open_model

    checkpoint = open_model(checkpoint_arg(args), device_arg(args))
    if checkpoint.notice:
        print(f"attnviz: {checkpoint.notice}", file=sys.stderr)
    apply_languages(checkpoint, args)
    return checkpoint
