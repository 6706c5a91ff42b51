"""The decoder's logit lens: the next-token distribution read off after every decoder layer.

nostalgebraist (2020) read GPT-2's hidden states through its output layer to see at which layer
the answer appears. For an encoder-decoder, the decoder's output after layer l at the shown
step goes through the model's own final norm (where it has one) and output projection
(``ModelFamily.logit_lens``); the last layer's distribution is the model's own. The lens reads
the model as trained: what-ifs are not applied.

``logit_lens`` reads one step, feeding the decoder what it had read by then; ``logit_lens_grid``
reads every step of the output in one teacher-forced pass: the decoder is causal, so position t
of that pass reads exactly <bos> and the outputs before t, as step t did, and gives the same
numbers (a test holds them equal).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from model.attribution.results import LogitLens, LogitLensGrid
from model.core.batching import encode_sources
from model.interface import NO_INTERVENTIONS, ModelFamily


def unsupported(model: ModelFamily) -> str | None:
    if not model.info.capabilities.logit_lens:
        return "this model's decoder layers cannot be read through its output layer"
    return None


@torch.no_grad()
def logit_lens(
    model: ModelFamily, source: str, output_ids: Sequence[int], step: int, k: int = 5
) -> LogitLens:
    """The lens at ``step`` (0-based) of the output ``output_ids`` the model wrote for ``source``."""
    reason = unsupported(model)
    if reason is not None:
        raise ValueError(f"{model.info.display_name}: {reason}")
    output_ids = [int(i) for i in output_ids]
    if not 0 <= step < len(output_ids):
        raise ValueError(f"step must lie in 0..{len(output_ids) - 1}")
    tokenizer = model.tokenizer
    src, src_pad = encode_sources(tokenizer, [source], model.device)  # (1, S)
    tgt_in = torch.tensor([[tokenizer.bos_id, *output_ids[:step]]], device=model.device)  # (1, step + 1)
    encoded = model.encode(src, src_pad, NO_INTERVENTIONS, capture=False)
    lens = model.logit_lens(encoded, tgt_in)[0, :, step]  # (L, V): each layer at this step
    probs = torch.softmax(lens.float(), dim=-1).double().cpu().numpy()  # (L, V)
    k = min(k, probs.shape[1])
    top_ids = np.argsort(-probs, axis=1, kind="stable")[:, :k]  # (L, k)
    written_id = output_ids[step]
    written_probs = probs[:, written_id]
    written_ranks = 1 + (probs > written_probs[:, None]).sum(1)
    return LogitLens(
        step=step,
        read_tokens=[tokenizer.token_text(int(i)) for i in tgt_in[0]],
        written=tokenizer.token_text(written_id),
        written_id=written_id,
        top_ids=top_ids,
        top_tokens=[[tokenizer.token_text(int(i)) for i in row] for row in top_ids],
        top_probs=np.take_along_axis(probs, top_ids, axis=1),
        written_probs=written_probs,
        written_ranks=written_ranks,
    )


def top_k_stable(probs: np.ndarray, k: int) -> np.ndarray:
    """[..., k] the indices of the k largest values along the last axis, largest first, ties in
    index order: the first k of a stable argsort of ``-probs``, in O(V) a row rather than a
    sort of the whole vocabulary."""
    kth = -np.partition(-probs, k - 1, axis=-1)[..., k - 1 : k]  # (..., 1) the k-th largest value
    top = np.empty((*probs.shape[:-1], k), dtype=np.int64)
    for index in np.ndindex(probs.shape[:-1]):
        row = probs[index]
        candidates = np.flatnonzero(row >= kth[index])  # the k largest and any tie with the k-th
        top[index] = candidates[np.argsort(-row[candidates], kind="stable")][:k]
    return top


@torch.no_grad()
def logit_lens_grid(model: ModelFamily, source: str, output_ids: Sequence[int], k: int = 5) -> LogitLensGrid:
    """The lens at every step of the output ``output_ids`` the model wrote for ``source``, from
    one teacher-forced pass (see the module docstring)."""
    reason = unsupported(model)
    if reason is not None:
        raise ValueError(f"{model.info.display_name}: {reason}")
    output_ids = [int(i) for i in output_ids]
    if not output_ids:
        raise ValueError("nothing to read: the model has not written a token yet")
    tokenizer = model.tokenizer
    src, src_pad = encode_sources(tokenizer, [source], model.device)  # (1, S)
    tgt_in = torch.tensor([[tokenizer.bos_id, *output_ids[:-1]]], device=model.device)  # (1, T)
    encoded = model.encode(src, src_pad, NO_INTERVENTIONS, capture=False)
    lens = model.logit_lens(encoded, tgt_in)[0]  # (L, T, V)
    written_ids = np.array(output_ids)
    layers, steps = lens.shape[:2]
    k = min(k, lens.shape[-1])
    top_ids = np.empty((layers, steps, k), dtype=np.int64)
    top_probs = np.empty((layers, steps, k))
    written_probs, written_ranks = np.empty((layers, steps)), np.empty((layers, steps), dtype=np.int64)
    for layer in range(layers):  # a layer at a time: (T, V) in float64, not (L, T, V)
        probs = torch.softmax(lens[layer].float(), dim=-1).double().cpu().numpy()  # (T, V)
        top_ids[layer] = top_k_stable(probs, k)
        top_probs[layer] = np.take_along_axis(probs, top_ids[layer], axis=1)
        written_probs[layer] = probs[np.arange(steps), written_ids]
        written_ranks[layer] = 1 + (probs > written_probs[layer][:, None]).sum(1)
    return LogitLensGrid(
        read_tokens=[tokenizer.token_text(int(i)) for i in tgt_in[0]],
        written=[tokenizer.token_text(i) for i in output_ids],
        written_ids=written_ids,
        top_ids=top_ids,
        top_tokens=[[[tokenizer.token_text(int(i)) for i in row] for row in layer] for layer in top_ids],
        top_probs=top_probs,
        written_probs=written_probs,
        written_ranks=written_ranks,
    )
