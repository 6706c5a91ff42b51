"""``decode_one``, the generation step's lean path, equals the general ``decode``."""

import pytest
import torch

from model.core.batching import encode_sources
from model.transformer.model import Interventions
from model.transformer.one_token import decode_one
from tests.factories import small_model

INTERVENTIONS = [
    Interventions(),
    Interventions(no_positional=True),
    Interventions(no_scaling=True),
    Interventions(no_causal_mask=True),
    Interventions(zeroed_heads=frozenset({("dec_self", 0, 1), ("cross", 1, 3), ("cross", 1, 0)})),
]


# named, not printed: a frozenset prints in a per-process order, and pytest-xdist needs the same ids
# in every worker
INTERVENTION_IDS = ["none", "no_positional", "no_scaling", "no_causal_mask", "zeroed_heads"]


@pytest.mark.parametrize("placement", ["post", "pre"])
@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "none"])
@pytest.mark.parametrize("interventions", INTERVENTIONS, ids=INTERVENTION_IDS)
def test_decode_one_equals_decode_step_by_step(placement, positional, interventions):
    model, tokenizer = small_model(seed=3, norm_placement=placement, positional=positional)
    src, pad = encode_sources(tokenizer, ["reverse: lean path"], torch.device("cpu"))
    with torch.no_grad():
        encoded = model.encode(src, pad, interventions=interventions)
        general = lean = model.start_cache(encoded)
        for position, token in enumerate([tokenizer.bos_id, 7, 12, 7, 30, 5]):
            reference = model.decode(
                torch.tensor([[token]]), encoded, general, capture=True, interventions=interventions
            )
            for capture in (True, False):
                step = decode_one(model, token, encoded, lean, capture=capture, interventions=interventions)
                torch.testing.assert_close(step.logits, reference.logits[0, -1], rtol=1e-5, atol=1e-5)
                for ours, theirs in zip(
                    step.cache.self_k + step.cache.self_v,
                    reference.cache.self_k + reference.cache.self_v,
                    strict=True,
                ):
                    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-6)
                assert (step.rows is not None) == capture
            rows = decode_one(model, token, encoded, lean, capture=True, interventions=interventions).rows
            layers = reference.layers
            assert rows.dec_self.shape == (2, 4, position + 1)
            for index, layer in enumerate(layers):
                torch.testing.assert_close(rows.dec_self[index], layer.attention["self"].weights[0, :, 0])
                torch.testing.assert_close(rows.cross[index], layer.attention["cross"].weights[0, :, 0])
                for sublayer, norm in enumerate(layer.norms):
                    expected = torch.stack(
                        [norm.in_mean[0, 0], norm.in_std[0, 0], norm.out_mean[0, 0], norm.out_std[0, 0]]
                    )
                    torch.testing.assert_close(rows.norms[index, sublayer], expected, rtol=1e-4, atol=1e-5)
            general, lean = reference.cache, step.cache


def test_decode_one_refuses_training_mode():
    model, tokenizer = small_model()
    src, pad = encode_sources(tokenizer, ["abc"], torch.device("cpu"))
    encoded = model.encode(src, pad)
    model.train()
    with pytest.raises(RuntimeError, match="eval"):
        decode_one(model, tokenizer.bos_id, encoded, model.start_cache(encoded))
