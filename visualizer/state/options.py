"""The decoding options shared by ``attnviz``, its subcommands and the window (``--strategy`` …).

Apart from ``cli`` so that the window (``app``) can read them without importing the command
line, and the command line can start the window without a cycle.
"""

from __future__ import annotations

import argparse

DECODING_OPTIONS = {  # option dest -> DecodingSettings field
    "strategy": "strategy",
    "temperature": "temperature",
    "top_k": "top_k",
    "top_p": "top_p",
    "beam": "beam_width",
    "seed": "seed",
}


def add_decoding_options(parser: argparse.ArgumentParser, subcommand: bool = False) -> None:
    """Decoding options; unset ones take DecodingSettings' defaults.

    On a subcommand an unset option leaves the namespace alone, so that
    ``attnviz --strategy beam trace ...`` keeps the option given before the subcommand.
    """
    from model.generation.decoding_settings import STRATEGIES, DecodingSettings

    default = argparse.SUPPRESS if subcommand else None
    given = DecodingSettings()  # the defaults --help states
    group = parser.add_argument_group("decoding")
    group.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default=default,
        help=f"how each next token is chosen (default: {given.strategy})",
    )
    group.add_argument(
        "--temperature",
        type=float,
        default=default,
        help=f"sampling strategies divide the logits by this (default: {given.temperature})",
    )
    group.add_argument(
        "--top-k", type=int, default=default, help=f"topk: the likeliest tokens kept (default: {given.top_k})"
    )
    group.add_argument(
        "--top-p",
        type=float,
        default=default,
        help=f"topp: the probability the kept tokens reach (default: {given.top_p})",
    )
    group.add_argument("--beam", type=int, default=default, help=f"beam width (default: {given.beam_width})")
    group.add_argument(
        "--seed", type=int, default=default, help=f"the sampling strategies' seed (default: {given.seed})"
    )


def decoding_given(args: argparse.Namespace) -> bool:
    return any(getattr(args, dest, None) is not None for dest in DECODING_OPTIONS)


def decoding_settings(args: argparse.Namespace, base=None):
    """The settings the options ask for, on top of ``base`` (default: the defaults)."""
    from dataclasses import replace

    from model.generation.decoding_settings import DecodingSettings

    changes = {
        field: getattr(args, dest)
        for dest, field in DECODING_OPTIONS.items()
        if getattr(args, dest, None) is not None
    }
    return replace(base or DecodingSettings(), **changes)
