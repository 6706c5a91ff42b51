"""What a generation keeps grows with steps × length, never steps × length²."""

from dataclasses import replace

import torch

from model.generation.engine import GenerationEngine
from tests.factories import small_family


def test_step_records_hold_one_row_per_step_and_nothing_more():
    fam = small_family(seed=4, max_len=48)
    tokenizer = fam.tokenizer
    engine = GenerationEngine(fam, "reverse: memory")
    with torch.no_grad():
        for _ in range(30):
            record = engine.step()
            if record is not None and record.token_id == tokenizer.eos_id:
                engine.force(tokenizer.index["a"])
    snapshot = engine.snapshot()
    config, steps = snapshot.info.config, len(snapshot.steps)
    layers, heads, vocab = config["n_decoder_layers"], config["n_heads"], config["vocab_size"]
    source = len(snapshot.encoder.src_ids)
    float_bytes = 4
    per_step_fixed = float_bytes * (
        layers * heads * source + layers * 3 * 4 + 2 * vocab
    )  # cross, norms, logits+probs
    rows = float_bytes * layers * heads * sum(t + 1 for t in range(steps))  # self-attention rows: 1..t+1
    encoder = replace(snapshot, steps=()).nbytes
    assert steps == 30
    assert snapshot.nbytes - encoder == steps * per_step_fixed + rows
