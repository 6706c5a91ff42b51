"""Trains the small speech model from scratch on synthetic clips and writes its folder.

    python -m model.speech.train --out DIR [--steps N] [--resume] [--tiny]

Each step draws a fresh batch of clips (seeded by the step, so a resumed run sees the same
batches) from words synthesised once at the start and cached in ``DIR/words.npz``. A checkpoint
(``DIR/checkpoint.pt``: weights, optimiser, step) is written every ``--save-every`` steps and at
the end; the model folder goes to ``DIR/model``. ``--tiny`` is a seconds-long run for tests.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from model.speech.data import EVAL_SPEEDS, TRAIN_VOICES, WORDS, ClipSpec, WordBank, make_clip, make_clips
from model.speech.folder import Shape

TINY_SHAPE = Shape(d_model=32, encoder_layers=1, decoder_layers=2, heads=2, ffn=64)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m model.speech.train", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="run folder (checkpoint, word cache, model/)")
    parser.add_argument("--steps", type=int, default=3000, help="optimiser steps (default 3000)")
    parser.add_argument("--batch", type=int, default=32, help="clips per step (default 32)")
    parser.add_argument("--lr", type=float, default=1.5e-3, help="peak learning rate (default 1.5e-3)")
    parser.add_argument("--warmup", type=int, default=300, help="warm-up steps (default 300)")
    parser.add_argument(
        "--short-steps",
        type=int,
        default=0,
        help="first steps on clips of 1-2 words, where the words can only come from the audio (default 0)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of weights and batches (default 0)")
    parser.add_argument("--save-every", type=int, default=250, help="checkpoint interval (default 250)")
    parser.add_argument("--eval-every", type=int, default=500, help="validation interval (default 500)")
    parser.add_argument("--d-model", type=int, default=Shape.d_model)
    parser.add_argument("--encoder-layers", type=int, default=Shape.encoder_layers)
    parser.add_argument("--decoder-layers", type=int, default=Shape.decoder_layers)
    parser.add_argument("--heads", type=int, default=Shape.heads)
    parser.add_argument("--ffn", type=int, default=Shape.ffn)
    parser.add_argument("--resume", action="store_true", help="continue from DIR/checkpoint.pt")
    parser.add_argument(
        "--export", action="store_true", help="only write DIR/model from DIR/checkpoint.pt (e.g. mid-run)"
    )
    parser.add_argument(
        "--tiny", action="store_true", help="a seconds-long run: 8 words, 2 voices, a 32-wide model"
    )
    return parser.parse_args(argv)


def learning_rate(step: int, steps: int, peak: float, warmup: int) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress))))


def batch_tensors(clips, feature_extractor, tokenizer):
    """(input_features [B, mels, frames], decoder inputs [B, L], targets [B, L] with -100 where
    no loss is taken: the forced <|notimestamps|> and the padding after <|endoftext|>)."""
    import torch

    features = feature_extractor(
        [c.audio for c in clips], sampling_rate=16_000, return_tensors="pt", device="cpu"
    ).input_features
    ids = [tokenizer(c.text).input_ids for c in clips]
    length = max(len(i) for i in ids)
    eot = tokenizer.eos_token_id
    tokens = torch.full((len(ids), length), eot, dtype=torch.long)
    for row, sequence in enumerate(ids):
        tokens[row, : len(sequence)] = torch.tensor(sequence)
    targets = tokens[:, 1:].clone()
    targets[:, 0] = -100
    for row, sequence in enumerate(ids):
        targets[row, len(sequence) - 1 :] = -100
    return features, tokens[:, :-1], targets


def transcribe(model, feature_extractor, tokenizer, audios, batch: int = 64) -> list[str]:
    """Greedy transcripts through the model's own ``generate``."""
    import torch

    texts = []
    with torch.no_grad():
        for i in range(0, len(audios), batch):
            features = feature_extractor(
                audios[i : i + batch], sampling_rate=16_000, return_tensors="pt", device="cpu"
            ).input_features
            out = model.generate(features.to(model.dtype))
            texts += tokenizer.batch_decode(out, skip_special_tokens=True)
    return texts


def word_errors(reference: str, hypothesis: str) -> int:
    """Levenshtein distance over words."""
    ref, hyp = reference.split(), hypothesis.split()
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1]


