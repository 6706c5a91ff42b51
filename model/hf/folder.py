"""What a Hugging Face model folder holds, read without transformers and without loading weights.

``recognises`` is cheap (one small JSON file); ``inspect_folder`` checks everything that can be
checked before loading: the architecture, the weights files (safetensors only: pickled ``.bin``
weights can run code when read), the tokenizer files, and the memory the weights will need,
from the safetensors headers alone. ``resolve_model_id`` finds ``org/name`` in the local
Hugging Face cache, never on the network. Every problem is one line of ``CheckpointError``.
"""

from __future__ import annotations

import json
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from model.core.errors import CheckpointError, one_line
from model.hf.architectures import ARCHITECTURES, SUPPORTED, Architecture, in_words

WEIGHTS = "model.safetensors"
WEIGHTS_INDEX = "model.safetensors.index.json"
PICKLED_WEIGHTS = ("pytorch_model.bin", "pytorch_model.bin.index.json", "model.pt", "tf_model.h5")
MAX_CONFIG_BYTES = 4 * 1024**2
MAX_HEADER_BYTES = 100 * 1024**2
BYTES_PER_ELEMENT = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "BF16": 2,
    "I64": 8,
    "I32": 4,
    "I16": 2,
    "I8": 1,
    "U8": 1,
    "BOOL": 1,
}
MEMORY_SHARE = 0.8  # refuse a model whose float32 weights need more than this share of free memory
MODEL_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass(frozen=True)
class FolderFacts:
    """What the folder says before anything is loaded."""

    path: Path
    model_type: str
    config: dict
    weight_files: tuple[Path, ...]
    parameters: int  # elements in the weights files
    float32_bytes: int  # what they take once loaded as float32

    @property
    def architecture(self) -> Architecture:
        return ARCHITECTURES[self.model_type]


def read_config(folder: Path) -> dict:
    config_path = folder / "config.json"
    try:
        if config_path.stat().st_size > MAX_CONFIG_BYTES:
            raise CheckpointError(f"{config_path}: larger than any config this app reads")
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise CheckpointError(
            f"{folder.name}: the folder has no config.json; it is not a Hugging Face model"
        ) from error
    except (OSError, ValueError, RecursionError) as error:
        raise CheckpointError(f"{config_path}: cannot read it as JSON ({one_line(error)})") from error
    if not isinstance(config, dict):
        raise CheckpointError(f"{config_path}: not a JSON object")
    return config


def looks_like_model_id(path: Path) -> bool:
    """``org/name`` that is not a file or folder here: a model id for the local cache."""
    text = str(path)
    return (
        not path.exists()
        and bool(MODEL_ID.match(text))
        and path.suffix not in (".safetensors", ".pt", ".pth")
    )


def recognises(path: Path) -> bool:
    """A folder with a config.json (any architecture: unsupported ones are refused by name), or
    a model id such as ``Helsinki-NLP/opus-mt-en-de``."""
    try:
        return (path.is_dir() and (path / "config.json").is_file()) or looks_like_model_id(path)
    except (OSError, ValueError):
        return False


def inspect_folder(folder: Path) -> FolderFacts:
    """Everything checkable before loading; raises ``CheckpointError`` in one line."""
    config = read_config(folder)
    model_type = config.get("model_type")
    if model_type not in ARCHITECTURES:
        architectures = config.get("architectures")
        named = f"{model_type!r}" + (
            f" ({', '.join(map(str, architectures))})" if isinstance(architectures, list) else ""
        )
        raise CheckpointError(
            f"{folder.name}: model type {named} is not one this app runs (it runs {SUPPORTED})"
        )
    architecture = ARCHITECTURES[model_type]
    if not config.get("is_encoder_decoder", True):
        raise CheckpointError(
            f"{folder.name}: this {architecture.display_name} config is not an encoder-decoder"
        )
    weight_files = find_weights(folder)
    check_tokenizer_files(folder, architecture)
    missing = [name for name in architecture.processor_files if not (folder / name).is_file()]
    if missing:
        raise CheckpointError(
            f"{folder.name}: {in_words(missing)} {'is' if len(missing) == 1 else 'are'} missing: "
            f"a {architecture.display_name} model needs its feature extractor to hear audio (save it "
            "with processor.save_pretrained(folder) beside the model)"
        )
    parameters, float32_bytes = 0, 0
    for file in weight_files:
        count = tensor_elements(file)
        parameters += count
        float32_bytes += 4 * count
    check_memory(folder, float32_bytes)
    return FolderFacts(folder, model_type, config, weight_files, parameters, float32_bytes)


