"""The Whisper-compatible model folder: a byte-level BPE tokenizer whose every vocabulary word is
one token, Whisper's special tokens after it, the feature extractor, the config and the
generation config, all readable by plain transformers offline.

The setup is English-only, like ``tiny.en``: the decoder starts with
``<|startoftranscript|><|notimestamps|>`` and writes the words, each a token beginning with a
space, then ``<|endoftext|>``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|startoftranscript|>",
    "<|en|>",
    "<|translate|>",
    "<|transcribe|>",
    "<|startoflm|>",
    "<|startofprev|>",
    "<|nocaptions|>",
    "<|notimestamps|>",
)
PROMPT = ("<|startoftranscript|>", "<|notimestamps|>")


@dataclass(frozen=True)
class Shape:
    """The model's size. ``chunk_seconds`` fixes the encoder's length: 100 mel frames a second,
    halved by the second convolution, so ``max_source_positions = 50 * chunk_seconds``."""

    d_model: int = 128
    encoder_layers: int = 3
    decoder_layers: int = 4
    heads: int = 4
    ffn: int = 512
    chunk_seconds: int = 5
    max_target_positions: int = 24
    num_mel_bins: int = 80


def build_tokenizer(words: Sequence[str]):
    """A WhisperTokenizer over a byte-level BPE trained until each ``" word"`` is one token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import WhisperTokenizer

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=100_000, initial_alphabet=alphabet, show_progress=False)
    bpe.train_from_iterator([" " + w for w in words] * 4, trainer)
    model = json.loads(bpe.to_str())["model"]
    tokenizer = WhisperTokenizer(vocab=model["vocab"], merges=[tuple(m) for m in model["merges"]])
    tokenizer.add_special_tokens({"additional_special_tokens": list(SPECIAL_TOKENS[1:])})
    tokenizer.model_max_length = Shape.max_target_positions
    tokenizer.set_prefix_tokens()  # the prompt's ids exist only now
    for word in words:
        ids = tokenizer.encode(" " + word, add_special_tokens=False)
        if len(ids) != 1:
            raise AssertionError(f"{word!r} is {len(ids)} tokens")
    return tokenizer


def build_feature_extractor(shape: Shape = Shape()):
    from transformers import WhisperFeatureExtractor

    return WhisperFeatureExtractor(feature_size=shape.num_mel_bins, chunk_length=shape.chunk_seconds)


def token_ids(tokenizer) -> dict[str, int]:
    return {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}


def build_config(tokenizer, shape: Shape = Shape()):
    from transformers import WhisperConfig

    ids = token_ids(tokenizer)
    eot = ids["<|endoftext|>"]
    return WhisperConfig(
        vocab_size=len(tokenizer),
        num_mel_bins=shape.num_mel_bins,
        d_model=shape.d_model,
        encoder_layers=shape.encoder_layers,
        decoder_layers=shape.decoder_layers,
        encoder_attention_heads=shape.heads,
        decoder_attention_heads=shape.heads,
        encoder_ffn_dim=shape.ffn,
        decoder_ffn_dim=shape.ffn,
        max_source_positions=50 * shape.chunk_seconds,
        max_target_positions=shape.max_target_positions,
        pad_token_id=eot,
        bos_token_id=eot,
        eos_token_id=eot,
        decoder_start_token_id=ids["<|startoftranscript|>"],
        begin_suppress_tokens=None,  # generation rules live in generation_config.json only
        suppress_tokens=None,
        median_filter_width=7,
        dropout=0.0,
    )


def build_generation_config(tokenizer, shape: Shape = Shape(), alignment_heads=None):
    from transformers import GenerationConfig

    ids = token_ids(tokenizer)
    eot = ids["<|endoftext|>"]
    # every special token but the end is never written after the prompt
    suppress = [ids[t] for t in SPECIAL_TOKENS[1:]]
    return GenerationConfig(
        decoder_start_token_id=ids["<|startoftranscript|>"],
        bos_token_id=eot,
        eos_token_id=eot,
        pad_token_id=eot,
        no_timestamps_token_id=ids["<|notimestamps|>"],
        prev_sot_token_id=ids["<|startofprev|>"],
        forced_decoder_ids=None,
        is_multilingual=False,
        suppress_tokens=suppress,
        begin_suppress_tokens=[tokenizer.convert_tokens_to_ids("Ġ"), eot],
        max_length=shape.max_target_positions,
        max_initial_timestamp_index=50,
        alignment_heads=[list(h) for h in alignment_heads]
        if alignment_heads
        else [[shape.decoder_layers - 1, 0]],
        return_timestamps=False,
    )


def save_folder(model, tokenizer, feature_extractor, directory: Path, alignment_heads=None) -> None:
    """Writes the folder: float16 safetensors weights, config, generation config, tokenizer files,
    preprocessor_config.json. ``model`` is saved as float16 and left as it was."""
    import copy

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    half = copy.deepcopy(model).half()
    half.generation_config = build_generation_config(tokenizer, shape_of(model.config), alignment_heads)
    half.save_pretrained(directory, safe_serialization=True)
    # stored as float16 to be small, run as float32: from_pretrained then upcasts, so features
    # from the feature extractor (float32) go straight in
    config_path = directory / "config.json"
    config = json.loads(config_path.read_text())
    config["dtype"] = "float32"
    config_path.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    tokenizer.save_pretrained(directory)
    feature_extractor.save_pretrained(directory)


def shape_of(config) -> Shape:
    return Shape(
        d_model=config.d_model,
        encoder_layers=config.encoder_layers,
        decoder_layers=config.decoder_layers,
        heads=config.decoder_attention_heads,
        ffn=config.decoder_ffn_dim,
        chunk_seconds=config.max_source_positions // 50,
        max_target_positions=config.max_target_positions,
        num_mel_bins=config.num_mel_bins,
    )
