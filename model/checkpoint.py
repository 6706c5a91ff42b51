"""Checkpoints: one safetensors file whose header metadata holds the rest as JSON.

Format (version 1): a standard ``.safetensors`` file. Its ``__metadata__`` has one key,
``attnviz``, a JSON object::

    {"format_version": 1,
     "config": {...TransformerConfig fields...},
     "vocabulary": ["<pad>", "<bos>", "<eos>", "<unk>", "a", ...],
     "info": {...free-form training facts, shown to the user, never used as paths...}}

Tensors are float32, named as in ``Transformer.state_dict()``; with tied embeddings only
``src_embed.weight`` is stored. Loading validates the header, the config, the vocabulary and
every tensor's name, shape, dtype and finiteness before a model is built, and reports the
first problem in one line (``CheckpointError``). Nothing is unpickled: a legacy ``.pt`` file
is read only with ``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors.torch import load as load_safetensors_bytes
from safetensors.torch import save_file

from model.tokenizer import CharTokenizer
from model.transformer import Transformer, TransformerConfig

FORMAT_VERSION = 1
METADATA_KEY = "attnviz"
MAX_FILE_BYTES = 2 * 1024**3
MAX_HEADER_BYTES = 16 * 1024**2
SAFETENSORS_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


class CheckpointError(ValueError):
    """A checkpoint cannot be used; the message says why in one line."""


@dataclass
class Checkpoint:
    model: Transformer  # in eval mode, on ``device``
    tokenizer: CharTokenizer
    info: dict = field(default_factory=dict)
    path: Path | None = None
    device: torch.device = torch.device("cpu")
    notice: str | None = None  # e.g. "CUDA is not available; using CPU"

    @property
    def config(self) -> TransformerConfig:
        return self.model.config


DEFAULT_CHECKPOINT_NAME = "default.safetensors"


def default_checkpoint_path() -> Path:
    """The shipped checkpoint: package data when installed, ``assets/`` in a source checkout."""
    try:
        from importlib.resources import files

        installed = Path(str(files("model.assets") / DEFAULT_CHECKPOINT_NAME))
        if installed.is_file():
            return installed
    except (ModuleNotFoundError, TypeError):
        pass
    return Path(__file__).resolve().parent.parent / "assets" / DEFAULT_CHECKPOINT_NAME


def resolve_device(name: str) -> tuple[torch.device, str | None]:
    """The torch device for ``cpu``, ``cuda``, ``mps`` or ``auto``, and a notice on fallback."""
    name = (name or "auto").strip().lower()
    cuda = torch.cuda.is_available()
    mps = getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    if name == "auto":
        return torch.device("cuda" if cuda else "mps" if mps else "cpu"), None
    if name == "cpu":
        return torch.device("cpu"), None
    if name.startswith("cuda"):
        if cuda:
            try:
                device = torch.device(name)
            except RuntimeError as error:
                raise ValueError(f"unknown device {name!r}") from error
            if device.index is None or device.index < torch.cuda.device_count():
                return device, None
            return torch.device("cpu"), f"{name} is not present; using CPU instead"
        return torch.device("cpu"), "CUDA is not available on this machine; using CPU instead"
    if name == "mps":
        if mps:
            return torch.device("mps"), None
        return torch.device("cpu"), "MPS is not available on this machine; using CPU instead"
    raise ValueError(f"unknown device {name!r}: choose cpu, cuda, mps or auto")


MAX_PARAMETERS = 500_000_000  # 2 GB of float32: far beyond any model this app is for


def tied_aliases(config: TransformerConfig) -> set[str]:
    """State-dict names that share another tensor's storage and are not stored."""
    return {"tgt_embed.weight", "generator.weight"} if config.tie_embeddings else set()


def stored_tensors(model: Transformer) -> dict[str, torch.Tensor]:
    """The tensors a checkpoint of ``model`` holds, by name."""
    aliases = tied_aliases(model.config)
    return {name: t for name, t in model.state_dict().items() if name not in aliases}


