"""``attnviz trace``: one generation (or a teacher-forced run) recorded as .npz + .json.

What the window says about a source, the command line says too, on stderr, one line each
(``warnings``): how the source lies outside what the model was trained on (the amber line under
the window's source box: ``visualizer.state.findings``), the characters read as ``<unk>``, each
output ``<unk>`` filled with the source character attention points at (the timeline's violet
chips), and a generation stopped at the model's maximum length.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from model.source import AudioSource
from visualizer.cli.common import (
    UsageError,
    add_language_options,
    add_model_options,
    add_overwrite_option,
    load,
    refuse_to_overwrite,
)
from visualizer.state.options import add_decoding_options, decoding_settings


def add_trace_parser(sub) -> None:
    trace = sub.add_parser("trace", help="record one generation as .npz + .json")
    add_model_options(trace)
    given = trace.add_mutually_exclusive_group(required=True)
    given.add_argument(
        "--text", help='the source, e.g. "reverse: attention" (default: none; give this or --audio)'
    )
    given.add_argument(
        "--audio",
        type=Path,
        help="a speech model's source: an audio file, WAV, FLAC, OGG or MP3 "
        "(default: none; give this or --text)",
    )
    trace.add_argument(
        "--target", help="run teacher-forced on this target instead of generating (default: generate)"
    )
    trace.add_argument("--out", type=Path, required=True, help="where to write the .npz")
    add_language_options(trace)
    add_decoding_options(trace, subcommand=True)
    add_overwrite_option(trace, subcommand=True)


def cmd_trace(args: argparse.Namespace) -> int:
    from model.generation.trace import npz_path_of, summary_path, write_trace

    if args.text is not None and not args.text.strip():
        raise UsageError("attnviz trace: --text is empty")
    source = AudioSource(str(args.audio)) if args.audio is not None else args.text
    refuse_to_overwrite(args, npz_path_of(args.out), summary_path(npz_path_of(args.out)))
    settings = decoding_settings(args)
    checkpoint = load(args)
    for line in outside_training_lines(checkpoint, source):
        warn(line)
    if args.target is not None:
        arrays, summary = teacher_forced(checkpoint, source, args.target)
    else:
        arrays, summary = generated(checkpoint, source, settings)
    if summary.get("source_notice"):
        warn(summary["source_notice"])
    summary["checkpoint"] = str(checkpoint.path)
    summary["device"] = str(checkpoint.device)
    if checkpoint.languages:
        summary["source_language"] = checkpoint.source_language
        summary["target_language"] = checkpoint.target_language
    npz_path, json_path = write_trace(args.out, arrays, summary)
    print(f"{summary['output_text']}")
    print(f"wrote {npz_path} and {json_path}", file=sys.stderr)
    return 0


def warn(line: str) -> None:
    print(f"attnviz: {line}", file=sys.stderr)


def outside_training_lines(checkpoint, source: str) -> list[str]:
    """The window's amber line, a sentence per finding (none for a model without the
    ``trained_on`` metadata that ``attnviz train`` writes)."""
    from model.tasks.coverage import TRAINED_ON, outside_training
    from visualizer.state.findings import describe

    findings = outside_training(source, checkpoint.metadata.get(TRAINED_ON))
    return [describe(finding, "en") for finding in findings]


def add_timing(arrays: dict, summary: dict, timing) -> None:
    """A speech model's word times: ``token_times`` [T, 2] seconds (NaN where a token is not
    timed: the prompt, the end token) and the words in the JSON, with how they were timed."""
    if timing is None:
        return
    arrays["token_times"] = timing.token_times.astype("float64")
    summary["words"] = [
        {"word": w.word, "start": round(w.start, 3), "end": round(w.end, 3)} for w in timing.words
    ]
    summary["word_timing"] = {
        "alignment_heads": [list(head) for head in timing.heads],
        "convention": timing.convention,
    }


def unknown_line(unknown: list[dict], what: str = "") -> str | None:
    """Every character read as ``<unk>``, with its position, in one line (None: there are none)."""
    if not unknown:
        return None
    listed = ", ".join(f"{u['character']!r} at position {u['position']}" for u in unknown)
    return f"not in the vocabulary, read as <unk>: {what}{listed}"


def generated(checkpoint, source, settings) -> tuple[dict, dict]:
    import torch

    from model.core.threads import step_threads
    from model.generation.engine import GenerationEngine
    from model.generation.trace import generation_arrays, generation_summary
    from model.probes.word_timing import generation_timing
    from visualizer.state.token_labels import copy_description

    torch.set_num_threads(step_threads(checkpoint.info.parameters))
    engine = GenerationEngine(checkpoint, source, settings)
    engine.run_to_end()
    snapshot = engine.snapshot()
    arrays, summary = generation_arrays(snapshot), generation_summary(snapshot)
    add_timing(arrays, summary, generation_timing(snapshot))
    if line := unknown_line(summary["unknown_characters"]):
        warn(line)
    kind = checkpoint.info.alignment_kind
    for copy in snapshot.copies.values():
        warn(f"out[{copy.step}]: " + copy_description(copy, kind.title if kind else copy.kind, "en"))
    if engine.stop_reason == "max_length":
        warn(f"stopped at the maximum length of {engine.max_steps} tokens")
    return arrays, summary


def teacher_forced(checkpoint, source, target: str) -> tuple[dict, dict]:
    from model.generation.trace import teacher_forced_arrays, teacher_forced_summary
    from model.probes.teacher_forcing import teacher_force
    from model.probes.word_timing import forced_timing

    started = time.perf_counter()
    record = teacher_force(checkpoint, source, target)
    arrays = teacher_forced_arrays(record)
    summary = teacher_forced_summary(
        record, checkpoint.tokenizer, source, checkpoint.info, seconds=time.perf_counter() - started
    )
    add_timing(arrays, summary, forced_timing(checkpoint, record))
    if line := unknown_line(summary["unknown_characters"]):
        warn(line)
    if line := unknown_line(summary["unknown_target_characters"], "in the target, "):
        warn(line)
    return arrays, summary