def check_tokenizer_files(folder: Path, architecture: Architecture) -> None:
    """Some tokenizer of the architecture has all its files here; else the missing ones are
    named (of the tokenizer whose files are most nearly all here)."""
    present = [[name for name in files if (folder / name).is_file()] for files in architecture.tokenizers]
    if any(len(found) == len(files) for found, files in zip(present, architecture.tokenizers, strict=True)):
        return
    reads = f"{architecture.display_name} reads {architecture.tokenizers_said()}"
    if not any(present):
        raise CheckpointError(
            f"{folder.name}: no tokenizer files ({reads}); save the tokenizer with "
            "tokenizer.save_pretrained(folder) beside the model"
        )
    nearest = max(range(len(present)), key=lambda i: len(present[i]) / len(architecture.tokenizers[i]))
    missing = [name for name in architecture.tokenizers[nearest] if name not in present[nearest]]
    files, verb = ("file", "is") if len(missing) == 1 else ("files", "are")
    named = in_words(missing)
    raise CheckpointError(f"{folder.name}: the tokenizer {files} {named} {verb} missing ({reads})")


def why_not(path: Path) -> str | None:
    """For a folder that no family opens: "without config.json", the one file every Hugging
    Face model folder holds (None for anything else)."""
    try:
        if path.is_dir() and not (path / "config.json").is_file():
            return "without config.json"
    except (OSError, ValueError):
        pass
    return None


def find_weights(folder: Path) -> tuple[Path, ...]:
    """The safetensors files of the folder: one file, or the shards its index names."""
    if (folder / WEIGHTS).is_file():
        return (folder / WEIGHTS,)
    index_path = folder / WEIGHTS_INDEX
    if index_path.is_file():
        try:
            weight_map = json.loads(index_path.read_text(encoding="utf-8"))["weight_map"]
            shards = sorted(set(weight_map.values()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise CheckpointError(
                f"{index_path.name}: not a safetensors index ({one_line(error)})"
            ) from error
        paths = []
        for shard in shards:
            if not isinstance(shard, str) or Path(shard).name != shard:  # a name, never a path elsewhere
                raise CheckpointError(f"{index_path.name}: shard {shard!r} is not a file name")
            if not (folder / shard).is_file():
                raise CheckpointError(f"{folder.name}: the weights shard {shard} is missing")
            paths.append(folder / shard)
        return tuple(paths)
    pickled = [name for name in PICKLED_WEIGHTS if (folder / name).exists()]
    if pickled:
        raise CheckpointError(
            f"{folder.name}: the weights are {pickled[0]}, a pickle that can run code when opened; "
            "this app reads safetensors only (convert it: model.save_pretrained(folder) writes safetensors)"
        )
    raise CheckpointError(f"{folder.name}: no weights file ({WEIGHTS} or {WEIGHTS_INDEX})")


def tensor_elements(file: Path) -> int:
    """How many numbers a safetensors file holds, from its header alone."""
    try:
        with open(file, "rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            if length > MAX_HEADER_BYTES:
                raise CheckpointError(f"{file.name}: its safetensors header is implausibly large")
            header = json.loads(handle.read(length).decode("utf-8"))
    except CheckpointError:
        raise
    except (OSError, struct.error, ValueError, RecursionError) as error:
        raise CheckpointError(f"{file.name}: not a safetensors file ({one_line(error)})") from error
    if not isinstance(header, dict):
        raise CheckpointError(f"{file.name}: its safetensors header is not a JSON object")
    total = 0
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        try:
            count = 1
            for size in entry["shape"]:
                count *= int(size)
            if entry["dtype"] not in BYTES_PER_ELEMENT:
                raise ValueError(f"dtype {entry['dtype']}")
        except (KeyError, TypeError, ValueError) as error:
            raise CheckpointError(
                f"{file.name}: tensor {name!r} is described wrongly ({one_line(error)})"
            ) from error
        total += count
    return total


def available_memory() -> int | None:
    """Bytes of memory free for a new model (Linux's MemAvailable), or None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(folder: Path, needed: int, available: int | None = None) -> None:
    available = available_memory() if available is None else available
    if available is not None and needed > MEMORY_SHARE * available:
        raise CheckpointError(
            f"{folder.name}: its weights need {needed / 1024**3:.1f} GiB as float32, more than this machine "
            f"has free ({available / 1024**3:.1f} GiB); refused before loading"
        )


def resolve_model_id(model_id: str) -> Path:
    """The cached snapshot folder of ``model_id``; never downloads."""
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError as error:
        raise CheckpointError(missing_extra_message()) from error
    try:
        return Path(snapshot_download(model_id, local_files_only=True))
    except LocalEntryNotFoundError as error:
        raise CheckpointError(
            f"{model_id}: no such file or folder here, and not in the local Hugging Face cache (this app "
            f"never downloads); for a model id, on a machine with internet run `hf download {model_id}` "
            "(or save_pretrained it) and open the folder"
        ) from error
    except (OSError, ValueError) as error:
        raise CheckpointError(
            f"{model_id}: cannot look it up in the local cache ({one_line(error)})"
        ) from error


def missing_extra_message() -> str:
    return (
        "opening Hugging Face models needs the [hf] extra: "
        "pip install 'attention-visualizer[hf]' (transformers, tokenizers, sentencepiece)"
    )
