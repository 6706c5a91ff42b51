"""Opening a Hugging Face model folder (or a model id from the local cache) as an ``HFFamily``.

Everything that can be refused is refused before the weights are read (``model.hf.folder``);
then the library loads the safetensors (memory-mapped), the weights are checked against the
config, and one forward pass must give finite logits. Every problem is one line of
``CheckpointError``, and nothing of a half-opened model is kept.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import torch

from model.core.devices import resolve_device
from model.core.errors import CheckpointError, one_line
from model.core.progress import report
from model.hf.folder import inspect_folder, looks_like_model_id, missing_extra_message, resolve_model_id
from model.hf.tokenizer import HFTokenizer

SMOKE_TOKENS = 8


def import_library():
    """transformers, quiet and with the recorded attention registered; refused in one line if
    the ``[hf]`` extra is not installed."""
    try:
        import transformers
    except ImportError as error:
        raise CheckpointError(missing_extra_message()) from error
    from model.hf.attention import register

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    register()
    return transformers


def open_hf(path: str | Path, device: str = "auto"):
    """The model in ``path`` (a folder, or ``org/name`` in the local cache) on ``device``."""
    from model.hf.family import HFFamily

    path = Path(path)
    report(0.0, "checking the folder")
    folder = resolve_model_id(str(path)) if looks_like_model_id(path) else path
    facts = inspect_folder(folder)
    report(0.05, "importing the Hugging Face library")
    transformers = import_library()
    torch_device, notice = resolve_device(device)
    report(0.15, "reading the tokenizer")
    try:
        with warnings.catch_warnings():  # the library's advice ("pip install ...") is not the user's problem
            warnings.simplefilter("ignore")
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
    except Exception as error:  # the library raises anything from OSError to TypeError on bad files
        raise CheckpointError(tokenizer_failure(folder, facts.architecture, error)) from error
    architecture = facts.architecture
    features = None
    if architecture.medium == "audio":
        features = read_feature_extractor(transformers, folder, architecture)
    report(0.25, "reading the weights")
    model = load_weights(transformers, folder, architecture.auto_class)
    config, generation = model.config, model.generation_config
    special = architecture.special_tokens(config, generation)
    if special.start is None or special.end is None or special.pad is None:
        raise CheckpointError(f"{folder.name}: the config does not say its decoder start, end and pad tokens")
    vocab_size = model.get_output_embeddings().weight.shape[0]
    hf_tokenizer = HFTokenizer(
        tokenizer,
        vocab_size=vocab_size,
        decoder_start_id=int(special.start),
        eos_id=int(special.end),
        pad_id=int(special.pad),
    )
    report(0.8, "checking the weights on a test input")
    check_outputs(model, folder, architecture.medium)
    report(0.9, "moving the model to its device")
    try:
        model.to(torch_device)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as error:
        model.to("cpu")
        notice = f"could not move the model to {torch_device} ({one_line(error)}); using CPU instead"
    rules = architecture.generation_rules(generation, architecture.target_positions(config))
    if rules.unsupported:
        settings = ", ".join(rules.unsupported)
        notice = "; ".join(
            filter(None, [notice, f"generation settings not applied when stepping: {settings}"])
        )
    metadata = {
        "architecture": architecture.display_name,
        "folder": str(folder),
        "parameters": facts.parameters,
    }
    report(0.95, "finding the attention and norm layers")
    return HFFamily(model, hf_tokenizer, facts.model_type, rules, folder, notice, metadata, features)


def tokenizer_failure(folder: Path, architecture, error: Exception) -> str:
    """What the library could not read, by the files it had (``inspect_folder`` has found one
    tokenizer's files complete, so the library wanted others, or found them wrong)."""
    names = [*architecture.tokenizer_files, "tokenizer_config.json"]
    present = [name for name in names if (folder / name).is_file()]
    return (
        f"{folder.name}: cannot read its tokenizer from {', '.join(present)} ({one_line(error)}); "
        f"{architecture.display_name} reads {architecture.tokenizers_said()}"
    )


def read_feature_extractor(transformers, folder: Path, architecture):
    """A speech model's feature extractor (preprocessor_config.json): what turns a waveform into
    the log-mel spectrogram its encoder reads."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return transformers.AutoFeatureExtractor.from_pretrained(folder, local_files_only=True)
    except Exception as error:  # a broken or foreign preprocessor_config.json
        raise CheckpointError(
            f"{folder.name}: cannot read its feature extractor from preprocessor_config.json "
            f"({one_line(error)}); {architecture.display_name} needs it to hear audio"
        ) from error


def load_weights(transformers, folder: Path, auto_class: str = "AutoModelForSeq2SeqLM"):
    """The model with its weights, in eval mode; weights that do not fit the config are refused."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, loading = getattr(transformers, auto_class).from_pretrained(
                folder,
                local_files_only=True,
                use_safetensors=True,
                attn_implementation="attnviz",
                dtype=torch.float32,
                output_loading_info=True,
            )
    except Exception as error:  # size mismatches, bad headers, unknown configs: all one line
        raise CheckpointError(f"{folder.name}: the weights do not load ({one_line(error)})") from error
    missing = list(loading.get("missing_keys") or [])
    mismatched = list(loading.get("mismatched_keys") or [])
    if missing or mismatched:
        named = (missing + [str(m[0]) if isinstance(m, tuple) else str(m) for m in mismatched])[:3]
        raise CheckpointError(
            f"{folder.name}: the weights do not match the config (missing or wrong: {', '.join(named)})"
        )
    return model.eval()


@torch.no_grad()
def check_outputs(model, folder: Path, medium: str = "text") -> None:
    """One forward pass over a few tokens (a speech model: a window of silence); its logits
    must be finite."""
    ids = torch.arange(2, 2 + SMOKE_TOKENS).clamp(max=model.config.vocab_size - 1)[None]  # (1, n)
    if medium == "audio":  # (1, mel bins, frames): the encoder's whole window, two frames a position
        frames = 2 * model.config.max_source_positions
        inputs = {"input_features": torch.zeros(1, model.config.num_mel_bins, frames)}
    else:
        inputs = {"input_ids": ids}
    try:
        logits = model(**inputs, decoder_input_ids=ids[:, :2]).logits
    except (RuntimeError, ValueError, IndexError) as error:
        raise CheckpointError(f"{folder.name}: the model cannot run ({one_line(error)})") from error
    if not torch.isfinite(logits).all():
        raise CheckpointError(f"{folder.name}: the weights compute NaN or infinite logits on a test input")
