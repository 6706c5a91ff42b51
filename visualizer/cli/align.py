"""``attnviz align``: when each word of a given transcript is spoken, from a speech model's
cross-attention (a teacher-forced run: subtitle timing).

The transcript is read by the decoder whole, after the model's prompt, and timed as a
generation's words are (``model.probes.word_timing``). The words go to JSON, CSV or SRT by the
suffix of ``--out``; they are also printed, one a line.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

from visualizer.cli.common import (
    UsageError,
    add_model_options,
    add_overwrite_option,
    load,
    refuse_to_overwrite,
)

FORMATS = (".json", ".csv", ".srt")


def add_align_parser(sub) -> None:
    align = sub.add_parser("align", help="word start and end times of a transcript in an audio file")
    add_model_options(align)
    align.add_argument("--audio", type=Path, required=True, help="the audio file (WAV, FLAC, OGG, MP3)")
    align.add_argument(
        "--text",
        required=True,
        help="what is said in it (a space is put before it, as Whisper writes its transcripts)",
    )
    align.add_argument("--out", type=Path, required=True, help="words.json, words.csv or words.srt")
    add_overwrite_option(align, subcommand=True)


def cmd_align(args: argparse.Namespace) -> int:
    from model.probes.teacher_forcing import teacher_force
    from model.probes.word_timing import forced_timing
    from model.source import AudioSource

    if not args.text.strip():
        raise UsageError("attnviz align: --text is empty; give the transcript")
    if args.out.suffix.lower() not in FORMATS:
        raise UsageError(f"attnviz align: --out must end in {', '.join(FORMATS)}, not {args.out.name}")
    refuse_to_overwrite(args, args.out)
    checkpoint = load(args)
    # Whisper writes a transcript with a space before every word, the first included
    text = args.text if args.text[:1].isspace() else f" {args.text}"
    record = teacher_force(checkpoint, AudioSource(str(args.audio)), text)
    timing = forced_timing(checkpoint, record)
    if timing is None:
        raise UsageError(f"attnviz align: {checkpoint.info.display_name} does not hear audio over time")
    words = [{"word": w.word, "start": round(w.start, 3), "end": round(w.end, 3)} for w in timing.words]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(formatted(words, args.out.suffix.lower(), timing), encoding="utf-8")
    for word in words:
        print(f"{word['start']:7.2f} {word['end']:7.2f}  {word['word']}")
    return 0


def formatted(words: list[dict], suffix: str, timing) -> str:
    if suffix == ".json":
        heads = [list(head) for head in timing.heads]
        return json.dumps(
            {"words": words, "alignment_heads": heads, "convention": timing.convention}, indent=1
        )
    if suffix == ".csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["word", "start", "end"])
        writer.writerows([w["word"], w["start"], w["end"]] for w in words)
        return out.getvalue()
    cues = [
        f"{i}\n{srt_time(w['start'])} --> {srt_time(w['end'])}\n{w['word']}\n" for i, w in enumerate(words, 1)
    ]
    return "\n".join(cues)


def srt_time(seconds: float) -> str:
    """``00:00:01,230``: SubRip's hours, minutes, seconds and milliseconds."""
    millis = max(0, round(seconds * 1000))
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d},{millis:03d}"
