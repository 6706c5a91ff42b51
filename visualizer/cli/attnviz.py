"""The ``attnviz`` command: the desktop app by default, and headless subcommands.

    attnviz [--checkpoint PATH] [--device D]          open the app
    attnviz --version                                 print the installed version
    attnviz --text T --steps N --screenshot out.png   run N steps, save the window, exit
    attnviz trace --text "reverse: abc" --out t.npz   record a generation
    attnviz train --config default --out PATH         train a model
    attnviz eval --checkpoint PATH [--n 1000]         exact-match accuracy per task
    attnviz eval --checkpoint PATH --by-length        exact match for every input length
    attnviz attribute --text T [--json out.json]      which input tokens mattered, by six methods
    attnviz heads [--n 100] [--json out.json]         each head's importance, and the pruning curve
    attnviz half PATH --out SMALL.safetensors         the same model, weights stored as float16
    attnviz bench [--quick] [--json out.json]         speed against the peers, and the budgets
    attnviz install-desktop [--uninstall]             the app in this user's Linux desktop menus

No command replaces an existing file unless given --overwrite (install-desktop replaces only
its own three files: see visualizer/cli/desktop.py).

Every user mistake ends with one line on stderr and exit status 2, never a traceback.
Heavy imports (torch, Qt) happen inside the commands so ``--help`` is instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from visualizer.cli.align import add_align_parser, cmd_align
from visualizer.cli.attribute import add_attribute_parser, cmd_attribute
from visualizer.cli.common import (
    EXIT_USAGE,
    OneLineParser,
    UsageError,
    add_language_options,
    add_model_options,
    add_overwrite_option,
    device_arg,
    refuse_to_overwrite,
)
from visualizer.cli.desktop import add_desktop_parser, cmd_install_desktop
from visualizer.cli.evaluate import add_eval_parser, cmd_eval
from visualizer.cli.heads import add_heads_parser, cmd_heads
from visualizer.cli.trace import add_trace_parser, cmd_trace
from visualizer.cli.version import VersionAction
from visualizer.state.options import add_decoding_options, decoding_settings


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="attnviz", description="Step through a Transformer and watch every head.")
    parser.add_argument("--version", action=VersionAction, help="print attnviz's version and exit")
    parser.add_argument("--checkpoint", type=Path, help="checkpoint to open (default: the shipped model)")
    parser.add_argument("--device", default="auto", help="cpu, cuda, mps or auto")
    parser.add_argument(
        "--text",
        help='source to open the app with (default: the last one the window ran; "reverse: attention" '
        "at first)",
    )
    parser.add_argument(
        "--audio", type=Path, help="an audio file for a speech model (Whisper) to hear (default: none)"
    )
    parser.add_argument("--steps", type=int, default=0, help="steps to run once the model is loaded")
    parser.add_argument(
        "--screenshot", type=Path, help="save the window as PNG after --steps, then exit (default: none)"
    )
    parser.add_argument(
        "--view",
        help="attention kind to show: encoder, decoder, cross, or a kind's name (e.g. enc_self, alignment) "
        "(default: the one the window last showed; cross at first)",
    )
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="PATH",
        help="a second model, stepped beside the first (View > Compare) (default: none)",
    )
    parser.add_argument(
        "--compare-what-if",
        choices=("no_positional", "no_scaling", "no_causal_mask", "uniform_attention", "no_attention"),
        help="with --compare: this what-if on the second model only (compare a model with itself changed) "
        "(default: none)",
    )
    parser.add_argument(
        "--panel",
        choices=(
            "attention",
            "masks",
            "positions",
            "relative_bias",
            "scaling",
            "layernorm",
            "decoding",
            "beam",
            "why_attention",
            "attribution",
            "heads",
            "logit_lens",
            "train",
        ),
        help="page to show: the attention grid or a concept panel (default: attention)",
    )
    parser.add_argument(
        "--language",
        choices=("en", "zh"),
        help="language of the explanations (default: the one the window last used; the system's at first)",
    )
    add_language_options(parser)
    parser.add_argument("--size", default="1440x900", help="with --screenshot: window size, e.g. 1280x800")
    # attnviz bench starts the app with this to time its start-up (see app.probe_startup)
    parser.add_argument("--probe-startup", action="store_true", help=argparse.SUPPRESS)
    add_overwrite_option(parser)
    add_decoding_options(parser)
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser)

    add_trace_parser(sub)
    add_align_parser(sub)
    add_attribute_parser(sub)
    add_heads_parser(sub)
    add_desktop_parser(sub)

    train = sub.add_parser("train", help="train a model on the synthetic tasks")
    add_train_options(train)
    add_overwrite_option(train, subcommand=True)

    add_eval_parser(sub)

    half = sub.add_parser("half", help="copy a checkpoint with its weights stored as float16 (half the file)")
    half.add_argument("source", type=Path, help="the checkpoint to copy (.safetensors)")
    half.add_argument("--out", type=Path, required=True, help="where to write the float16 copy")
    add_overwrite_option(half, subcommand=True)

    bench = sub.add_parser("bench", help="measure speed against the peers and check the budgets")
    bench.add_argument("--quick", action="store_true", help="few repeats: a check that it runs, not figures")
    bench.add_argument("--json", type=Path, help="also write the report as JSON (default: not written)")
    bench.add_argument(
        "--only",
        choices=("steps", "paint", "responsiveness", "attribution", "startup", "training"),
        action="append",
        help="run only this part (repeats) (default: every part)",
    )
    add_overwrite_option(bench, subcommand=True)
    return parser


def add_train_options(train: argparse.ArgumentParser) -> None:
    from model.tasks.recipes import RECIPES  # plain data, no torch: --help stays instant

    train.add_argument(
        "--config",
        default="default",
        choices=tuple(RECIPES),
        metavar="NAME",
        help=f"named recipe: {', '.join(RECIPES)}",
    )
    train.add_argument("--out", type=Path, required=True, help="checkpoint to write")
    add_model_options(train, checkpoint=False)
    recipes = "(default: the recipe's)"
    train.add_argument("--steps", type=int, help=f"override the recipe's number of steps {recipes}")
    train.add_argument("--seed", type=int, help=f"override the recipe's seed {recipes}")
    train.add_argument(
        "--data",
        type=Path,
        help="train on your own pairs: a UTF-8 file of source<TAB>target lines (default: the recipe's tasks)",
    )
    train.add_argument("--val", type=Path, help="with --data: held-out pairs (default: a share of --data)")
    train.add_argument(
        "--held-out", type=float, default=0.05, help="with --data and no --val: the share held out"
    )
    train.add_argument(
        "--snapshots",
        type=int,
        help="keep N evenly spaced snapshots of the run in OUT's .replay.safetensors (a replay) "
        "(default: none kept)",
    )
    train.add_argument(
        "--batch-size", type=int, help=f"override the recipe's global batch (all processes) {recipes}"
    )
    train.add_argument("--d-model", type=int, help=f"override the Transformer's width {recipes}")
    train.add_argument("--heads", type=int, help=f"override the Transformer's heads per layer {recipes}")
    train.add_argument(
        "--layers", type=int, help=f"override the Transformer's encoder and decoder layers {recipes}"
    )
    train.add_argument("--d-ff", type=int, help=f"override the Transformer's feed-forward width {recipes}")
    train.add_argument("--resume", action="store_true", help="continue from --out and its .trainstate.pt")
    train.add_argument(
        "--init", type=Path, help="start from this checkpoint's weights, to fine-tune (default: random)"
    )
    train.add_argument(
        "--stop-after",
        type=int,
        help="stop (checkpointed) after this step; --resume later (default: run every step)",
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            return run_gui(args)
        return COMMANDS[args.command](args)
    except UsageError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("attnviz: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # every expected failure has its own type; see user_error()
        message = user_error(error)
        if message is None:
            raise
        print(f"attnviz: {message}", file=sys.stderr)
        return EXIT_USAGE


def user_error(error: Exception) -> str | None:
    """The one-line message for an error the user can fix, or None for a bug."""
    from model.core.errors import CheckpointError

    if isinstance(error, (CheckpointError, ValueError)):
        return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, OSError):
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror or error}"
    return None


def cmd_train(args: argparse.Namespace) -> int:
    from model.tasks.train import recipe_from_args, train

    if not args.resume:
        from model.tasks.replay import replay_path
        from model.tasks.train import trainstate_path

        refuse_to_overwrite(args, args.out, trainstate_path(args.out))
        if args.snapshots is not None:
            refuse_to_overwrite(args, replay_path(args.out))
    overrides = {
        "steps": args.steps,
        "seed": args.seed,
        "batch_size": args.batch_size,
        "d_model": args.d_model,
        "n_heads": args.heads,
        "n_encoder_layers": args.layers,
        "n_decoder_layers": args.layers,
        "d_ff": args.d_ff,
    }
    if args.snapshots is not None and args.snapshots < 2:
        raise UsageError("attnviz train: --snapshots needs at least 2 (the start and the end)")
    for name in ("steps", "batch_size", "d_model", "heads", "layers", "d_ff"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"attnviz train: --{name.replace('_', '-')} must be at least 1")
    if args.d_model is not None and args.heads is not None and args.d_model % args.heads:
        raise UsageError("attnviz train: --d-model must be a multiple of --heads")
    recipe = recipe_from_args(args.config, overrides)
    data = None
    if args.val is not None and args.data is None:
        raise UsageError("attnviz train: --val needs --data")
    if args.data is not None:
        from model.tasks.user_data import load_user_data

        data, reports = load_user_data(args.data, recipe.max_len, args.val, args.held_out, recipe.seed)
        for report in reports:
            print(f"attnviz: {report}", file=sys.stderr)
        print(
            f"attnviz: training on {len(data.train)} pairs of {args.data.name}, "
            f"{len(data.held_out)} held out, {len(data.tokenizer())} tokens in the vocabulary",
            file=sys.stderr,
        )
    result = train(
        recipe,
        args.out,
        recipe_name=args.config,
        device=device_arg(args),
        resume=args.resume,
        init=args.init,
        stop_after=args.stop_after,
        data=data,
        snapshots=args.snapshots,
    )
    if not result.main:  # another process of a torchrun launch: rank 0 reports
        return 0
    if result.steps < recipe.steps:
        print(f"stopped at step {result.steps} of {recipe.steps}; wrote {result.checkpoint}")
        return 0
    print(result.report.table())
    print(f"wrote {result.checkpoint} after {result.steps} steps in {result.seconds / 60:.1f} min")
    return 0


def cmd_half(args: argparse.Namespace) -> int:
    """Store a checkpoint's weights as float16; the copy must open as a model before it is kept."""
    from model.core.weights_file import write_half_precision
    from model.registry import open_model

    refuse_to_overwrite(args, args.out)
    open_model(args.source, "cpu")  # a valid model of some family, before anything is written
    size = write_half_precision(args.source, args.out)
    try:
        open_model(args.out, "cpu")
    except Exception:
        args.out.unlink(missing_ok=True)  # never leave a copy that does not open
        raise
    print(f"wrote {args.out} ({size / 1024**2:.1f} MB, float16)")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    import json

    from visualizer.bench import PARTS, progress_to_stderr, run_bench, table

    if args.json:
        refuse_to_overwrite(args, args.json)
    parts = tuple(part for part in PARTS if part in (args.only or PARTS))
    print(f"attnviz bench: measuring {', '.join(parts)}{' (quick)' if args.quick else ''}", file=sys.stderr)
    report = run_bench(args.quick, parts, progress_to_stderr)
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
        print(f"wrote {args.json}", file=sys.stderr)
    failed = [f"{part} {report['unavailable'][part]}" for part in parts if part in report["unavailable"]]
    for failure in failed:
        print(f"attnviz bench: {failure}", file=sys.stderr)
    return 1 if failed else 0


