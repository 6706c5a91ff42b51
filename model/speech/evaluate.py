"""Measures a speech model folder on clips it never heard, and picks its alignment heads.

    python -m model.speech.evaluate DIR [--clips N] [--write-heads] [--json FILE]

Three sets, each from its own seed: clips of trained voices at speeds between the training
speeds ("selection", to choose heads and the start offset; "trained voices", to report), and
clips of the voice held out of training ("unseen voice"). For each: word error rate, exact
match, and on the exactly-transcribed clips the error of every word's start, |predicted - true|,
for every cross-attention head alone and for the chosen heads, under both conventions.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.speech.data import (
    EVAL_SPEEDS,
    HELD_OUT_VOICE,
    TRAIN_SPEEDS,
    TRAIN_VOICES,
    Clip,
    ClipSpec,
    WordBank,
    make_clips,
)
from model.speech.timing import first_sounding_frame, token_times, word_times
from model.speech.train import score

SECONDS_PER_FRAME = 0.02  # a Whisper encoder position: two 10 ms mel frames
PROMPT_LENGTH = 2  # <|startoftranscript|><|notimestamps|>
# (name, convention, from the first sounding frame, without the row that predicts <|endoftext|>):
# attention alone starts the first word at 0.0 s; the row predicting the end attends to the last
# word as much as that word's own row does, and takes its frames
VARIANTS = (
    ("predict", "predict", False, False),
    ("predict+sound", "predict", True, False),
    ("predict+sound-end", "predict", True, True),
    ("input", "input", False, False),
    ("input+sound", "input", True, False),
)
CHOOSE_BY = "predict+sound"


@dataclass(frozen=True)
class Heard:
    """What the model made of one clip: its transcript's tokens (prompt and <|endoftext|>
    included), their texts, and the cross-attention rows generation computes (all but the last
    token's) as ``[layers, heads, rows, frames holding sound]``."""

    text: str
    tokens: tuple[int, ...]
    token_texts: tuple[str, ...]
    cross: np.ndarray


def load(directory: Path):
    from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration, WhisperTokenizer

    model = WhisperForConditionalGeneration.from_pretrained(directory, attn_implementation="eager")
    model.eval()
    return (
        model,
        WhisperFeatureExtractor.from_pretrained(directory),
        WhisperTokenizer.from_pretrained(directory),
    )


def listen(model, feature_extractor, tokenizer, clips: list[Clip], batch: int = 50) -> list[Heard]:
    """Greedy transcripts, then one teacher-forced pass over each to read its cross-attention."""
    import torch

    heard = []
    config = model.generation_config
    prompt = [config.decoder_start_token_id, config.no_timestamps_token_id]
    eot = config.eos_token_id
    for i in range(0, len(clips), batch):
        part = clips[i : i + batch]
        inputs = feature_extractor(
            [c.audio for c in part], sampling_rate=16_000, return_tensors="pt", return_attention_mask=True
        )
        frames = (inputs.attention_mask.sum(-1) // 2).tolist()
        with torch.no_grad():
            written = model.generate(inputs.input_features)
        sequences = []
        for row in written.tolist():
            row = [t for t in row if t not in prompt]
            row = row[: row.index(eot)] if eot in row else row
            row = row[: model.config.max_target_positions - len(prompt) - 1]
            sequences.append(prompt + row + [eot])
        length = max(len(s) for s in sequences)
        padded = torch.tensor([s + [eot] * (length - len(s)) for s in sequences])
        with torch.no_grad():
            out = model(
                input_features=inputs.input_features, decoder_input_ids=padded, output_attentions=True
            )
        cross = torch.stack(out.cross_attentions).numpy()  # [layers, batch, heads, rows, frames]
        for b, sequence in enumerate(sequences):
            texts = tuple(
                tokenizer.convert_tokens_to_string([t]) for t in tokenizer.convert_ids_to_tokens(sequence)
            )
            heard.append(
                Heard(
                    text=tokenizer.decode(sequence, skip_special_tokens=True),
                    tokens=tuple(sequence),
                    token_texts=texts,
                    cross=cross[:, b, :, : len(sequence) - 1, : frames[b]].copy(),
                )
            )
    return heard


def start_errors(clips, heard, heads, variant: str, offset: float = 0.0) -> np.ndarray:
    """Signed errors (predicted - true, seconds) of every word start in the clips transcribed
    exactly, timed under ``variant`` (a name in ``VARIANTS``); ``offset`` is added to each time."""
    _, convention, from_sound, drop_end = next(v for v in VARIANTS if v[0] == variant)
    errors = []
    for clip, h in zip(clips, heard, strict=True):
        if h.text.split() != list(clip.words):
            continue
        first = first_sounding_frame(clip.audio, 16_000, SECONDS_PER_FRAME) if from_sound else 0
        cross = h.cross[:, :, :-1] if drop_end else h.cross
        times = token_times(
            cross, heads, cross.shape[-1], SECONDS_PER_FRAME, convention, PROMPT_LENGTH, first_frame=first
        )
        words = word_times(h.token_texts[PROMPT_LENGTH : PROMPT_LENGTH + len(times)], times)
        predicted = [w.start + offset for w in words[: len(clip.words)]]
        errors += [p - t for p, t in zip(predicted, clip.starts, strict=False)]
    return np.array(errors)


def summary(errors: np.ndarray) -> dict:
    """Median and 90th percentile of |error|, and the median signed error, in milliseconds."""
    if len(errors) == 0:
        return {"median_ms": float("nan"), "p90_ms": float("nan"), "bias_ms": float("nan"), "words": 0}
    absolute = np.abs(errors) * 1000
    return {
        "median_ms": float(np.median(absolute)),
        "p90_ms": float(np.percentile(absolute, 90)),
        "bias_ms": float(np.median(errors) * 1000),
        "words": len(errors),
    }


def every_head(model) -> list[tuple[int, int]]:
    config = model.config
    return [
        (layer, head)
        for layer in range(config.decoder_layers)
        for head in range(config.decoder_attention_heads)
    ]


def choose_heads(clips, heard, heads, most: int = 6):
    """Heads ranked by their median |start error| alone under ``CHOOSE_BY``; the chosen set is
    the best prefix of that ranking, up to ``most`` heads."""

    def cost(chosen):
        return summary(start_errors(clips, heard, chosen, CHOOSE_BY))["median_ms"]

    ranked = sorted(heads, key=lambda h: cost([h]))
    return min((ranked[:k] for k in range(1, most + 1)), key=cost)


def measure_set(name, clips, heard, model, chosen, offsets) -> dict:
    wer, exact = score(clips, [h.text for h in heard])
    result = {"set": name, "clips": len(clips), "wer": wer, "exact": exact, "heads": {}, "chosen": {}}
    for variant, *_ in VARIANTS:
        result["heads"][variant] = {
            f"{layer},{head}": summary(start_errors(clips, heard, [(layer, head)], variant))
            for layer, head in every_head(model)
        }
        result["chosen"][variant] = summary(start_errors(clips, heard, chosen, variant))
        result["chosen"][variant + ", offset"] = summary(
            start_errors(clips, heard, chosen, variant, offsets[variant])
        )
    return result


def print_set(result) -> None:
    print(
        f"\n== {result['set']}: {result['clips']} clips, WER {result['wer']:.2%}, exact {result['exact']:.1%}"
    )
    for variant, heads in result["heads"].items():
        ranked = sorted(heads, key=lambda h: heads[h]["median_ms"])
        cells = "  ".join(f"({h}) {heads[h]['median_ms']:.0f}/{heads[h]['p90_ms']:.0f}" for h in ranked)
        print(f"{variant:14s} single heads, median/p90 ms, best first: {cells}")
    for key, s in result["chosen"].items():
        print(
            f"chosen heads, {key:22s}: median {s['median_ms']:.0f} ms, p90 {s['p90_ms']:.0f} ms, "
            f"bias {s['bias_ms']:+.0f} ms over {s['words']} words"
        )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m model.speech.evaluate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("folder", type=Path, help="the model folder")
    parser.add_argument("--clips", type=int, default=300, help="clips per set (default 300)")
    parser.add_argument(
        "--write-heads", action="store_true", help="write the chosen heads and offsets into the folder"
    )
    parser.add_argument("--json", type=Path, help="write the measurements here")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    import torch

    args = parse_args(argv)
    torch.set_num_threads(1)
    model, feature_extractor, tokenizer = load(args.folder)
    bank = WordBank()
    trained = ClipSpec(voices=TRAIN_VOICES, speeds=EVAL_SPEEDS)
    unseen = ClipSpec(voices=(HELD_OUT_VOICE,), speeds=TRAIN_SPEEDS + EVAL_SPEEDS)
    sets = {
        "selection (trained voices, unheard speeds)": make_clips(args.clips, 40_000, trained, bank),
        "trained voices, unheard speeds": make_clips(args.clips, 20_000, trained, bank),
        "unseen voice " + str(HELD_OUT_VOICE): make_clips(args.clips, 30_000, unseen, bank),
    }
    heard = {name: listen(model, feature_extractor, tokenizer, clips) for name, clips in sets.items()}
    selection = next(iter(sets))
    chosen = choose_heads(sets[selection], heard[selection], every_head(model))
    offsets = {
        v: -float(np.median(start_errors(sets[selection], heard[selection], chosen, v))) for v, *_ in VARIANTS
    }
    print(f"chosen alignment heads (layer, head): {chosen}; start offsets (s): {offsets}")
    results = [measure_set(name, sets[name], heard[name], model, chosen, offsets) for name in sets]
    for result in results:
        print_set(result)
    if args.write_heads:
        write_heads(args.folder, chosen, offsets)
    if args.json:
        args.json.write_text(
            json.dumps({"alignment_heads": chosen, "offsets": offsets, "sets": results}, indent=1) + "\n"
        )
    return 0


def write_heads(folder: Path, heads, offsets) -> None:
    """Puts the chosen heads into generation_config.json's ``alignment_heads``."""
    path = Path(folder) / "generation_config.json"
    config = json.loads(path.read_text())
    config["alignment_heads"] = [list(h) for h in heads]
    path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
