"""Decoding strategies as pure functions: each takes logits and an explicit seeded generator.

The engine knows nothing about tokenization, and these functions know nothing about the
model: ``next_token_distribution`` turns one step's logits into the distribution before and
after temperature / top-k / top-p, and ``choose_token`` picks from it. ``beam_search`` drives
a ``step_fn`` and records the whole tree it explored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
from torch import Tensor

# torch-free, so that the window can show the settings before torch is imported
from model.generation.decoding_settings import STRATEGIES, DecodingSettings, Strategy  # noqa: F401
from model.generation.records import BeamNode, BeamResult


def next_token_distribution(logits: Tensor, settings: DecodingSettings) -> tuple[Tensor, Tensor]:
    """(model's distribution, distribution to draw from), both (V,) probabilities.

    The first is softmax(logits); the second applies the strategy's temperature and cut-off
    and renormalises (tokens cut off get probability 0). Greedy and beam draw from the first.
    """
    logits = logits.float()
    probs = torch.softmax(logits, dim=-1)
    if settings.strategy in ("greedy", "beam"):
        return probs, probs
    tempered = torch.softmax(logits / settings.temperature, dim=-1)
    if settings.strategy == "topk":
        return probs, keep_top_k(tempered, settings.top_k)
    if settings.strategy == "topp":
        return probs, keep_top_p(tempered, settings.top_p)
    return probs, tempered


def filtered_distribution(logits: np.ndarray, settings: DecodingSettings) -> np.ndarray:
    """[V] float64: ``next_token_distribution``'s distribution to draw from, for numpy logits
    (the decoding panel re-applies the settings live to a recorded step)."""
    _, filtered = next_token_distribution(torch.from_numpy(np.array(logits, dtype=np.float32)), settings)
    return filtered.double().cpu().numpy()


def keep_top_k(probs: Tensor, k: int) -> Tensor:
    """Keep exactly the k most likely tokens (ties broken by index, so k=1 is the argmax)."""
    order = torch.argsort(probs, descending=True, stable=True)
    kept = torch.zeros_like(probs, dtype=torch.bool)
    kept[order[:k]] = True
    return renormalise(probs, kept)


def keep_top_p(probs: Tensor, p: float) -> Tensor:
    """Keep the smallest set of most likely tokens whose total probability reaches p."""
    order = torch.argsort(probs, descending=True, stable=True)
    sorted_probs = probs[order]
    before = torch.cumsum(sorted_probs, 0) - sorted_probs  # mass of the tokens ranked above
    kept_sorted = before < p  # the most likely token is always kept
    kept = torch.zeros_like(probs, dtype=torch.bool)
    kept[order[kept_sorted]] = True
    return renormalise(probs, kept)


def renormalise(probs: Tensor, kept: Tensor) -> Tensor:
    filtered = torch.where(kept, probs, torch.zeros_like(probs))
    return filtered / filtered.sum()


def choose_token(distribution: Tensor, settings: DecodingSettings, generator: torch.Generator | None) -> int:
    """Greedy and beam take the argmax; the sampling strategies draw with ``generator``."""
    if settings.strategy in ("greedy", "beam"):
        return int(torch.argmax(distribution))
    return int(torch.multinomial(distribution.cpu(), 1, generator=generator))


def step_generator(seed: int, position: int) -> torch.Generator:
    """The generator for one output position: stepping back and forward redraws the same."""
    generator = torch.Generator()
    generator.manual_seed(seed * 1_000_003 + position)
    return generator


StepFn = Callable[[list[int], list[int], object], tuple[Tensor, object]]


def beam_search(
    step_fn: StepFn,
    start_state: object,
    start_input: int,
    width: int,
    eos_id: int,
    max_steps: int,
    prefix: Sequence[int] = (),
    prefix_logprobs: Sequence[float] = (),
) -> BeamResult:
    """Beam search of ``width`` hypotheses, recording every candidate it kept or pruned.

    ``step_fn(parents, tokens, state)`` reorders ``state`` (a KV cache, say) to the rows
    ``parents``, feeds ``tokens`` (one per row) and returns ((N, V) log-probabilities, new
    state). ``start_state`` holds one hypothesis: the ``prefix`` (tokens already chosen) read
    up to, not including, ``start_input``. At each step the top 2·width extensions are
    considered in order: an ``<eos>`` one that ranks inside the beam finishes, the first
    ``width`` others stay, the rest are pruned. The search stops when ``width`` hypotheses
    have finished, when no kept hypothesis can beat the best finished one (log-probabilities
    only fall), or at ``max_steps``.
    """
    result = BeamResult()
    parent = BeamNode(0, None, -1, -1, 0.0, "kept")
    result.nodes.append(parent)
    cumulative = 0.0
    for position, token in enumerate(prefix):  # tokens already chosen: a chain of kept nodes
        cumulative += prefix_logprobs[position] if position < len(prefix_logprobs) else 0.0
        parent = BeamNode(len(result.nodes), parent.id, int(token), position, cumulative, "kept")
        result.nodes.append(parent)
    beam, parents, inputs, state = [parent], [0], [start_input], start_state
    finished: list[BeamNode] = []
    for position in range(len(prefix), max_steps):
        logprobs, state = step_fn(parents, inputs, state)  # (N, V)
        scores = torch.tensor([n.logprob for n in beam]).unsqueeze(1) + logprobs.float().cpu()
        vocab = scores.shape[1]
        top = torch.topk(scores.flatten(), min(2 * width, scores.numel()))
        next_beam, parents, inputs = [], [], []
        for score, flat in zip(top.values.tolist(), top.indices.tolist(), strict=True):
            source, token = divmod(flat, vocab)
            node = BeamNode(len(result.nodes), beam[source].id, token, position, score, "pruned")
            result.nodes.append(node)
            if len(next_beam) >= width:
                continue
            if token == eos_id:
                node.status = "finished"
                finished.append(node)
            else:
                node.status = "kept"
                next_beam.append(node)
                parents.append(source)
                inputs.append(token)
        beam = next_beam
        best_finished = max((n.logprob for n in finished), default=float("-inf"))
        if not beam or len(finished) >= width or best_finished >= max(n.logprob for n in beam):
            break
    best = max(finished or beam, key=lambda n: n.logprob)
    result.best_node = best.id
    result.best = result.path(best.id)
    return result