def score(clips, texts) -> tuple[float, float]:
    """(word error rate, exact-match rate)."""
    errors = sum(word_errors(c.text, t) for c, t in zip(clips, texts, strict=True))
    words = sum(len(c.words) for c in clips)
    exact = sum(c.text.split() == t.split() for c, t in zip(clips, texts, strict=True))
    return errors / words, exact / len(clips)


def main(argv=None) -> int:
    import torch
    from transformers import WhisperForConditionalGeneration

    from model.speech.folder import (
        build_config,
        build_feature_extractor,
        build_generation_config,
        build_tokenizer,
        save_folder,
    )

    args = parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.tiny:
        shape = TINY_SHAPE
        spec = ClipSpec(words=WORDS[:8], voices=TRAIN_VOICES[:2], speeds=(160,), max_words=3)
    else:
        shape = Shape(args.d_model, args.encoder_layers, args.decoder_layers, args.heads, args.ffn)
        spec = ClipSpec()
    begin = time.perf_counter()

    bank_path = out / "words.npz"
    bank = WordBank.load(bank_path) if bank_path.exists() else WordBank()
    made = bank.fill(spec.words, spec.voices, spec.speeds)
    if made:
        bank.save(bank_path)
    print(f"words: {len(bank)} synthesised ({made} new) in {time.perf_counter() - begin:.1f} s", flush=True)

    tokenizer = build_tokenizer(WORDS)
    feature_extractor = build_feature_extractor(shape)
    model = WhisperForConditionalGeneration(build_config(tokenizer, shape))
    model.generation_config = build_generation_config(tokenizer, shape)
    print(f"model: {sum(p.numel() for p in model.parameters()) / 1e6:.2f} M parameters", flush=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01, betas=(0.9, 0.98))
    step = 0
    checkpoint = out / "checkpoint.pt"
    if args.export:
        model.load_state_dict(torch.load(checkpoint, weights_only=True)["model"])
        save_folder(model.eval(), tokenizer, feature_extractor, out / "model")
        print(f"exported {out / 'model'}")
        return 0
    if args.resume and checkpoint.exists():
        state = torch.load(checkpoint, weights_only=True)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = int(state["step"])
        print(f"resumed at step {step}", flush=True)

    speeds = EVAL_SPEEDS[:1] if args.tiny else EVAL_SPEEDS
    validation_spec = ClipSpec(words=spec.words, voices=spec.voices, speeds=speeds, max_words=spec.max_words)
    validation = make_clips(
        16 if args.tiny else 128, seed=10_000 + args.seed, spec=validation_spec, bank=bank
    )

    def save(step: int) -> None:
        torch.save(
            {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, checkpoint
        )

    model.train()
    losses = []
    tick = time.perf_counter()
    while step < args.steps:
        rng = np.random.default_rng([args.seed, step])
        now = replace(spec, min_words=1, max_words=2) if step < args.short_steps else spec
        clips = [make_clip(bank, now, rng) for _ in range(args.batch)]
        features, inputs, targets = batch_tensors(clips, feature_extractor, tokenizer)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, args.steps, args.lr, args.warmup)
        logits = model(input_features=features, decoder_input_ids=inputs).logits
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, ignore_index=-100)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        step += 1
        losses.append(loss.item())
        if step % 50 == 0 or step == args.steps:
            rate = 50 / (time.perf_counter() - tick) if step % 50 == 0 else 0.0
            tick = time.perf_counter()
            elapsed = time.perf_counter() - begin
            mean = np.mean(losses[-50:])
            print(
                f"step {step}/{args.steps} loss {mean:.4f} {rate:.2f} steps/s elapsed {elapsed:.0f} s",
                flush=True,
            )
        if step % args.save_every == 0:
            save(step)
        if step % args.eval_every == 0 or step == args.steps:
            model.eval()
            texts = transcribe(model, feature_extractor, tokenizer, [c.audio for c in validation])
            wer, exact = score(validation, texts)
            model.train()
            print(
                f"step {step} validation (trained voices, unheard speeds): WER {wer:.2%} exact {exact:.1%}",
                flush=True,
            )
    save(step)
    model.eval()
    save_folder(model, tokenizer, feature_extractor, out / "model")
    print(f"saved {out / 'model'}; total {time.perf_counter() - begin:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
