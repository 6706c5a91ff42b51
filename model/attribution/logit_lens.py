"""The decoder's logit lens: the next-token distribution read off after every decoder layer.

nostalgebraist (2020) read GPT-2's hidden states through its output layer to see at which layer
the answer appears. For an encoder-decoder, the decoder's output after layer l at the shown
step goes through the model's own final norm (where it has one) and output projection
(``ModelFamily.logit_lens``); the last layer's distribution is the model's own. The lens reads
the model as trained: what-ifs are not applied.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from model.attribution.results import LogitLens
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