def save_checkpoint(
    path: str | Path, model: Transformer, tokenizer: CharTokenizer, info: dict | None = None
) -> None:
    """Write ``model`` and ``tokenizer`` to ``path`` (atomically: a temp file, then rename)."""
    path = Path(path)
    tensors = {
        name: tensor.detach().to("cpu", torch.float32).contiguous()
        for name, tensor in stored_tensors(model).items()
    }
    header = {
        "format_version": FORMAT_VERSION,
        "config": model.config.to_dict(),
        "vocabulary": tokenizer.tokens,
        "info": info or {},
    }
    temporary = path.with_name(path.name + ".tmp")
    save_file(tensors, str(temporary), metadata={METADATA_KEY: json.dumps(header, ensure_ascii=False)})
    os.replace(temporary, path)


def load_checkpoint(path: str | Path, device: str = "auto") -> Checkpoint:
    """Load and validate a checkpoint; any problem raises ``CheckpointError`` in one line."""
    path = Path(path)
    torch_device, notice = resolve_device(device)
    data = read_file(path)
    if path.suffix in (".pt", ".pth"):
        header, tensors = parse_torch_file(data)
    else:
        header, tensors = parse_safetensors(data)
    config, tokenizer, info = parse_header(header)
    model = empty_model(config)
    check_tensors(tensors, stored_tensors(model))
    return build(path, model, tokenizer, info, tensors, torch_device, notice)


def read_file(path: Path) -> bytes:
    if not path.exists():
        raise CheckpointError(f"{path}: no such file")
    if path.is_dir():
        raise CheckpointError(f"{path}: is a directory, not a checkpoint file")
    try:
        size = path.stat().st_size
        if size == 0:
            raise CheckpointError(f"{path}: the file is empty")
        if size > MAX_FILE_BYTES:
            raise CheckpointError(
                f"{path}: {size / 1024**3:.1f} GB is larger than any checkpoint this app reads"
            )
        return path.read_bytes()
    except PermissionError as error:
        raise CheckpointError(f"{path}: permission denied") from error
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read ({error.strerror or error})") from error


def parse_safetensors(data: bytes) -> tuple[dict, dict[str, torch.Tensor]]:
    """Validate the safetensors framing ourselves, then let safetensors read the tensors."""
    if len(data) < 8:
        raise CheckpointError("not a safetensors file: shorter than its 8-byte header length")
    (header_len,) = struct.unpack("<Q", data[:8])
    if header_len > MAX_HEADER_BYTES or 8 + header_len > len(data):
        raise CheckpointError(
            "not a safetensors file, or a truncated one: the header length "
            f"({header_len} bytes) runs past the end of the file ({len(data)} bytes)"
        )
    try:
        header = json.loads(data[8 : 8 + header_len].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"safetensors header is not valid JSON ({error})") from error
    if not isinstance(header, dict):
        raise CheckpointError("safetensors header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    body_len = len(data) - 8 - header_len
    for name, entry in header.items():
        check_entry(name, entry, body_len)
    if not isinstance(metadata, dict) or METADATA_KEY not in metadata:
        raise CheckpointError("safetensors file has no attnviz metadata (config and vocabulary)")
    try:
        ours = json.loads(metadata[METADATA_KEY])
    except (TypeError, json.JSONDecodeError) as error:
        raise CheckpointError(f"attnviz metadata is not valid JSON ({error})") from error
    try:
        tensors = load_safetensors_bytes(data)
    except Exception as error:  # safetensors raises its own error types; report, don't crash
        raise CheckpointError(f"safetensors could not read the tensors ({one_line(error)})") from error
    return ours, tensors


def check_entry(name: str, entry: object, body_len: int) -> None:
    if not isinstance(entry, dict):
        raise CheckpointError(f"tensor {name!r}: header entry is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if dtype not in SAFETENSORS_DTYPES:
        raise CheckpointError(f"tensor {name!r}: dtype {dtype!r} is not a float type (expected F32)")
    if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)):
        raise CheckpointError(f"tensor {name!r}: shape {shape!r} is not a list of sizes")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(n, int) for n in offsets)):
        raise CheckpointError(f"tensor {name!r}: data_offsets {offsets!r} are malformed")
    begin, end = offsets
    count = 1
    for n in shape:
        count *= n
    itemsize = SAFETENSORS_DTYPES[dtype].itemsize
    if not 0 <= begin <= end <= body_len or end - begin != count * itemsize:
        raise CheckpointError(
            f"tensor {name!r}: header says bytes {begin}..{end} for shape {shape}, "
            f"which does not fit the file's {body_len} data bytes"
        )


