"""Greedy outputs of the Transformer for many sources at once, batched with the KV cache.

What training's evaluation and ``attnviz eval`` decode thousands of sources with; the engine's
one-source-at-a-time greedy steps give the same outputs (tests/model/test_family_interface.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from model.core.batching import encode_sources
from model.core.tokenizer import CharTokenizer
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
