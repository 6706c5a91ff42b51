"""``attnviz attribute``: which input tokens mattered for each output token, by attention and
by attribution (``model.attribution.methods``), as a table and as JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from visualizer.cli.common import (
    UsageError,
    add_language_options,
    add_model_options,
    add_overwrite_option,
    load,
    refuse_to_overwrite,
)
from visualizer.cli.progress import counted, progress_bar
from visualizer.state.options import add_decoding_options, decoding_settings


def add_attribute_parser(sub) -> None:
    attribution = sub.add_parser(
        "attribute", help="which input tokens mattered for each output token: attention beside attribution"
    )
    add_model_options(attribution)
    attribution.add_argument("--text", required=True, help='the source, e.g. "reverse: attention"')
    attribution.add_argument(
        "--step", type=int, action="append", help="output step (1-based; repeats) (default: every step)"
    )
    attribution.add_argument(
        "--layer", type=int, help="the attention head's decoder layer (1-based) (default: the last)"
    )
    attribution.add_argument("--head", type=int, default=1, help="the attention head (1-based)")
    attribution.add_argument(
        "--ig-steps", type=int, default=32, help="integrated gradients' points (before refinement)"
    )
    attribution.add_argument(
        "--occlusion",
        choices=("unk", "remove"),
        default="unk",
        help="replace each source token by <unk>, or remove it",
    )
    attribution.add_argument(
        "--baseline",
        choices=("pad", "zero"),
        default="pad",
        help="integrated gradients' baseline token vectors",
    )
    attribution.add_argument(
        "--json", type=Path, help="write every method's scores for each step as JSON (default: not written)"
    )
    add_language_options(attribution)
    add_decoding_options(attribution, subcommand=True)
    add_overwrite_option(attribution, subcommand=True)


def cmd_attribute(args: argparse.Namespace) -> int:
    import json

    from model.attribution.methods import AttributionSettings, attribute
    from model.generation.engine import GenerationEngine

    if not args.text.strip():
        raise UsageError("attnviz attribute: --text is empty")
    if args.json is not None:
        refuse_to_overwrite(args, args.json)
    settings = AttributionSettings(
        layer=None if args.layer is None else args.layer - 1,
        head=args.head - 1,
        ig_steps=args.ig_steps,
        occlusion=args.occlusion,
        baseline=args.baseline,
    )
    checkpoint = load(args)
    engine = GenerationEngine(checkpoint, args.text, decoding_settings(args), capture=False)
    engine.run_to_end()
    steps = None if not args.step else [step - 1 for step in args.step]
    if steps is not None and not all(0 <= t < len(engine.output_ids) for t in steps):
        raise UsageError(
            f"attnviz attribute: --step must lie in 1..{len(engine.output_ids)} (the output's steps)"
        )
    with progress_bar("attribute"):
        result = attribute(checkpoint, args.text, engine.output_ids, steps, settings, progress=counted)
    for method, reason in result.unavailable.items():
        print(f"attnviz: no {method}: {reason}", file=sys.stderr)
    print(attribution_table(result))
    if args.json is not None:
        data = result.to_json() | {"source": args.text, "checkpoint": str(checkpoint.path)}
        args.json.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


TOP_TOKENS = 3  # source tokens printed per method and step


def attribution_table(result) -> str:
    """Per computed step: the written token and its log-probability, then per method the
    ``TOP_TOKENS`` source tokens it scores highest (by |score| for the signed methods), each with
    its position (from 1, as ``--step`` counts) and its score: a source with four e's says which."""
    import numpy as np

    from model.attribution.results import SIGNED
    from visualizer.numbers import MISSING, number, score

    lines = [
        f"each method's top {TOP_TOKENS} source tokens: position (from 1), token, score "
        "(the signed methods ranked by |score|)"
    ]
    width = max(len(method) for method in result.scores) if result.scores else 0
    for t in result.steps:
        lines.append(f"step {t + 1:>3} {result.output_tokens[t]!r:<8} log p {number(result.logprob[t]):>7}")
        for method in result.scores:
            values = result.source_scores(method, t)
            signed = method in SIGNED
            strength = np.abs(values) if signed else values
            ranked = [int(i) for i in np.argsort(-strength, kind="stable") if np.isfinite(values[i])]
            cells = [
                f"{i + 1:>3} {result.source_tokens[i]!r:<8} {score(values[i], signed=signed):>8}"
                for i in ranked[:TOP_TOKENS]
            ]
            lines.append(f"  {method:<{width}}  " + ("   ".join(cells) if cells else MISSING))
    return "\n".join(lines)
