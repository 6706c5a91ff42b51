"""How much each attention head matters: what the model loses when that head alone is zeroed.

Michel et al. (2019, "Are Sixteen Heads Really Better than One?") masked heads one at a time
and found most can go with little loss, while encoder-decoder attention leans on its heads more
than self-attention does. Here, for a sample of (source, reference) pairs, every head of every
kind of attention is zeroed alone (the ``zeroed_heads`` what-if: the same the engine applies
when the user ablates a head in the window) and the references are scored teacher-forced:

- ``ll_drop[kind]`` [L, H]: the mean over pairs of log p(reference | source) as trained minus
  with the head zeroed, in nats per sequence (``<eos>`` included). Positive: the head helps.
- ``exact_match[kind]`` [L, H]: the share of pairs that greedy decoding still gets exactly right
  with the head zeroed. Greedy decoding writes the reference exactly when, at every position of
  the teacher-forced pass, the reference token is the argmax (its ``<eos>`` included): one
  teacher-forced pass measures it, no decoding loop.

The references are the task's answers where the model was trained on the shipped tasks
(``reference_kind = "task"``), otherwise the model's own greedy outputs (``"model"``: exact
match then reads "the output did not change").

``prune_order`` ranks every head from least to most important (by ``ll_drop``);
``prune_exact_match[k]`` and ``prune_ll[k]`` are the sample's exact match and mean
log-likelihood with the k least important heads zeroed together (k = 0 … all heads).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch
import torch.nn.functional as F

from model.attribution.methods import Cancelled, Progress
from model.attribution.results import Head, HeadImportance, Sample, tasks_of
from model.core.batching import encode_sources, pad_ids
from model.interface import NO_INTERVENTIONS, Interventions, ModelFamily
from model.tasks.synthetic import answers, make_example

BATCH = 64  # pairs per teacher-forced pass


def unsupported(model: ModelFamily) -> str | None:
    """Why head importance cannot be measured on ``model``, or None."""
    info = model.info
    if not info.has_attention:
        return info.without_attention
    if not info.capabilities.supports("zeroed_heads"):
        return "this model cannot run with a head zeroed"
    if not info.capabilities.teacher_forcing:
        return "this model cannot be run teacher-forced"
    return None


def model_tasks(model: ModelFamily) -> list[str]:
    """The shipped tasks the model was trained on whose answers are exact (not ``pick``)."""
    return tasks_of(model.metadata)


def task_sample(
    model: ModelFamily, n: int, seed: int = 0, tasks: Sequence[str] | None = None
) -> Sample | None:
    """n fresh examples of the model's tasks (or of those of ``tasks`` it knows), in turn (dates
    with one reading only); None for a model not trained on any of them."""
    known = model_tasks(model)
    tasks = [task for task in known if tasks is None or task in tasks]
    if not tasks:
        return None
    if n < 1:
        raise ValueError("the sample needs at least one example")
    rng = random.Random(f"head-importance-{seed}")
    sources, references = [], []
    while len(sources) < n:
        example = make_example(tasks[len(sources) % len(tasks)], rng)
        if len(answers(example.source)) == 1:  # an ambiguous date has two right answers
            sources.append(example.source)
            references.append(example.target)
    return Sample.of_texts(model, sources, references, "task")


def reference_for(model: ModelFamily, source: str, output: str) -> tuple[str, str]:
    """The reference for one source: the task's answer where the model knows the task and the
    source is one, else what the model wrote. Returns (reference, kind)."""
    task = source.partition(":")[0] if isinstance(source, str) else None
    if task in model_tasks(model):
        try:
            choices = answers(source)
        except ValueError:  # not a well-formed input of the task
            choices = {}
        if len(choices) == 1:
            return next(iter(choices)), "task"
    return output, "model"


def source_sample(model: ModelFamily, source: str, written_ids: Sequence[int]) -> Sample:
    """One source: its task answer as the reference where there is one, else what the model
    wrote (``written_ids``, its ``<eos>`` included if it ended)."""
    reference, kind = reference_for(model, source, model.tokenizer.decode(list(written_ids)))
    if kind == "task":
        return Sample.of_texts(model, [source], [reference], kind)
    return Sample([source], [reference], kind, (tuple(int(i) for i in written_ids),))


def model_sample(model: ModelFamily, sources: Sequence[str]) -> Sample:
    """The model's own greedy outputs as references (for models without a known task)."""
    from model.generation.engine import GenerationEngine

    if not sources:
        raise ValueError("the sample needs at least one source")
    texts, ids = [], []
    for source in sources:
        engine = GenerationEngine(model, source, capture=False)
        engine.run_to_end()
        texts.append(engine.output_text())
        ids.append(tuple(step.token_id for step in engine.steps))
    return Sample(list(sources), texts, "model", tuple(ids))


@dataclass(frozen=True)
class Scores:
    log_likelihood: np.ndarray  # [n] per sequence
    exact: np.ndarray  # [n] bool: greedy decoding would write the reference


