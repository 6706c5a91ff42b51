"""Every Hugging Face architecture this app runs, and all that is particular to each: one
``Architecture`` per ``model_type`` of config.json, in ``ARCHITECTURES``.

The rest of ``model/hf/`` is written once for all of them and asks the entry, never the name:
how the config counts layers and heads, which positions the model uses and how its table is
stored, where its norms sit, what its modules are called, which files hold its tokenizer. A
fact that is a constant is a field; one that is behaviour is a small function here, named for
what it does, so a new architecture is a new entry (and, where it really differs, a new
function), not a branch in the code that uses it.

Imported by ``folder.py`` to recognise a folder, so it imports neither torch nor transformers:
the functions only read the modules and configs they are given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from model.interface import NormKind, PositionalScheme, ScoreFunction, ScoreStage
from model.score_functions import SCALED_DOT_PRODUCT

if TYPE_CHECKING:
    from torch import Tensor, nn

    from model.hf.generation_rules import GenerationRules

Config = Any  # a transformers PretrainedConfig (or GenerationConfig), read by attribute
SinusoidLayout = Literal["halves", "interleaved"]
DEFAULT_POSITIONS = 512  # what a model was trained on when its config does not say


@dataclass(frozen=True)
class Shape:
    """Layers and heads of each side, whatever the config calls them."""

    encoder_layers: int
    decoder_layers: int
    encoder_heads: int
    decoder_heads: int
    d_model: int


@dataclass(frozen=True)
class SpecialTokens:
    """The ids the decoder starts from, stops at and pads with (None where nothing says)."""

    start: int | None
    end: int | None
    pad: int | None


@dataclass(frozen=True)
class ModuleNames:
    """What an architecture calls the modules the app hooks, inside ``encoder`` and ``decoder``."""

    layers: str  # each stack's list of layers: ``encoder.<layers>.3``
    self_attention: str  # the last name of a layer's self-attention module
    cross_attention: str  # ... and of a decoder layer's cross-attention
    # (side, the name's parts after the layer's number) → the sublayer a norm belongs to
    # (0 self-attention, then cross-attention in the decoder, then the feed-forward), or None
    norm_sublayer: Callable[[str, list[str]], int | None]
    final_norm: str  # the decoder's norm after its last layer, where the model has one


@dataclass(frozen=True)
class Architecture:
    """What is particular to one architecture; everything else is the same code for all."""

    model_type: str  # as config.json says it
    display_name: str  # in messages and the window's title
    shape: Callable[[Config], Shape]  # layers, heads and width, from the config
    source_positions: Callable[[Config], int | None]  # how long a source the model has positions for
    target_positions: Callable[[Config], int | None]  # ... and a target (None: no table to run out of)
    special_tokens: Callable[[Config, Config], SpecialTokens]  # (config, generation config) → ids
    generation_rules: Callable[[Config, int | None], GenerationRules]  # (generation config, target positions)
    # the tokenizers the library reads, each as the files it needs together (any one will do)
    tokenizers: tuple[tuple[str, ...], ...]
    positional: PositionalScheme
    # the encoder → its (positions, D) table of position vectors as the model adds them (None: no table)
    position_table: Callable[[nn.Module], Tensor | None]
    sinusoid_layout: SinusoidLayout  # how a sinusoidal table stores each sin/cos pair
    # a stack → the attention module that owns its relative position bias (None: the model has none)
    relative_bias: Callable[[nn.Module], nn.Module] | None
    # how its attention makes its scores: self-attention (encoder and decoder), cross-attention
    self_scores: ScoreFunction
    cross_scores: ScoreFunction
    norm: NormKind
    norm_placement: Literal["post", "pre"]  # LN(x + F(x)) as the paper, or x + F(LN(x))
    modules: ModuleNames
    # (config, d_model) → what the last decoder layer's output is multiplied by before the
    # output layer (None: nothing)
    decoder_output_scale: Callable[[Config, int], float | None]
    # what the encoder reads: "text" (token ids) or "audio" (a feature extractor's log-mel
    # spectrogram, read from preprocessor_config.json)
    medium: Literal["text", "audio"] = "text"
    # the transformers Auto class that loads it
    auto_class: str = "AutoModelForSeq2SeqLM"
    # files besides the tokenizer's that the model needs (a speech model's feature extractor)
    processor_files: tuple[str, ...] = ()

    @property
    def scaled(self) -> bool:
        """Q·Kᵀ is multiplied by 1/√d_k (T5 folds the scale into its initialisation)."""
        return self.self_scores.scaled

    @property
    def tokenizer_files(self) -> tuple[str, ...]:
        """Every file of any of its tokenizers."""
        return tuple(dict.fromkeys(name for files in self.tokenizers for name in files))

    def tokenizers_said(self) -> str:
        """Its tokenizers' files in words: "vocab.json, source.spm and target.spm, or tokenizer.json"."""
        return ", or ".join(in_words(files) for files in self.tokenizers)


