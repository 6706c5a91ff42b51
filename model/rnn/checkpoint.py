"""RNN checkpoints: a safetensors file like the Transformer's, told apart by its header.

The ``attnviz`` metadata JSON is ``{"format_version": 1, "family": "rnn", "config": {...RNNConfig
fields...}, "vocabulary": [...], "info": {...}}``; tensors are named as in
``RNNSeq2Seq.state_dict()``. ``recognises`` reads only the header (a few kilobytes), so the
registry asks it before the Transformer's, which takes any other file. Loading validates like
the Transformer's (``model.core.weights_file``): header, config, vocabulary, every tensor's
name, shape, dtype, finiteness and magnitude, then one forward pass.
"""

from __future__ import annotations

from pathlib import Path

import torch

from model.core.devices import resolve_device
from model.core.errors import CheckpointError, one_line
from model.core.header import REPLAY_KIND, attnviz_header
from model.core.tokenizer import CharTokenizer
from model.core.weights_file import (
    check_tensors,
    parse_safetensors,
    parse_vocabulary_and_info,
    read_file,
    write_checkpoint,
)
from model.rnn.config import RNNConfig
from model.rnn.family import FAMILY, RNNFamily
from model.rnn.model import RNNSeq2Seq

FORMAT_VERSION = 1
MAX_PARAMETERS = 200_000_000
SMOKE_TOKENS = 16


def save_rnn_checkpoint(
    path: str | Path, model: RNNSeq2Seq, tokenizer: CharTokenizer, info: dict | None = None
) -> None:
    """Write ``model`` and ``tokenizer`` to ``path`` (atomically: a temp file, then rename)."""
    path = Path(path)
    tensors = {
        name: t.detach().to("cpu", torch.float32).contiguous() for name, t in model.state_dict().items()
    }
    header = {
        "format_version": FORMAT_VERSION,
        "family": FAMILY,
        "config": model.config.to_dict(),
        "vocabulary": tokenizer.tokens,
        "info": info or {},
    }
    write_checkpoint(path, tensors, header)


def recognises(path: Path) -> bool:
    """An RNN checkpoint: a safetensors file whose attnviz header says ``"family": "rnn"``.
    Reads the header only; anything unreadable is left to the other families."""
    header = attnviz_header(path)
    return header is not None and header.get("family") == FAMILY and header.get("kind") != REPLAY_KIND


def parse_header(header: object) -> tuple[RNNConfig, CharTokenizer, dict]:
    if not isinstance(header, dict):
        raise CheckpointError("attnviz metadata is not a JSON object")
    version = header.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise CheckpointError(f"format_version {version!r} is missing or not a positive integer")
    if version > FORMAT_VERSION:
        raise CheckpointError(
            f"RNN checkpoint format version {version} is newer than this app reads ({FORMAT_VERSION}); "
            "update attention-visualizer"
        )
    try:
        config = RNNConfig.from_dict(header.get("config"))
    except (TypeError, ValueError) as error:
        raise CheckpointError(one_line(error)) from error
    tokenizer, info = parse_vocabulary_and_info(header, config.vocab_size)
    return config, tokenizer, info


def build_model(config: RNNConfig, pad_id: int) -> RNNSeq2Seq:
    count = config.parameter_count()
    if count > MAX_PARAMETERS:
        raise CheckpointError(
            f"config describes {count:,} parameters, more than this app loads ({MAX_PARAMETERS:,})"
        )
    try:
        return RNNSeq2Seq(config, pad_id)
    except (MemoryError, RuntimeError) as error:
        raise CheckpointError(f"cannot build a model of this config ({one_line(error)})") from error


@torch.no_grad()
def check_outputs(model: RNNSeq2Seq) -> None:
    """One teacher-forced pass over the first tokens of the vocabulary; logits must be finite."""
    ids = torch.arange(min(model.config.vocab_size, model.config.max_len, SMOKE_TOKENS)).unsqueeze(0)
    ids[0, 0] = max(int(ids[0, -1]), 1)  # a real token first: a source of padding only is not a source
    try:
        logits = model(ids, ids, ids == model.pad_id)
    except (RuntimeError, ValueError) as error:
        raise CheckpointError(f"the model cannot run ({one_line(error)})") from error
    if not torch.isfinite(logits).all():
        raise CheckpointError("the weights compute NaN or infinite logits on a test input")


def read_rnn_checkpoint(path: str | Path) -> tuple[RNNSeq2Seq, CharTokenizer, dict]:
    """The validated module (on the CPU, in eval mode), its tokenizer and its info: what
    training resumes from, for every variant."""
    header, tensors = parse_safetensors(read_file(Path(path)))
    config, tokenizer, info = parse_header(header)
    model = build_model(config, tokenizer.pad_id)
    check_tensors(tensors, model.state_dict())
    model.load_state_dict({name: t.to(torch.float32) for name, t in tensors.items()})
    model.eval()
    check_outputs(model)
    return model, tokenizer, info


def load_rnn_checkpoint(path: str | Path, device: str = "auto") -> RNNFamily:
    """Load and validate an RNN checkpoint for the app; any problem raises ``CheckpointError``
    in one line."""
    path = Path(path)
    torch_device, notice = resolve_device(device)
    model, tokenizer, info = read_rnn_checkpoint(path)
    try:
        model.to(torch_device)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as error:
        model.to("cpu")
        notice = f"could not move the model to {torch_device} ({one_line(error)}); using CPU instead"
    return RNNFamily(model, tokenizer, path, notice, info)