@torch.no_grad()
def score(model: ModelFamily, sample: Sample, interventions: Interventions = NO_INTERVENTIONS) -> Scores:
    """Teacher-forced log-likelihood and exact match of every pair under ``interventions``."""
    tokenizer, device = model.tokenizer, model.device
    rows = 1 if not model.info.capabilities.padded_batch else BATCH
    log_likelihood, exact = [], []
    for start in range(0, len(sample.sources), rows):
        sources = sample.sources[start : start + rows]
        targets = sample.target_ids[start : start + rows]
        src, src_pad = encode_sources(tokenizer, sources, device)  # (B, S)
        # the decoder reads <bos> and each written token but the last, and should write them all
        tgt_in, tgt_pad = pad_ids(
            [[tokenizer.bos_id, *ids[:-1]] for ids in targets], tokenizer.pad_id, device
        )
        tgt_pad[:, 0] = False  # the start token is real even where it is the pad id (Marian, T5)
        tgt_out, _ = pad_ids([list(ids) for ids in targets], tokenizer.pad_id, device)
        encoded = model.encode(src, src_pad, interventions, capture=False)
        logits = model.teacher_force(encoded, tgt_in, tgt_pad, interventions).logits.float()  # (B, T, V)
        token_ll = -F.cross_entropy(logits.transpose(1, 2), tgt_out, reduction="none")  # (B, T)
        token_ll = token_ll.masked_fill(tgt_pad, 0.0)
        right = (logits.argmax(-1) == tgt_out) | tgt_pad  # (B, T)
        log_likelihood.append(token_ll.sum(1).double().cpu().numpy())
        exact.append(right.all(1).cpu().numpy())
    return Scores(np.concatenate(log_likelihood), np.concatenate(exact))


def all_heads(model: ModelFamily) -> list[Head]:
    return [
        (kind.name, layer, head)
        for kind in model.info.kinds
        for layer in range(kind.layers)
        for head in range(kind.heads)
    ]


def head_importance(
    model: ModelFamily,
    sample: Sample,
    prune: bool = True,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> HeadImportance:
    """Every head zeroed alone on ``sample`` (and, with ``prune``, the k least important zeroed
    together for every k). ``progress(done, total, what)`` after each pass; ``cancelled()``
    checked between passes (raises ``Cancelled``)."""
    reason = unsupported(model)
    if reason is not None:
        raise ValueError(f"{model.info.display_name}: {reason}")
    longest = max(len(ids) for ids in sample.target_ids)
    if longest > model.info.max_target_len:
        raise ValueError(
            f"a reference has {longest} tokens; this model writes at most {model.info.max_target_len}"
        )
    heads = all_heads(model)
    total = 1 + len(heads) + (len(heads) if prune else 0)
    done = 0

    def advance(what: str) -> None:
        nonlocal done
        if cancelled is not None and cancelled():
            raise Cancelled()
        done += 1
        if progress is not None:
            progress(done, total, what)

    base = score(model, sample)
    advance("as trained")
    kinds = tuple(kind.name for kind in model.info.kinds)
    shapes = {kind.name: (kind.layers, kind.heads) for kind in model.info.kinds}
    ll_drop = {kind: np.zeros(shapes[kind]) for kind in kinds}
    exact_match = {kind: np.zeros(shapes[kind]) for kind in kinds}
    for kind, layer, head in heads:
        zeroed = score(
            model, sample, replace(NO_INTERVENTIONS, zeroed_heads=frozenset({(kind, layer, head)}))
        )
        ll_drop[kind][layer, head] = float(np.mean(base.log_likelihood - zeroed.log_likelihood))
        exact_match[kind][layer, head] = float(zeroed.exact.mean())
        advance(f"{kind} L{layer + 1} H{head + 1} zeroed")
    # least important first; ties keep the family's order (stable sort)
    order = tuple(sorted(heads, key=lambda h: ll_drop[h[0]][h[1], h[2]]))
    prune_exact = [float(base.exact.mean())]
    prune_ll = [float(base.log_likelihood.mean())]
    if prune:
        for k in range(1, len(order) + 1):
            pruned = score(model, sample, replace(NO_INTERVENTIONS, zeroed_heads=frozenset(order[:k])))
            prune_exact.append(float(pruned.exact.mean()))
            prune_ll.append(float(pruned.log_likelihood.mean()))
            advance(f"{k} heads pruned")
    return HeadImportance(
        kinds=kinds,
        titles={kind.name: kind.title for kind in model.info.kinds},
        ll_drop=ll_drop,
        exact_match=exact_match,
        base_ll=float(base.log_likelihood.mean()),
        base_exact_match=float(base.exact.mean()),
        sample=sample,
        prune_order=order,
        prune_exact_match=np.array(prune_exact),
        prune_ll=np.array(prune_ll),
    )