def encoder_inputs(architecture: Architecture, src: Tensor, src_pad: Tensor) -> dict[str, Tensor]:
    """The keyword arguments of the library's encoder for ``source_batch``'s tensors: a text
    model's ids and attention mask; a speech model's input features (Whisper's encoder takes
    no mask: every 30-s window is full, its silence padded)."""
    if architecture.medium == "audio":
        return {"input_features": src}
    return {"input_ids": src, "attention_mask": (~src_pad).long()}


def in_words(names: tuple[str, ...] | list[str]) -> str:
    """["a", "b", "c"] → "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


# -- reading the config ---------------------------------------------------------------------------
def fairseq_shape(config: Config) -> Shape:
    """Marian, BART, mBART and M2M100 count each side apart."""
    return Shape(
        config.encoder_layers,
        config.decoder_layers,
        config.encoder_attention_heads,
        config.decoder_attention_heads,
        config.d_model,
    )


def t5_shape(config: Config) -> Shape:
    """T5 has one head count, and a decoder as deep as the encoder unless it says otherwise."""
    decoder_layers = config.num_decoder_layers or config.num_layers
    return Shape(config.num_layers, decoder_layers, config.num_heads, config.num_heads, config.d_model)


def position_embeddings(config: Config) -> int | None:
    """A table of ``max_position_embeddings`` rows, shared by both sides."""
    return getattr(config, "max_position_embeddings", None)


def t5_source_positions(config: Config) -> int:
    """T5's relative bias has no table to run out of; it was trained on 512-token inputs."""
    return DEFAULT_POSITIONS


def no_position_limit(config: Config) -> None:
    """T5's relative bias: no table of positions for a target to run out of."""
    return None


def configured_special_tokens(config: Config, generation: Config) -> SpecialTokens:
    """The generation settings' start and end first, the model config's where they say nothing
    (the first of several end tokens)."""
    start = generation.decoder_start_token_id
    if start is None:
        start = config.decoder_start_token_id
    end = generation.eos_token_id if generation.eos_token_id is not None else config.eos_token_id
    return SpecialTokens(start, end[0] if isinstance(end, list) else end, config.pad_token_id)


def rules_from_settings(generation: Config, target_positions: int | None) -> GenerationRules:
    """The generation settings' rules, as ``generate`` applies them (model.hf.generation_rules)."""
    from model.hf.generation_rules import GenerationRules

    return GenerationRules.from_generation_config(generation, target_positions)


# -- position tables, read from the encoder's embeddings --------------------------------------------
def whole_table(encoder: nn.Module) -> Tensor:
    """Marian: row p is position p."""
    return encoder.embed_positions.weight


def table_after_offset(encoder: nn.Module) -> Tensor:
    """BART, mBART: rows 0 and 1 are an offset fairseq kept."""
    embeddings = encoder.embed_positions
    return embeddings.weight[embeddings.offset :]


