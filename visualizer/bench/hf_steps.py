"""A Hugging Face model stepped by the app against the library stepping it itself.

``hf_family_step_ms``
    One decoding step of a Marian-base-sized model (d_model 512, 6 + 6 layers, 8 heads, ffn
    2,048, vocabulary 58,000; random weights, nothing is downloaded) through the app's family
    (``model/hf/``): the library's modules with the recorded attention, every layer's weights
    and scores kept, the key/value cache handed over as plain tensors, the generation settings
    applied. Source: 128 random token ids.
``hf_library_step_ms``
    The same model, the same weights, stepped by the library alone: one decoder call per step
    with its own cache, eager attention and ``output_attentions=True``, then the argmax.
``hf_family_vs_library``
    hf_family_step_ms / hf_library_step_ms (budget: 1.1).
``hf_512_step_to_paint_ms``
    The real window (offscreen) with that model saved as a folder (with a word-level tokenizer
    of 58,000 made-up words, ``w2 w3 …``) and opened as a user opens one, reading a source of
    512 tokens (511 words and ``</s>``), cross-attention shown (6 × 8 heads of steps × 512):
    a press of → until the window has painted the new step, as ``step_to_paint_ms`` measures
    it for the shipped model (budget: 50 ms).

The step figures are medians over interleaved rounds, with the threads the app steps such a
model with. Not measured with ``--quick`` (building the model alone takes seconds).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import torch

from model.core.threads import step_threads
from model.interface import NO_INTERVENTIONS
from visualizer.bench.steps import hf_step_times

MARIAN_BASE = dict(
    vocab_size=58_000,
    d_model=512,
    encoder_layers=6,
    decoder_layers=6,
    encoder_attention_heads=8,
    decoder_attention_heads=8,
    encoder_ffn_dim=2048,
    decoder_ffn_dim=2048,
    max_position_embeddings=512,
    pad_token_id=57_999,
    decoder_start_token_id=57_999,
    eos_token_id=0,
)
SOURCE_TOKENS = 128
WINDOW_SOURCE_WORDS = 511  # + </s>: 512 tokens, Marian-base's longest source


def models():
    """The library's model (eager) and the app's family over a copy with the same weights."""
    from transformers import MarianConfig, MarianMTModel

    import model.hf  # noqa: F401  (offline)
    from model.hf.family import HFFamily
    from model.hf.generation_rules import GenerationRules
    from model.hf.loading import import_library
    from model.hf.tokenizer import HFTokenizer

    import_library()  # registers the recorded attention
    torch.manual_seed(0)
    library = MarianMTModel(MarianConfig(**MARIAN_BASE, attn_implementation="eager")).eval()
    ours = MarianMTModel(MarianConfig(**MARIAN_BASE, attn_implementation="attnviz")).eval()
    ours.load_state_dict(library.state_dict())
    # the steps read ids only: a tokenizer with nothing but its special ids
    stub = SimpleNamespace(unk_token_id=1, all_special_ids=[0, 1, 57_999], all_special_tokens=[])
    tokenizer = HFTokenizer(stub, vocab_size=58_000, decoder_start_id=57_999, eos_id=0, pad_id=57_999)
    family = HFFamily(ours, tokenizer, "marian", GenerationRules(max_length=512, bad_words_ids=((57_999,),)))
    return library, family


def family_step_times(family, source: torch.Tensor, steps: int) -> list[float]:
    """Seconds of each captured step through the family, greedy."""
    encoded = family.encode(
        source, torch.zeros_like(source, dtype=torch.bool), NO_INTERVENTIONS, capture=True
    )
    cache = family.start(encoded)
    token = family.tokenizer.bos_id
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        out = family.step(token, encoded, cache, NO_INTERVENTIONS, True)
        token, cache = int(out.logits.argmax()), out.cache
        [row.numpy() for row in out.attention.values()]  # as the engine hands them on
        times.append(time.perf_counter() - started)
    return times


def measure_hf_steps(quick: bool, rounds: int = 5, steps: int = 24) -> dict[str, float]:
    if quick:
        return {}
    library, family = models()
    source = torch.randint(2, 57_000, (1, SOURCE_TOKENS))
    samples: dict[str, list[float]] = {"hf_family_step_ms": [], "hf_library_step_ms": []}
    before = torch.get_num_threads()
    torch.set_num_threads(step_threads(family.info.parameters))
    try:
        with torch.no_grad():
            for round_number in range(rounds + 1):  # the first round warms up
                ours = family_step_times(family, source, steps)
                theirs = hf_step_times(library, source, steps)
                if round_number:
                    samples["hf_family_step_ms"] += ours
                    samples["hf_library_step_ms"] += theirs
    finally:
        torch.set_num_threads(before)
    result = {name: 1000 * statistics.median(times) for name, times in samples.items()}
    result["hf_family_vs_library"] = result["hf_family_step_ms"] / result["hf_library_step_ms"]
    return result


def write_marian_base_folder(folder: Path) -> Path:
    """A Marian-base-sized random model saved as a user's folder is: config, safetensors
    weights and a tokenizer (word-level: ``w2`` … ``w57998``, ``</s>`` appended to a source)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import MarianConfig, MarianMTModel, PreTrainedTokenizerFast

    vocab = {"</s>": 0, "<unk>": 1, **{f"w{i}": i for i in range(2, 57_999)}, "<pad>": 57_999}
    words = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    words.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 0)])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=words, eos_token="</s>", unk_token="<unk>", pad_token="<pad>"
    )
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    MarianMTModel(MarianConfig(**MARIAN_BASE)).save_pretrained(folder)
    return folder


def measure_hf_window(repeats: int = 20) -> dict[str, float]:
    """``hf_512_step_to_paint_ms`` (see the module docstring)."""
    from visualizer.bench.paint import application, step_to_paint

    application()
    generator = torch.Generator().manual_seed(0)
    words = torch.randint(2, 57_999, (WINDOW_SOURCE_WORDS,), generator=generator).tolist()
    with tempfile.TemporaryDirectory() as folder:
        path = write_marian_base_folder(Path(folder) / "marian-base-random")
        source = " ".join(f"w{word}" for word in words)
        milliseconds = step_to_paint(repeats, checkpoint=path, source=source, kind="cross")
    return {"hf_512_step_to_paint_ms": milliseconds}
