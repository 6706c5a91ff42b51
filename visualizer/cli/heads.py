"""``attnviz heads``: how much each attention head matters (``model.attribution.heads``), as
layers × heads maps per kind of attention, the pruning curve, and JSON."""

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


def add_heads_parser(sub) -> None:
    heads = sub.add_parser(
        "heads", help="each head's importance: what the model loses when that head alone is zeroed"
    )
    add_model_options(heads)
    heads.add_argument(
        "--n", type=int, default=100, help="fresh task examples to measure on (models trained on the tasks)"
    )
    heads.add_argument("--seed", type=int, default=0, help="which fresh examples")
    heads.add_argument(
        "--task",
        action="append",
        help="only examples of this task (repeats): reverse, sort, date (default: every task)",
    )
    heads.add_argument(
        "--text",
        action="append",
        help="measure on this source instead (repeats); the reference is the task's answer, or the "
        "model's own output for a model without a known task (default: fresh task examples, --n)",
    )
    heads.add_argument("--no-prune", action="store_true", help="skip the pruning curve (half the time)")
    heads.add_argument(
        "--json", type=Path, help="write the maps and the pruning curve as JSON (default: not written)"
    )
    add_language_options(heads)
    add_overwrite_option(heads, subcommand=True)


def cmd_heads(args: argparse.Namespace) -> int:
    import json

    from model.attribution.heads import Sample, head_importance, model_sample, reference_for, task_sample

    if args.n < 1:
        raise UsageError("attnviz heads: --n must be at least 1")
    texts = [text for text in args.text or [] if text.strip()]
    if args.text is not None and not texts:
        raise UsageError("attnviz heads: --text is empty")
    if args.json is not None:
        refuse_to_overwrite(args, args.json)
    checkpoint = load(args)
    if texts:
        outputs = model_sample(checkpoint, texts)
        pairs = [reference_for(checkpoint, s, o) for s, o in zip(texts, outputs.references, strict=True)]
        if all(kind == "task" for _, kind in pairs):
            sample = Sample.of_texts(checkpoint, texts, [r for r, _ in pairs], "task")
        else:  # one reference kind per sample: the model's outputs for all
            sample = outputs
    else:
        sample = task_sample(checkpoint, args.n, args.seed, args.task)
        if sample is None:
            asked = f" {', '.join(args.task)}" if args.task else ""
            raise UsageError(
                f"attnviz heads: {checkpoint.info.display_name} was not trained on the shipped tasks{asked}; "
                "give the sources to measure on with --text"
            )

    try:
        with progress_bar("heads"):
            result = head_importance(checkpoint, sample, prune=not args.no_prune, progress=counted)
    except ValueError as error:
        raise UsageError(f"attnviz heads: {error}") from error
    print(importance_table(result))
    if args.json is not None:
        data = result.to_json() | {"checkpoint": str(checkpoint.path)}
        args.json.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


def importance_table(result) -> str:
    """Per kind, the layers × heads map of log-likelihood drops; then the most important heads
    and the pruning curve."""
    from visualizer.numbers import number

    references = "the task's answers" if result.sample.reference_kind == "task" else "the model's own outputs"
    lines = [
        f"{result.n} sources, references: {references}; as trained: exact match "
        f"{result.base_exact_match:.1%}, log-likelihood {number(result.base_ll)} nats per sequence",
        "drop in log-likelihood (nats per sequence) when one head is zeroed; (exact match then)",
    ]
    for kind in result.kinds:
        drops, exact = result.ll_drop[kind], result.exact_match[kind]
        lines.append(f"{result.titles[kind]}:")
        lines.append("        " + "".join(f"{'H' + str(h + 1):>18}" for h in range(drops.shape[1])))
        for layer in range(drops.shape[0]):
            cells = "".join(
                f"{number(drops[layer, h], 2):>9} ({exact[layer, h]:>6.1%})" for h in range(drops.shape[1])
            )
            lines.append(f"  L{layer + 1:<5}" + cells)
    most = ", ".join(
        f"{kind} L{layer + 1} H{head + 1} ({number(drop, 2)})"
        for (kind, layer, head), drop in result.most_important()
    )
    lines.append(f"most important: {most}")
    if len(result.prune_exact_match) > 1:
        curve = " ".join(f"{k}:{value:.0%}" for k, value in enumerate(result.prune_exact_match))
        lines.append(f"exact match with the k least important heads zeroed: {curve}")
    return "\n".join(lines)
