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
    default = argparse.SUPPRESS if subcommand else None
    group = parser.add_argument_group("decoding (default: greedy; T 1.0, k 5, p 0.9, beam 4, seed 0)")
    group.add_argument("--strategy", choices=("greedy", "sample", "topk", "topp", "beam"), default=default)
    group.add_argument("--temperature", type=float, default=default)
    group.add_argument("--top-k", type=int, default=default)
    group.add_argument("--top-p", type=float, default=default)
    group.add_argument("--beam", type=int, help="beam width", default=default)
    group.add_argument("--seed", type=int, default=default)


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
