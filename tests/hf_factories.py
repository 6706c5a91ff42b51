"""Tiny random Hugging Face encoder-decoders, built from configs and saved to a folder, with
tokenizers trained here on a few sentences: nothing is downloaded.

``write_hf_model(kind, folder)`` writes what ``save_pretrained`` writes for a real model of that
architecture: config.json, generation_config.json, model.safetensors and the tokenizer's files
(Marian's two SentencePiece models and vocab.json; the others' tokenizer.json).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")
import torch  # noqa: E402

import model.hf  # noqa: E402, F401  (forces offline mode before the library reads its settings)

CORPUS = [
    "the cat sat on the mat",
    "attention is all you need",
    "a dog runs in the park and the cat sleeps",
    "we translate one sentence at a time",
    "le chat est sur le tapis",
    "der hund läuft im park",
    "où est la gare ? à gauche !",
    "numbers 0 1 2 3 4 5 6 7 8 9",
]
KINDS = ("marian", "bart", "mbart", "t5", "nllb")  # text models
SPEECH_KINDS = ("whisper",)  # speech models, which read audio files
# Whisper's special tokens, in its order (the start of transcript, languages, tasks, no-timestamps)
WHISPER_SPECIAL = [
    "<|endoftext|>",
    "<|startoftranscript|>",
    "<|en|>",
    "<|fr|>",
    "<|translate|>",
    "<|transcribe|>",
    "<|notimestamps|>",
]
# a short window (2 s: 200 mel frames, 100 encoder positions) keeps the tiny model's steps fast
WHISPER_WINDOW_S = 2
SMALL = dict(
    d_model=16,
    encoder_layers=2,
    decoder_layers=3,
    encoder_attention_heads=2,
    decoder_attention_heads=4,
    encoder_ffn_dim=32,
    decoder_ffn_dim=32,
    max_position_embeddings=64,
)


def trained_bpe(
    special: list[str], vocab_size: int = 160, byte_level: bool = False
) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """A BPE vocabulary and merges trained on the corpus, ``special`` first: SentencePiece-style
    (``▁`` starts a word) or byte-level as BART's (``Ġ``)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(unk_token=None if byte_level else "<unk>"))
    alphabet = []
    if byte_level:
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        alphabet = pre_tokenizers.ByteLevel.alphabet()
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=special, initial_alphabet=alphabet, show_progress=False
    )
    tokenizer.train_from_iterator(CORPUS, trainer)
    state = json.loads(tokenizer.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in state["merges"]]
    return state["vocab"], merges


def sentencepiece_model(vocab_size: int = 80) -> bytes:
    import sentencepiece as spm

    writer = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS * 4),
        model_writer=writer,
        vocab_size=vocab_size,
        model_type="unigram",
        character_coverage=1.0,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    return writer.getvalue()


def marian_tokenizer(folder: Path):
    spm_bytes = sentencepiece_model()
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes(spm_bytes)
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_proto=spm_bytes)
    pieces = [processor.id_to_piece(i) for i in range(processor.get_piece_size())]
    vocab = {"</s>": 0, "<unk>": 1}
    for piece in pieces:
        if piece not in ("<s>", "</s>", "<unk>"):
            vocab.setdefault(piece, len(vocab))
    vocab["<pad>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    return transformers.MarianTokenizer(
        str(folder / "source.spm"), str(folder / "target.spm"), str(folder / "vocab.json")
    )


def unigram_pieces(special: list[str]) -> list[tuple[str, float]]:
    """(piece, log-probability) of a SentencePiece-style vocabulary, ``special`` first."""
    vocab, _ = trained_bpe(special)
    pieces = [(token, 0.0) for token in special]
    ordinary = [piece for piece in sorted(vocab, key=vocab.get) if piece not in special]
    return pieces + [(piece, -1.0 - i / 10) for i, piece in enumerate(ordinary)]


def t5_tokenizer():
    return transformers.T5Tokenizer(vocab=unigram_pieces(["<pad>", "</s>", "<unk>"]), extra_ids=0)


# fairseq's special ids, which BART, mBART and M2M100/NLLB share: <s> 0, <pad> 1, </s> 2; the
# decoder starts from </s>
FAIRSEQ_IDS = dict(pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2)


