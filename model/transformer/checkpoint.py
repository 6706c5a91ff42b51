"""Checkpoints: one safetensors file whose header metadata holds the rest as JSON.

Format (version 1): a standard ``.safetensors`` file. Its ``__metadata__`` has one key,
``attnviz``, a JSON object::

    {"format_version": 1,
     "config": {...TransformerConfig fields...},
     "vocabulary": ["<pad>", "<bos>", "<eos>", "<unk>", "a", ...],
     "info": {...free-form training facts, shown to the user, never used as paths...}}

Tensors are float32, named as in ``Transformer.state_dict()``; with tied embeddings only
``src_embed.weight`` is stored. float16 and bfloat16 tensors are accepted and widened to
float32 (exactly); any other dtype is refused. Loading validates the header, the config, the
vocabulary and every tensor's name, shape, dtype, finiteness and magnitude before a model is
allocated (shapes are checked against a model on the ``meta`` device), then runs one forward
pass and refuses weights whose logits are not finite. The first problem is reported in one
line (``CheckpointError``). Nothing is unpickled: a legacy ``.pt`` file is read only with
``torch.load(weights_only=True)``. Nothing in the metadata is used as a path: the only file
loading opens is the checkpoint itself.
"""

from __future__ import annotations

from pathlib import Path

import torch

from model.core.devices import resolve_device
from model.core.errors import CheckpointError, one_line
from model.core.tokenizer import CharTokenizer
from model.core.weights_file import (
    check_tensors,
    parse_safetensors,
    parse_torch_file,
    parse_vocabulary_and_info,
    read_file,
    write_checkpoint,  # noqa: F401 (MAX_FILE_BYTES re-exported: where callers look)
)
from model.shipped import default_checkpoint_path  # noqa: F401 (re-exported: where callers look)
from model.transformer.family import TransformerFamily
from model.transformer.model import Transformer, TransformerConfig

FORMAT_VERSION = 1


MAX_PARAMETERS = 500_000_000  # 2 GB of float32: far beyond any model this app is for
SMOKE_TOKENS = 64  # the forward pass that checks a loaded model reads at most this many tokens


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
    write_checkpoint(path, tensors, header)


def recognises(path: Path) -> bool:
    """Ours unless it is a folder: any file is read as our format, and refused in one line if
    it is not (so that a broken checkpoint is told what is wrong with it, not "unknown")."""
    return not path.is_dir()


def load_checkpoint(path: str | Path, device: str = "auto") -> TransformerFamily:
    """Load and validate a checkpoint; any problem raises ``CheckpointError`` in one line."""
    path = Path(path)
    torch_device, notice = resolve_device(device)
    data = read_file(path)
    if path.suffix in (".pt", ".pth"):
        header, tensors = parse_torch_file(data)
    else:
        header, tensors = parse_safetensors(data)
    config, tokenizer, info = parse_header(header)
    if config.parameter_count() <= EAGER_BUILD_LIMIT:
        model = empty_model(config)
        check_tensors(tensors, stored_tensors(model))
    else:  # check every shape before allocating gigabytes
        check_tensors(tensors, stored_tensors(shape_model(config)))
        model = empty_model(config)
    return build(path, model, tokenizer, info, tensors, torch_device, notice)


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
        raise CheckpointError(str(error)) from error
    tokenizer, info = parse_vocabulary_and_info(header, config.vocab_size)
    return config, tokenizer, info


def check_size(config: TransformerConfig) -> None:
    count = config.parameter_count() + config.max_len * config.d_model  # + the sinusoid table
    if count > MAX_PARAMETERS:
        raise CheckpointError(
            f"config describes {count:,} parameters, more than this app loads ({MAX_PARAMETERS:,})"
        )


# Up to this many parameters (100 MB) the model is built before its tensors are checked.
# Larger ones are first built on the meta device (every shape, no memory); that device
# imports torch's compiler stack, over a second, which small models (the shipped one) skip.
EAGER_BUILD_LIMIT = 25_000_000


def shape_model(config: TransformerConfig) -> Transformer:
    """A model of ``config`` on the meta device: every shape, no memory."""
    check_size(config)
    try:
        with torch.device("meta"):
            return Transformer(config)
    except (MemoryError, RuntimeError, ValueError) as error:
        raise CheckpointError(f"cannot build a model of this config ({one_line(error)})") from error


def empty_model(config: TransformerConfig) -> Transformer:
    """A model of ``config`` to load weights into, refused first if absurdly large."""
    check_size(config)
    try:
        return Transformer(config)
    except (MemoryError, RuntimeError) as error:
        raise CheckpointError(f"cannot build a model of this config ({one_line(error)})") from error


@torch.no_grad()
def check_outputs(model: Transformer) -> None:
    """One forward pass over the first tokens of the vocabulary; its logits must be finite."""
    config = model.config
    ids = torch.arange(min(config.vocab_size, config.max_len, SMOKE_TOKENS)).unsqueeze(0)  # (1, n)
    try:
        encoded = model.encode(ids, torch.zeros_like(ids, dtype=torch.bool))
        logits = model.decode(ids, encoded).logits  # (1, n, V)
    except (RuntimeError, ValueError) as error:
        raise CheckpointError(f"the model cannot run ({one_line(error)})") from error
    if not torch.isfinite(logits).all():
        raise CheckpointError("the weights compute NaN or infinite logits on a test input")


def build(
    path: Path,
    model: Transformer,
    tokenizer: CharTokenizer,
    info: dict,
    tensors: dict[str, torch.Tensor],
    device: torch.device,
    notice: str | None,
) -> TransformerFamily:
    state = {name: tensor.to(torch.float32) for name, tensor in tensors.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if set(missing) - tied_aliases(model.config) or unexpected:
        raise CheckpointError(f"weights do not fit the model (missing {missing}, unexpected {unexpected})")
    model.eval()
    check_outputs(model)
    try:
        model.to(device)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as error:
        model.to("cpu")
        notice = f"could not move the model to {device} ({one_line(error)}); using CPU instead"
        device = torch.device("cpu")
    model.eval()
    return TransformerFamily(model, tokenizer, info, path, notice)