def run_gui(args: argparse.Namespace) -> int:
    from visualizer.window.app import parse_size, run_gui

    if args.screenshot:
        refuse_to_overwrite(args, args.screenshot)
    if args.steps < 0:
        raise UsageError("attnviz: --steps must be 0 or more")
    if args.text is not None and not args.text.strip():  # refused before any window is built
        raise UsageError('attnviz: --text is empty; give a source, e.g. --text "reverse: attention"')
    if args.text is not None and args.audio is not None:
        raise UsageError("attnviz: give --text or --audio, not both")
    if args.audio is not None and not args.audio.is_file():
        raise UsageError(f"attnviz: --audio {args.audio}: no such file")
    parse_size(args.size)
    decoding_settings(args)  # refuse bad options before a window opens
    if args.compare_what_if and args.compare is None:
        raise UsageError("attnviz: --compare-what-if needs --compare PATH")
    return run_gui(args)


COMMANDS = {
    "trace": cmd_trace,
    "align": cmd_align,
    "attribute": cmd_attribute,
    "heads": cmd_heads,
    "train": cmd_train,
    "eval": cmd_eval,
    "half": cmd_half,
    "bench": cmd_bench,
    "install-desktop": cmd_install_desktop,
}


if __name__ == "__main__":
    sys.exit(main())