def table_after_padding(encoder: nn.Module) -> Tensor:
    """M2M100: positions count from padding_idx + 1."""
    embeddings = encoder.embed_positions
    return embeddings.weights[embeddings.padding_idx + 1 :]


def no_table(encoder: nn.Module) -> None:
    """T5: a bias on the scores instead of vectors added to the embeddings."""
    return None


def first_self_attention(stack: nn.Module) -> nn.Module:
    """T5: the first layer's self-attention computes the bias; the other layers reuse it."""
    return stack.block[0].layer[0].SelfAttention


# -- norms and the output layer ---------------------------------------------------------------------
FAIRSEQ_NORMS = {"self_attn_layer_norm": 0, "encoder_attn_layer_norm": 1}


def fairseq_norm_sublayer(side: str, rest: list[str]) -> int | None:
    """``self_attn_layer_norm``, ``encoder_attn_layer_norm`` (decoder) and ``final_layer_norm``
    (the feed-forward's: 1 in the encoder, which has no cross-attention)."""
    tail = rest[-1]
    if tail in FAIRSEQ_NORMS:
        return FAIRSEQ_NORMS[tail]
    if tail == "final_layer_norm" and len(rest) == 1:
        return 1 if side == "encoder" else 2
    return None


def t5_norm_sublayer(side: str, rest: list[str]) -> int | None:
    """``layer.j.layer_norm``, in front of the j-th sublayer."""
    if rest[-1] == "layer_norm" and len(rest) == 3 and rest[0] == "layer" and rest[1].isdigit():
        return int(rest[1])
    return None


def unscaled_output(config: Config, d_model: int) -> None:
    return None


def t5_tied_output_scale(config: Config, d_model: int) -> float | None:
    """T5 rescales the decoder's output by 1/√d_model when its output layer is the embedding."""
    return d_model**-0.5 if getattr(config, "scale_decoder_outputs", False) else None


# T5 adds a learned bias per relative distance to its self-attention's scores and divides by nothing
T5_SELF_SCORES = ScoreFunction(
    "dot product plus a relative position bias",
    "<b>T5's self-attention</b>: softmax(QKᵀ + B) V, where B is a learned bias for each relative "
    "distance between query and key (the 'Relative bias' page shows it). T5 does not divide by "
    "√d_k: the scale is folded into the initialisation of its weights.",
    (ScoreStage("raw", "QKᵀ + B", "QKᵀ + B<br>(raw scores)"),),
)
T5_CROSS_SCORES = ScoreFunction(
    "dot product",
    "<b>T5's cross-attention</b>: softmax(QKᵀ) V, with no position bias and no ÷√d_k (T5 folds "
    "the scale into the initialisation of its weights).",
    (ScoreStage("raw", "QKᵀ", "QKᵀ<br>(raw scores)"),),
)

FAIRSEQ_MODULES = ModuleNames("layers", "self_attn", "encoder_attn", fairseq_norm_sublayer, "layer_norm")
T5_MODULES = ModuleNames("block", "SelfAttention", "EncDecAttention", t5_norm_sublayer, "final_layer_norm")