def build(kind: str, folder: Path, **sizes):
    """The tokenizer and a random model of ``kind``, with the generation settings the real ones
    have; ``sizes`` replace ``SMALL``'s (not for T5)."""
    torch.manual_seed(0)
    small = {**SMALL, **sizes}
    if kind == "marian":
        tokenizer = marian_tokenizer(folder)
        vocab = len(tokenizer)
        pad = tokenizer.pad_token_id
        config = transformers.MarianConfig(
            vocab_size=vocab,
            pad_token_id=pad,
            decoder_start_token_id=pad,
            eos_token_id=0,
            forced_eos_token_id=0,
            **small,
        )
        model = transformers.MarianMTModel(config)
        model.generation_config.bad_words_ids = [[pad]]  # as every opus-mt model's settings say
        model.generation_config.max_length = 24
    elif kind == "bart":
        vocab_map, merges = trained_bpe(["<s>", "<pad>", "</s>", "<unk>", "<mask>"], 400, byte_level=True)
        tokenizer = transformers.BartTokenizer(vocab=vocab_map, merges=merges)
        config = transformers.BartConfig(
            vocab_size=len(tokenizer), **FAIRSEQ_IDS, forced_bos_token_id=0, forced_eos_token_id=2, **small
        )
        model = transformers.BartForConditionalGeneration(config)
        model.generation_config.no_repeat_ngram_size = 3  # as bart-large-cnn's settings
        model.generation_config.min_length = 4
    elif kind == "mbart":
        pieces = unigram_pieces(["<s>", "<pad>", "</s>", "<unk>"])
        tokenizer = transformers.MBartTokenizer(vocab=pieces, src_lang="en_XX", tgt_lang="fr_XX")
        config = transformers.MBartConfig(
            vocab_size=len(tokenizer), **FAIRSEQ_IDS, forced_eos_token_id=2, **small
        )
        model = transformers.MBartForConditionalGeneration(config)
        model.generation_config.forced_bos_token_id = tokenizer.convert_tokens_to_ids("fr_XX")
    elif kind == "nllb":
        vocab_map, merges = trained_bpe(["<s>", "<pad>", "</s>", "<unk>"])
        tokenizer = transformers.NllbTokenizer(vocab=vocab_map, merges=merges, src_lang="eng_Latn")
        config = transformers.M2M100Config(vocab_size=len(tokenizer), **FAIRSEQ_IDS, **small)
        model = transformers.M2M100ForConditionalGeneration(config)
        model.generation_config.max_length = 20
    elif kind == "whisper":
        vocab_map, merges = trained_bpe(WHISPER_SPECIAL, 300, byte_level=True)
        tokenizer = transformers.WhisperTokenizer(vocab=vocab_map, merges=merges, unk_token="<|endoftext|>")
        tokenizer.add_special_tokens({"additional_special_tokens": WHISPER_SPECIAL[1:]})  # as Whisper's
        ids = {token: tokenizer.convert_tokens_to_ids(token) for token in WHISPER_SPECIAL}
        config = transformers.WhisperConfig(
            vocab_size=len(tokenizer),
            num_mel_bins=80,
            d_model=16,
            encoder_layers=2,
            decoder_layers=2,
            encoder_attention_heads=2,
            decoder_attention_heads=4,
            encoder_ffn_dim=32,
            decoder_ffn_dim=32,
            max_source_positions=WHISPER_WINDOW_S * 50,
            max_target_positions=32,
            pad_token_id=ids["<|endoftext|>"],
            bos_token_id=ids["<|endoftext|>"],
            eos_token_id=ids["<|endoftext|>"],
            decoder_start_token_id=ids["<|startoftranscript|>"],
            begin_suppress_tokens=None,
            suppress_tokens=None,
        )
        model = transformers.WhisperForConditionalGeneration(config)
        generation = model.generation_config
        generation.decoder_start_token_id = ids["<|startoftranscript|>"]
        generation.eos_token_id = generation.pad_token_id = ids["<|endoftext|>"]
        generation.no_timestamps_token_id = ids["<|notimestamps|>"]
        generation.lang_to_id = {"<|en|>": ids["<|en|>"], "<|fr|>": ids["<|fr|>"]}
        generation.task_to_id = {"translate": ids["<|translate|>"], "transcribe": ids["<|transcribe|>"]}
        generation.is_multilingual = True
        generation.suppress_tokens = [vocab_map["Ġthe"]] if "Ġthe" in vocab_map else [40]
        generation.begin_suppress_tokens = [ids["<|endoftext|>"]]
        generation.alignment_heads = [[1, 0], [1, 2]]
        generation.max_length = 16
        generation.forced_decoder_ids = None
        generation._from_model_config = False  # else the library remakes the settings from the config
    elif kind == "t5":
        tokenizer = t5_tokenizer()
        config = transformers.T5Config(
            vocab_size=len(tokenizer) + 4,  # T5's output rows outnumber its tokenizer's pieces
            d_model=16,
            d_kv=8,
            d_ff=32,
            num_layers=2,
            num_decoder_layers=2,
            num_heads=2,
            relative_attention_num_buckets=8,
            relative_attention_max_distance=16,
            pad_token_id=0,
            eos_token_id=1,
            decoder_start_token_id=0,
        )
        model = transformers.T5ForConditionalGeneration(config)
    else:
        raise ValueError(kind)
    with torch.no_grad():  # random weights large enough that outputs are not all one token
        for parameter in model.parameters():
            if parameter.dim() > 1:
                parameter.normal_(0, 0.3)
    return tokenizer, model.eval()


def write_hf_model(kind: str, folder: Path, **sizes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer, model = build(kind, folder, **sizes)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if kind in SPEECH_KINDS:  # what turns a waveform into the log-mel spectrogram the encoder reads
        features = transformers.WhisperFeatureExtractor(feature_size=80, chunk_length=WHISPER_WINDOW_S)
        features.save_pretrained(folder)
    return folder


def write_tone(path: Path, seconds: float = 1.2, rate: int = 16000) -> Path:
    """A WAV of two tones with a silence between them: something for a speech model to hear."""
    import numpy as np

    from model.audio import save_wav

    t = np.arange(int(seconds * rate)) / rate
    wave = np.where(t < seconds / 3, np.sin(2 * np.pi * 440 * t), 0.0)
    wave = wave + np.where(t > 2 * seconds / 3, 0.5 * np.sin(2 * np.pi * 880 * t), 0.0)
    save_wav(path, (0.3 * wave).astype(np.float32), rate)
    return path


if __name__ == "__main__":  # python -m tests.hf_factories nllb FOLDER: the README's random example
    import sys

    print(write_hf_model(sys.argv[1], Path(sys.argv[2])))
