"""What each head of the attention over the source does, measured on fresh task inputs.

For every output token we look at where each head puts its largest weight over the source:

* ``reverse_mirror``: on ``reverse:`` inputs of distinct characters, the share of output
  tokens for which the head's argmax is the mirrored source character (the one being copied);
* ``copy_source``: on all tasks, the share of output tokens that also occur in the source for
  which the argmax lands on a source character equal to the token being written;
* ``mirror_any``: per text style of ``reverse:`` inputs (words with spaces, Chinese, ...), the
  share of output tokens for which at least one head's argmax is the mirrored character.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from model.core.progress import report
from model.generation.engine import GenerationEngine
from model.interface import ModelFamily
from model.tasks.synthetic import MAX_INPUT_LEN, SYMBOLS, TASK_NAMES, TEXT_STYLES, make_example


@dataclass(frozen=True)
class HeadRoles:
    reverse_mirror: np.ndarray  # [L_dec, H] share of output tokens
    copy_source: dict[str, np.ndarray]  # task -> [L_dec, H]
    n_sources: int
    mirror_any: dict[str, float] = field(default_factory=dict)  # text style -> share of output tokens

    def best_mirror_head(self) -> tuple[int, int, float]:
        layer, head = np.unravel_index(np.argmax(self.reverse_mirror), self.reverse_mirror.shape)
        return int(layer), int(head), float(self.reverse_mirror[layer, head])

    def table(self) -> str:
        layers, heads = self.reverse_mirror.shape
        columns = ["reverse: mirror", *(f"{task}: copy" for task in self.copy_source)]
        lines = [f"{'head':<10}" + "".join(f"{c:>17}" for c in columns)]
        for layer in range(layers):
            for head in range(heads):
                values = [
                    self.reverse_mirror[layer, head],
                    *(a[layer, head] for a in self.copy_source.values()),
                ]
                lines.append(f"L{layer + 1} H{head + 1:<6}" + "".join(f"{v * 100:>16.1f}%" for v in values))
        if self.mirror_any:
            lines.append("")
            lines.append("reverse: output tokens with some head's argmax on the mirrored character")
            lines += [f"  {style:<10}{share * 100:>6.1f}%" for style, share in self.mirror_any.items()]
        return "\n".join(lines)


def distinct_reverse_source(rng: random.Random, length: int) -> str:
    return "reverse: " + "".join(rng.sample(SYMBOLS, length))


def mirrored_hits(model: ModelFamily, kind_name: str, source: str) -> tuple[np.ndarray, int]:
    """[L, H, T] whether each head's argmax at each output step is the mirrored character."""
    prefix = len("reverse: ")
    length = len(source) - prefix
    engine = GenerationEngine(model, source)
    engine.run_to_end()
    steps = engine.steps[:length]
    hits = [step.attention[kind_name].argmax(-1) == prefix + length - 1 - t for t, step in enumerate(steps)]
    return np.stack(hits, -1) if hits else np.zeros((0, 0, 0), dtype=bool), len(steps)


def head_roles(model: ModelFamily, n: int = 100, seed: int = 0) -> HeadRoles:
    """Measure every head of the model's attention over the source (the Transformer's
    cross-attention) on ``n`` fresh inputs per task (greedy decoding)."""
    rng = random.Random(f"head-roles-{seed}")
    kind = model.info.alignment_kind
    if kind is None:
        raise ValueError(f"{model.info.display_name} has no attention over the source")
    tokenizer = model.tokenizer
    shape = (kind.layers, kind.heads)
    per_style = max(1, n // 4)
    runs = n + per_style * len(TEXT_STYLES) + n * len(TASK_NAMES)  # generations, for the progress
    mirror_hits, mirror_total = np.zeros(shape), 0
    for i in range(n):
        report(i / runs, "measuring what each head does")
        source = distinct_reverse_source(rng, rng.randint(4, MAX_INPUT_LEN))
        hits, count = mirrored_hits(model, kind.name, source)
        if count:
            mirror_hits += hits.sum(-1)
            mirror_total += count
    mirror_any = {}
    for s, style in enumerate(TEXT_STYLES):
        covered, total = 0, 0
        report((n + s * per_style) / runs, "measuring what each head does")
        for _ in range(per_style):
            hits, count = mirrored_hits(model, kind.name, make_example("reverse", rng, form=style).source)
            if count:
                covered += int(hits.any(axis=(0, 1)).sum())
                total += count
        mirror_any[style] = covered / max(total, 1)
    copy = {}
    for t, task in enumerate(TASK_NAMES):
        hits, total = np.zeros(shape), 0
        for i in range(n):
            report((n + per_style * len(TEXT_STYLES) + t * n + i) / runs, "measuring what each head does")
            source = make_example(task, rng).source
            engine = GenerationEngine(model, source)
            engine.run_to_end()
            source_ids = engine.encoder.src_ids
            for step in engine.steps:
                if step.token_id not in source_ids or step.token_id == tokenizer.eos_id:
                    continue
                hits += source_ids[step.attention[kind.name].argmax(-1)] == step.token_id
                total += 1
        copy[task] = hits / max(total, 1)
    return HeadRoles(mirror_hits / max(mirror_total, 1), copy, n, mirror_any)