# -- the table ----------------------------------------------------------------------------------------
MARIAN = Architecture(
    model_type="marian",
    display_name="Marian",
    shape=fairseq_shape,
    source_positions=position_embeddings,
    target_positions=position_embeddings,
    special_tokens=configured_special_tokens,
    generation_rules=rules_from_settings,
    tokenizers=(("vocab.json", "source.spm", "target.spm"), ("tokenizer.json",)),
    positional="sinusoidal",
    position_table=whole_table,
    sinusoid_layout="halves",  # all sines, then all cosines (its own ``create_weight``)
    relative_bias=None,
    self_scores=SCALED_DOT_PRODUCT,
    cross_scores=SCALED_DOT_PRODUCT,
    norm="layernorm",
    norm_placement="post",
    modules=FAIRSEQ_MODULES,
    decoder_output_scale=unscaled_output,
)
BART = Architecture(
    model_type="bart",
    display_name="BART",
    shape=fairseq_shape,
    source_positions=position_embeddings,
    target_positions=position_embeddings,
    special_tokens=configured_special_tokens,
    generation_rules=rules_from_settings,
    tokenizers=(("tokenizer.json",), ("vocab.json", "merges.txt")),
    positional="learned",
    position_table=table_after_offset,
    sinusoid_layout="interleaved",
    relative_bias=None,
    self_scores=SCALED_DOT_PRODUCT,
    cross_scores=SCALED_DOT_PRODUCT,
    norm="layernorm",
    norm_placement="post",
    modules=FAIRSEQ_MODULES,
    decoder_output_scale=unscaled_output,
)
MBART = Architecture(
    model_type="mbart",
    display_name="mBART",
    shape=fairseq_shape,
    source_positions=position_embeddings,
    target_positions=position_embeddings,
    special_tokens=configured_special_tokens,
    generation_rules=rules_from_settings,
    tokenizers=(("tokenizer.json",), ("sentencepiece.bpe.model",)),
    positional="learned",
    position_table=table_after_offset,
    sinusoid_layout="interleaved",
    relative_bias=None,
    self_scores=SCALED_DOT_PRODUCT,
    cross_scores=SCALED_DOT_PRODUCT,
    norm="layernorm",
    norm_placement="pre",
    modules=FAIRSEQ_MODULES,
    decoder_output_scale=unscaled_output,
)
M2M100 = Architecture(
    model_type="m2m_100",
    display_name="M2M100/NLLB",
    shape=fairseq_shape,
    source_positions=position_embeddings,
    target_positions=position_embeddings,
    special_tokens=configured_special_tokens,
    generation_rules=rules_from_settings,
    # NLLB reads the sentencepiece model alone; M2M100 also its vocab.json (said when it fails)
    tokenizers=(("tokenizer.json",), ("sentencepiece.bpe.model",)),
    positional="sinusoidal",
    position_table=table_after_padding,
    sinusoid_layout="halves",  # as Marian (its own ``get_embedding``)
    relative_bias=None,
    self_scores=SCALED_DOT_PRODUCT,
    cross_scores=SCALED_DOT_PRODUCT,
    norm="layernorm",
    norm_placement="pre",
    modules=FAIRSEQ_MODULES,
    decoder_output_scale=unscaled_output,
)
T5 = Architecture(
    model_type="t5",
    display_name="T5",
    shape=t5_shape,
    source_positions=t5_source_positions,
    target_positions=no_position_limit,
    special_tokens=configured_special_tokens,
    generation_rules=rules_from_settings,
    tokenizers=(("tokenizer.json",), ("spiece.model",)),
    positional="relative_bias",
    position_table=no_table,
    sinusoid_layout="interleaved",
    relative_bias=first_self_attention,
    self_scores=T5_SELF_SCORES,
    cross_scores=T5_CROSS_SCORES,
    norm="rmsnorm",
    norm_placement="pre",
    modules=T5_MODULES,
    decoder_output_scale=t5_tied_output_scale,
)
MT5 = replace(T5, model_type="mt5", display_name="mT5")  # T5's record: only the name differs


def whisper_source_positions(config: Config) -> int:
    """The encoder's positions: one per two mel frames, 1,500 for a 30-s window."""
    return config.max_source_positions


def whisper_target_positions(config: Config) -> int:
    return config.max_target_positions


def language_token_id(language: str, lang_to_id: dict) -> int:
    """The token of a language given as ``generate`` takes it: a token (``<|fr|>``), a code
    (``fr``) or a name (``French``, as fine-tuning guides save it)."""
    from model.core.errors import CheckpointError

    if language in lang_to_id:
        return int(lang_to_id[language])
    code = language.lower()
    try:
        from transformers.models.whisper.tokenization_whisper import TO_LANGUAGE_CODE

        code = TO_LANGUAGE_CODE.get(code, code)
    except ImportError:  # the library's table of names; codes and tokens still work without it
        pass
    token = f"<|{code}|>"
    if token not in lang_to_id:
        raise CheckpointError(
            f"the generation settings' language {language!r} is not one of the model's languages"
        )
    return int(lang_to_id[token])


