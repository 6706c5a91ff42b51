"""What every ``attnviz`` subcommand shares: one-line usage errors, --overwrite, the model to load."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_USAGE = 2


class UsageError(Exception):
    """A mistake by the user: printed as one line, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
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


def add_language_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--src-lang", help="multilingual models (NLLB, mBART-50): the source's language code, e.g. eng_Latn"
    )
    parser.add_argument(
        "--tgt-lang", help="multilingual models: the language to write (forced first), e.g. fra_Latn"
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
