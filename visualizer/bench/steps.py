"""How long one generation step takes: ours with and without capture, and the peer's.

Every figure is a median, in milliseconds, over repeated generations after a warm-up. The
three subjects are timed in turn within each round (ours captured, ours without capture,
the peer), so that a machine slowing down in the middle of a run slows all three alike:
compare the ratios.

``step_ms``
    ``GenerationEngine.step()`` with every attention row and LayerNorm statistic captured
    and turned into the read-only numpy record the GUI shows: the shipped model, the source
    "reverse: abcdefghijklmno" (24 characters), greedy, each of the 16 steps it takes.
``step_nocapture_ms``
    The same step with capture off (``GenerationEngine(capture=False)``), which attends
    through the fused SDPA kernel; ``capture_overhead`` = step_ms / step_nocapture_ms.
``hf_step_ms``
    The peer: Hugging Face ``transformers`` Marian built from a config of the same sizes
    (random weights; nothing is downloaded), eager attention so that it returns weights, one
    decoder call per step with its KV cache and ``output_attentions=True``, then the argmax.
    ``vs_hf`` = step_ms / hf_step_ms.
``large_*``
    The same four for a larger config (d_model 512, 6 + 6 layers, 8 heads, ffn 2048,
    vocabulary 8,000) over a 128-token source, random weights on both sides.

Both sides run with the intra-op threads the app steps that model with (``step_threads``:
one for the shipped model, and on a machine of two cores for every model).
``large_matvec_floor_ms``
    The matrix-vector products one step of the larger config needs and nothing else:
    every decoder projection (self-attention Q, K, V, output; cross-attention Q, output;
    both feed-forward layers) and the output layer, applied to one vector. No
    implementation of the step can be faster than this on the machine.
``trace_bytes_per_step``, ``trace_mb``
    What a long generation keeps: the larger config (max_len 1,024) generating 1,000 steps
    (100 with --quick) from a 128-token source, every record's arrays counted once. An
    ``<eos>`` the random model picks is replaced by another token, so the generation runs on.
"""

from __future__ import annotations

import inspect
import random
import statistics
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from model.core.threads import step_threads
from model.core.tokenizer import SPECIAL_TOKENS, CharTokenizer
from model.generation.engine import GenerationEngine
from model.shipped import default_checkpoint_path
from model.transformer.checkpoint import load_checkpoint
from model.transformer.family import TransformerFamily
from model.transformer.model import Transformer, TransformerConfig

SOURCE = "reverse: abcdefghijklmno"
LARGE_CONFIG = dict(
    d_model=512, n_heads=8, n_encoder_layers=6, n_decoder_layers=6, d_ff=2048, dropout=0.0, max_len=1024
)
LARGE_VOCAB = 8000
LARGE_SOURCE_LENGTH = 128


@dataclass
class Subject:
    """A model, its tokenizer and the source every step is timed on."""

    model: Transformer
    tokenizer: CharTokenizer
    source: str
    steps: int  # steps timed per generation


def shipped_subject() -> Subject:
    checkpoint = load_checkpoint(default_checkpoint_path(), "cpu")
    steps = len(SOURCE.split(": ", 1)[1]) + 1  # the reversed characters, then <eos>
    return Subject(checkpoint.model, checkpoint.tokenizer, SOURCE, steps)


def large_subject(steps: int) -> Subject:
    """The larger config with random weights; its vocabulary is CJK characters."""
    torch.manual_seed(0)
    characters = [chr(0x4E00 + i) for i in range(LARGE_VOCAB - len(SPECIAL_TOKENS))]
    tokenizer = CharTokenizer([*SPECIAL_TOKENS, *characters])
    model = Transformer(TransformerConfig(vocab_size=len(tokenizer), **LARGE_CONFIG)).eval()
    source = "".join(random.Random(0).choices(characters, k=LARGE_SOURCE_LENGTH - 1))  # + <eos>
    return Subject(model, tokenizer, source, steps)


# -- ours ---------------------------------------------------------------------------------
def engine_step_times(subject: Subject, capture: bool) -> list[float]:
    """Seconds of each of ``subject.steps`` calls of ``step()`` in one generation."""
    engine = GenerationEngine(
        TransformerFamily(subject.model, subject.tokenizer), subject.source, capture=capture
    )
    times = []
    for position in range(subject.steps):
        started = time.perf_counter()
        record = engine.step()
        times.append(time.perf_counter() - started)
        if position < subject.steps - 1:  # every position the peer is timed at is timed here too
            go_on_after_eos(engine, record)
    return times


def go_on_after_eos(engine: GenerationEngine, record) -> None:
    """Replace an <eos> the (random) model chose by its second choice, off the clock, so that
    the generation runs on."""
    if record is not None and record.token_id == engine.tokenizer.eos_id:
        engine.force(int(np.argsort(record.probs)[-2]))


# -- the peer -----------------------------------------------------------------------------
def hf_available() -> str | None:
    """None when the peer can run, else why not."""
    try:
        import transformers  # noqa: F401
    except ImportError:
        return "transformers is not installed (pip install -e '.[bench]')"
    return None


def hf_peer(config: TransformerConfig):
    """Marian of the same sizes, random weights, eager attention (the only kind that returns
    weights: the default SDPA one returns empty tuples with a warning)."""
    from transformers import MarianConfig, MarianMTModel

    peer_config = MarianConfig(
        vocab_size=config.vocab_size,
        d_model=config.d_model,
        encoder_layers=config.n_encoder_layers,
        decoder_layers=config.n_decoder_layers,
        encoder_attention_heads=config.n_heads,
        decoder_attention_heads=config.n_heads,
        encoder_ffn_dim=config.d_ff,
        decoder_ffn_dim=config.d_ff,
        max_position_embeddings=config.max_len,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        pad_token_id=0,
        decoder_start_token_id=1,
        eos_token_id=2,
        attn_implementation="eager",
    )
    torch.manual_seed(0)
    return MarianMTModel(peer_config).eval()