def parse_torch_file(data: bytes) -> tuple[dict, dict[str, torch.Tensor]]:
    """A ``.pt`` dict {format_version, config, vocabulary, info, state_dict}; never runs code."""
    import io
    import warnings

    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols; we report instead
            warnings.simplefilter("ignore")
            payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as error:  # the safe unpickler refuses code; say so in one line
        raise CheckpointError(f"not a loadable weights-only .pt file ({one_line(error)})") from error
    if not isinstance(payload, dict) or not isinstance(payload.get("state_dict"), dict):
        raise CheckpointError(".pt file must hold a dict with 'state_dict', 'config' and 'vocabulary'")
    tensors = payload.pop("state_dict")
    if not all(isinstance(k, str) and isinstance(t, torch.Tensor) for k, t in tensors.items()):
        raise CheckpointError(".pt state_dict must map names to tensors")
    return payload, tensors


def parse_header(header: object) -> tuple[TransformerConfig, CharTokenizer, dict]:
    if not isinstance(header, dict):
        raise CheckpointError("attnviz metadata is not a JSON object")
    version = header.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise CheckpointError(f"format_version {version!r} is missing or not an integer")
    if version > FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint format version {version} is newer than this app reads "
            f"({FORMAT_VERSION}); update attention-visualizer"
        )
    if version < 1:
        raise CheckpointError(f"checkpoint format version {version} is not valid")
    try:
        config = TransformerConfig.from_dict(header.get("config"))
    except (TypeError, ValueError) as error:
        raise CheckpointError(one_line(error)) from error
    vocabulary = header.get("vocabulary")
    if not isinstance(vocabulary, list):
        raise CheckpointError("vocabulary is missing or not a list")
    try:
        tokenizer = CharTokenizer(vocabulary)
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"vocabulary: {one_line(error)}") from error
    if len(tokenizer) != config.vocab_size:
        raise CheckpointError(
            f"vocabulary has {len(tokenizer)} tokens but the config says vocab_size={config.vocab_size}"
        )
    info = header.get("info") or {}
    if not isinstance(info, dict):
        raise CheckpointError("info is not a JSON object")
    return config, tokenizer, info


def empty_model(config: TransformerConfig) -> Transformer:
    """A model of ``config`` to load weights into, refused first if absurdly large."""
    count = config.parameter_count() + config.max_len * config.d_model  # + the sinusoid table
    if count > MAX_PARAMETERS:
        raise CheckpointError(
            f"config describes {count:,} parameters, more than this app loads ({MAX_PARAMETERS:,})"
        )
    try:
        return Transformer(config)
    except (MemoryError, RuntimeError) as error:
        raise CheckpointError(f"cannot build a model of this config ({one_line(error)})") from error


def check_tensors(tensors: dict[str, torch.Tensor], expected: dict[str, torch.Tensor]) -> None:
    missing = sorted(set(expected) - set(tensors))
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise CheckpointError(f"tensor {missing[0]!r} is missing{more}")
    extra = sorted(set(tensors) - set(expected))
    if extra:
        more = f" and {len(extra) - 1} more" if len(extra) > 1 else ""
        raise CheckpointError(f"unexpected tensor {extra[0]!r}{more}")
    for name, reference in expected.items():
        tensor, shape = tensors[name], tuple(reference.shape)
        if tuple(tensor.shape) != shape:
            raise CheckpointError(f"tensor {name!r} has shape {list(tensor.shape)}, expected {list(shape)}")
        if tensor.dtype not in SAFETENSORS_DTYPES.values():
            raise CheckpointError(f"tensor {name!r} has dtype {tensor.dtype}, expected float32")
        if not torch.isfinite(tensor).all():
            raise CheckpointError(f"tensor {name!r} holds NaN or infinite values")


def build(
    path: Path,
    model: Transformer,
    tokenizer: CharTokenizer,
    info: dict,
    tensors: dict[str, torch.Tensor],
    device: torch.device,
    notice: str | None,
) -> Checkpoint:
    state = {name: tensor.to(torch.float32) for name, tensor in tensors.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if set(missing) - tied_aliases(model.config) or unexpected:
        raise CheckpointError(f"weights do not fit the model (missing {missing}, unexpected {unexpected})")
    try:
        model.to(device)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as error:
        model.to("cpu")
        notice = f"could not move the model to {device} ({one_line(error)}); using CPU instead"
        device = torch.device("cpu")
    model.eval()
    return Checkpoint(model, tokenizer, info, path, device, notice)


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