def whisper_prompt(generation: Config) -> tuple[tuple[int, ...], ...]:
    """Whisper's prompt after its start token, as ``generate`` builds it from the generation
    settings: the language (the one set, or any of its language tokens for the model to choose
    as ``generate`` detects it), the task (transcribe unless set), and no-timestamps; the old
    ``forced_decoder_ids`` where neither language nor task is set."""
    language, task = getattr(generation, "language", None), getattr(generation, "task", None)
    lang_to_id = dict(getattr(generation, "lang_to_id", None) or {})
    task_to_id = dict(getattr(generation, "task_to_id", None) or {})
    prompt: list[tuple[int, ...]] = []
    forced = getattr(generation, "forced_decoder_ids", None)
    if task is None and language is None and forced:
        for index, (position, token) in enumerate(forced):
            if position != index + 1:
                break
            prompt.append((int(token),) if token is not None else tuple(sorted(lang_to_id.values())))
    languages = set(lang_to_id.values())
    given = bool(prompt)  # old forced ids name the prompt; a language they leave open is detected
    if language is not None:
        chosen = (language_token_id(language, lang_to_id),)
        prompt = [chosen, *prompt[1:]] if prompt and set(prompt[0]) <= languages else [chosen, *prompt]
    elif lang_to_id and not given:
        prompt.insert(0, tuple(sorted(languages)))  # detected: the likeliest language token
    tasks = set(task_to_id.values())
    if task is not None:
        prompt = [p for p in prompt if not set(p) <= tasks]
        prompt.insert(1 if lang_to_id else 0, (task_to_id[task],))
    elif language is not None and task_to_id and not any(set(p) <= tasks for p in prompt):
        prompt.append((task_to_id["transcribe"],))
    no_timestamps = getattr(generation, "no_timestamps_token_id", None)
    if no_timestamps is not None and (not prompt or prompt[-1] != (no_timestamps,)):
        prompt.append((int(no_timestamps),))
    return tuple(prompt)


def whisper_rules(generation: Config, target_positions: int | None) -> GenerationRules:
    """The generation settings' rules, and the prompt ``generate`` writes before the text (which
    is how Whisper's ``forced_decoder_ids`` apply: not a setting left out)."""
    rules = rules_from_settings(generation, target_positions)
    unsupported = tuple(name for name in rules.unsupported if name != "forced_decoder_ids")
    return replace(rules, prompt=whisper_prompt(generation), unsupported=unsupported)


WHISPER = Architecture(
    model_type="whisper",
    display_name="Whisper",
    shape=fairseq_shape,
    source_positions=whisper_source_positions,
    target_positions=whisper_target_positions,
    special_tokens=configured_special_tokens,
    generation_rules=whisper_rules,
    tokenizers=(("tokenizer.json",), ("vocab.json", "merges.txt")),
    positional="sinusoidal",  # the encoder's table is fixed sinusoids; the decoder's is learned
    position_table=whole_table,
    sinusoid_layout="halves",  # its ``sinusoids``: all sines, then all cosines
    relative_bias=None,
    self_scores=SCALED_DOT_PRODUCT,
    cross_scores=SCALED_DOT_PRODUCT,
    norm="layernorm",
    norm_placement="pre",
    modules=FAIRSEQ_MODULES,
    decoder_output_scale=unscaled_output,
    medium="audio",
    auto_class="AutoModelForSpeechSeq2Seq",
    processor_files=("preprocessor_config.json",),
)

# model_type → its entry, in the order messages list them
ARCHITECTURES: dict[str, Architecture] = {
    entry.model_type: entry for entry in (MARIAN, BART, MBART, T5, MT5, M2M100, WHISPER)
}
SUPPORTED = ", ".join(entry.display_name for entry in ARCHITECTURES.values())
