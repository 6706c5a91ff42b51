"""``attnviz eval``: exact match per task on fresh held-out examples (``model.tasks.evaluate``),
or, with ``--by-length``, for every input length (``model.tasks.by_length``). Minutes of work
with the defaults: a bar on the terminal shows how far it is (``visualizer.cli.progress``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from visualizer.cli.common import (
    UsageError,
    add_model_options,
    add_overwrite_option,
    load,
    refuse_to_overwrite,
)
from visualizer.cli.progress import progress_bar


def add_eval_parser(sub) -> None:
    evaluate = sub.add_parser("eval", help="exact-match accuracy per task on held-out examples")
    add_model_options(evaluate)
    evaluate.add_argument("--n", type=int, default=1000, help="examples per task, and per date form")
    evaluate.add_argument("--seed", type=int, default=0, help="which fresh examples")
    evaluate.add_argument("--json", type=Path, help="also write the report as JSON (default: not written)")
    evaluate.add_argument(
        "--heads", action="store_true", help="also measure what each cross-attention head does"
    )
    evaluate.add_argument(
        "--by-length",
        action="store_true",
        help="instead: exact match for every input length, each to a ±3 %% interval (see --task)",
    )
    evaluate.add_argument(
        "--task", choices=("reverse", "sort"), default="reverse", help="with --by-length: the task"
    )
    evaluate.add_argument(
        "--max-length", type=int, default=48, help="with --by-length: the longest input length measured"
    )
    add_overwrite_option(evaluate, subcommand=True)


def cmd_eval(args: argparse.Namespace) -> int:
    from model.tasks.evaluate import evaluate_model

    if args.n < 1:
        raise UsageError("attnviz eval: --n must be at least 1")
    if args.json:
        refuse_to_overwrite(args, args.json)
    checkpoint = load(args)
    if args.by_length:
        return eval_by_length(args, checkpoint)
    with progress_bar("eval"):
        report = evaluate_model(checkpoint, args.n, seed=args.seed)
    print(report.table())
    below = [key for key in [*report.total, *report.distances] if report.met(key) is False]
    print("\nevery target met" if not below else f"\nbelow target: {', '.join(below)}")
    if args.heads:
        from model.tasks.analysis import head_roles

        with progress_bar("eval --heads"):
            roles = head_roles(checkpoint, n=min(args.n, 200), seed=args.seed)
        print()
        print("where each cross-attention head puts its largest weight (share of output tokens):")
        print(roles.table())
    if args.json:
        args.json.write_text(json.dumps(report.to_dict(), indent=1))
    return 0


def eval_by_length(args: argparse.Namespace, checkpoint) -> int:
    from model.core.progress import report
    from model.tasks.by_length import measure_by_length

    def progress(length: int, total: int) -> None:
        report(length / total, f"input length {length} of {total}")

    name = Path(checkpoint.path).name if checkpoint.path is not None else checkpoint.info.display_name
    with progress_bar("eval --by-length"):
        curve = measure_by_length(
            checkpoint, args.task, name=name, seed=args.seed, max_length=args.max_length, progress=progress
        )
    print(curve.table())
    if args.json:
        args.json.write_text(json.dumps(curve.to_dict(), indent=1))
    return 0