def hf_step_times(peer, source_ids: torch.Tensor, steps: int) -> list[float]:
    """Seconds of each decoder call of a greedy loop over the encoded source (1, S)."""
    cache_name = "cache" if "cache" in inspect.signature(type(peer).forward).parameters else "past_key_values"
    with torch.no_grad():
        encoded = peer.get_encoder()(input_ids=source_ids, output_attentions=True)
        token = torch.tensor([[peer.config.decoder_start_token_id]])
        cache = None
        times = []
        for _ in range(steps):
            started = time.perf_counter()
            out = peer(
                encoder_outputs=encoded,
                decoder_input_ids=token,
                use_cache=True,
                output_attentions=True,
                **{cache_name: cache},
            )
            token = out.logits[:, -1].argmax(-1, keepdim=True)
            times.append(time.perf_counter() - started)
            cache = getattr(out, cache_name)
    if not out.cross_attentions or out.cross_attentions[0].shape[-1] != source_ids.shape[1]:
        raise RuntimeError("the peer returned no attention weights: it would be timed doing less work")
    return times


# -- the comparison -------------------------------------------------------------------------
@contextmanager
def step_threads_of(model: Transformer):
    """The intra-op threads the app would step this model with (see model/core/threads.py), for
    ours and the peer alike."""
    before = torch.get_num_threads()
    torch.set_num_threads(step_threads(model.config.parameter_count()))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def compare(
    subject: Subject, rounds: int, warmup: int, with_peer: bool, prefix: str = ""
) -> dict[str, float]:
    """Interleaved rounds of ours (captured, not captured) and the peer; medians in ms."""
    runners: dict[str, Callable[[], list[float]]] = {
        "step_ms": lambda: engine_step_times(subject, capture=True),
        "step_nocapture_ms": lambda: engine_step_times(subject, capture=False),
    }
    if with_peer:
        peer = hf_peer(subject.model.config)
        ids = torch.tensor([subject.tokenizer.encode_source(subject.source).ids])
        runners["hf_step_ms"] = lambda: hf_step_times(peer, ids, subject.steps)
    samples: dict[str, list[float]] = {name: [] for name in runners}
    with torch.no_grad(), step_threads_of(subject.model):
        for round_number in range(warmup + rounds):
            for name, run in runners.items():
                times = run()
                if round_number >= warmup:
                    samples[name].extend(times)
    result = {prefix + name: 1000 * statistics.median(times) for name, times in samples.items()}
    result[prefix + "capture_overhead"] = result[prefix + "step_ms"] / result[prefix + "step_nocapture_ms"]
    if with_peer:
        result[prefix + "vs_hf"] = result[prefix + "step_ms"] / result[prefix + "hf_step_ms"]
    return result


def matvec_floor_ms(model: Transformer, repeats: int) -> float:
    """Median ms of one step's matrix-vector products alone (see the module docstring)."""
    layers = []
    for layer in model.decoder_layers:
        for attention, names in ((layer.self_attn, "qkvo"), (layer.src_attn, "qo")):
            projections = {"q": attention.q_proj, "k": attention.k_proj, "v": attention.v_proj}
            projections["o"] = attention.out_proj
            layers += [projections[name] for name in names]
        layers += [layer.ffn.linear1, layer.ffn.linear2]
    x = torch.randn(1, model.config.d_model)
    hidden = torch.randn(1, model.config.d_ff)
    times = []
    with torch.no_grad(), step_threads_of(model):
        for _ in range(repeats):
            started = time.perf_counter()
            for layer in layers:
                F.linear(hidden if layer.in_features == model.config.d_ff else x, layer.weight, layer.bias)
            F.linear(x, model.generator.weight)
            times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times[1:])


def measure_trace(subject: Subject, steps: int) -> dict[str, float]:
    """What ``steps`` steps of a long generation keep (see the module docstring)."""
    engine = GenerationEngine(TransformerFamily(subject.model, subject.tokenizer), subject.source)
    with torch.no_grad(), step_threads_of(subject.model):
        for _ in range(steps):
            go_on_after_eos(engine, engine.step())
    snapshot = engine.snapshot()
    total = snapshot.nbytes
    return {
        "trace_steps": float(len(snapshot.steps)),
        "trace_bytes_per_step": total / len(snapshot.steps),
        "trace_mb": total / 1e6,
    }


def measure_steps(quick: bool, progress: Callable[[str], None] = lambda _: None) -> dict[str, float]:
    """Every step figure of the module docstring; the peer's are left out without transformers."""
    with_peer = hf_available() is None
    rounds, warmup = (3, 1) if quick else (15, 2)
    progress("steps: the shipped model")
    shipped = shipped_subject()
    result = compare(shipped, rounds, warmup, with_peer)
    progress("steps: the larger config")
    large = large_subject(steps=8 if quick else 24)
    result |= compare(large, rounds=2 if quick else 7, warmup=1, with_peer=with_peer, prefix="large_")
    result["step_threads"] = float(step_threads(shipped.model.config.parameter_count()))
    result["large_step_threads"] = float(step_threads(large.model.config.parameter_count()))
    result["large_matvec_floor_ms"] = matvec_floor_ms(large.model, repeats=10 if quick else 100)
    trace_steps = 100 if quick else 1000
    progress(f"trace: {trace_steps} steps of the larger config")
    result |= measure_trace(large, trace_steps)
    return result
