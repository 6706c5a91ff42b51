"""Exact-match accuracy on fresh, seeded examples of every task (and every date form)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch

from model.core.batching import encode_sources
from model.core.tokenizer import CharTokenizer
from model.interface import ModelFamily
from model.tasks.synthetic import DATE_FORMS, TASK_NAMES, Example, make_example
from model.transformer.model import Transformer


@torch.no_grad()
def greedy_decode_batch(
    model: Transformer, tokenizer: CharTokenizer, sources: Sequence[str], max_new_tokens: int | None = None
) -> list[str]:
    """Greedy outputs for many sources at once, stepping with the KV cache."""
    device = next(model.parameters()).device
    src, src_pad = encode_sources(tokenizer, sources, device)
    encoded = model.encode(src, src_pad)
    cache = model.start_cache(encoded)
    # as many as the engine takes: the decoder reads <bos> and max_len - 1 outputs, so max_len come out
    limit = model.config.max_len if max_new_tokens is None else max_new_tokens
    token = torch.full((len(sources), 1), tokenizer.bos_id, dtype=torch.long, device=device)
    finished = torch.zeros(len(sources), dtype=torch.bool, device=device)
    chosen = []
    for _ in range(limit):
        out = model.decode(token, encoded, cache)
        cache = out.cache
        token = out.logits[:, -1].argmax(-1, keepdim=True)  # (B, 1)
        chosen.append(token)
        finished |= token[:, 0] == tokenizer.eos_id
        if finished.all():
            break
    ids = torch.cat(chosen, dim=1).tolist()
    return [tokenizer.decode(row) for row in ids]


@dataclass
class EvalReport:
    n_per_task: int
    seed: int
    correct: dict[str, int] = field(default_factory=dict)  # keyed by task, and "date/<form>"
    total: dict[str, int] = field(default_factory=dict)
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (source, expected, got)

    def accuracy(self, key: str) -> float:
        return self.correct.get(key, 0) / max(self.total.get(key, 0), 1)

    def rows(self) -> list[tuple[str, float, int]]:
        return [(key, self.accuracy(key), self.total[key]) for key in self.total]

    def table(self) -> str:
        lines = [f"{'task':<32} {'exact match':>11} {'n':>6}"]
        for key, accuracy, total in self.rows():
            lines.append(f"{key:<32} {accuracy * 100:>10.1f}% {total:>6}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {key: {"accuracy": acc, "n": n} for key, acc, n in self.rows()}


def held_out_examples(n_per_task: int, seed: int, tasks: Sequence[str] = TASK_NAMES) -> list[Example]:
    """Examples from a stream the training never draws from (string-seeded, not step-seeded)."""
    rng = random.Random(f"held-out-{seed}")
    examples = []
    for task in tasks:
        for i in range(n_per_task):
            form = DATE_FORMS[i % len(DATE_FORMS)] if task == "date" else None
            examples.append(make_example(task, rng, form=form))
    return examples


def evaluate(
    model: Transformer,
    tokenizer: CharTokenizer,
    n_per_task: int = 1000,
    seed: int = 0,
    batch_size: int = 250,
    tasks: Sequence[str] = TASK_NAMES,
) -> EvalReport:
    """A Transformer module being trained (``model/tasks/train.py``), batched."""
    was_training = model.training
    model.eval()
    report = evaluate_with(
        lambda sources: greedy_decode_batch(model, tokenizer, sources), n_per_task, seed, batch_size, tasks
    )
    model.train(was_training)
    return report


def evaluate_model(
    model: ModelFamily, n_per_task: int = 1000, seed: int = 0, batch_size: int = 250, tasks=TASK_NAMES
) -> EvalReport:
    """Any loaded model, through its family's ``greedy_texts`` (``attnviz eval``)."""
    return evaluate_with(model.greedy_texts, n_per_task, seed, batch_size, tasks)


def evaluate_with(
    decode: Callable[[list[str]], list[str]],
    n_per_task: int,
    seed: int,
    batch_size: int,
    tasks: Sequence[str],
) -> EvalReport:
    """Exact match of ``decode``'s greedy outputs on the held-out examples."""
    examples = held_out_examples(n_per_task, seed, tasks)
    report = EvalReport(n_per_task, seed)
    for start in range(0, len(examples), batch_size):
        chunk = examples[start : start + batch_size]
        outputs = decode([ex.source for ex in chunk])
        for example, output in zip(chunk, outputs, strict=True):
            keys = [example.task] + ([f"date/{example.form}"] if example.form else [])
            for key in keys:
                report.total[key] = report.total.get(key, 0) + 1
                report.correct[key] = report.correct.get(key, 0) + (output == example.target)
            if output != example.target:
                report.failures.append((example.source, example.target, output))
    return report
