"""Reading a checkpoint file safely, for every family: the file, the safetensors framing,
JSON metadata, weights-only ``.pt`` files, and each tensor against the shapes a family expects.

Nothing here runs code from a file or uses its contents as a path; every problem is one
line of ``CheckpointError``. The families (``model.transformer.checkpoint``,
``model.rnn.checkpoint``) add their own header and model checks on top.
"""

from __future__ import annotations

import json
import os
import re
import stat
import struct
from pathlib import Path

import torch
from safetensors.torch import load as load_safetensors_bytes
from safetensors.torch import save_file

from model.core.errors import CheckpointError, one_line
from model.core.header import MAX_HEADER_BYTES, METADATA_KEY  # noqa: F401 (re-exported: where readers look)
from model.core.tokenizer import CharTokenizer

MAX_FILE_BYTES = 2 * 1024**3
SAFETENSORS_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
MAX_WEIGHT = 1e4  # trained weights stay within a few units; far larger ones overflow float32 attention


def write_checkpoint(path: Path, tensors: dict[str, torch.Tensor], header: dict) -> None:
    """``tensors`` with ``header`` as our metadata, atomically (a temporary file, then rename)."""
    temporary = path.with_name(path.name + ".tmp")
    save_file(tensors, str(temporary), metadata={METADATA_KEY: json.dumps(header, ensure_ascii=False)})
    os.replace(temporary, path)


def read_file(path: Path) -> bytes:
    """The file's bytes; absent, unreadable, special, empty or huge files are refused."""
    try:
        status = path.stat()
        mode = status.st_mode
        if stat.S_ISREG(mode) and status.st_size <= MAX_FILE_BYTES:  # a huge file is never read
            with open(path, "rb") as file:  # builtins.open, so that tests can watch what is opened
                data = file.read(MAX_FILE_BYTES + 1)  # + 1: a file that grew since stat() is seen
    except (FileNotFoundError, NotADirectoryError) as error:
        raise CheckpointError(f"{path}: no such file") from error
    except PermissionError as error:
        raise CheckpointError(f"{path}: permission denied") from error
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read ({error.strerror or error})") from error
    except ValueError as error:  # e.g. a NUL byte in the path
        raise CheckpointError(f"{str(path)!r}: not a usable path ({one_line(error)})") from error
    if stat.S_ISDIR(mode):
        raise CheckpointError(f"{path}: is a directory, not a checkpoint file")
    if not stat.S_ISREG(mode):
        raise CheckpointError(f"{path}: is not a regular file")
    if status.st_size > MAX_FILE_BYTES:
        raise CheckpointError(f"{path}: larger than any checkpoint this app reads ({MAX_FILE_BYTES:,} bytes)")
    if not data:
        raise CheckpointError(f"{path}: the file is empty")
    if len(data) > MAX_FILE_BYTES:
        raise CheckpointError(f"{path}: larger than any checkpoint this app reads ({MAX_FILE_BYTES:,} bytes)")
    return data


def parse_json(text: bytes | str, what: str) -> object:
    """JSON from a file: bad UTF-8, bad syntax, absurd nesting or huge numbers are one error."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text)
    except (TypeError, ValueError, RecursionError) as error:  # ValueError: JSON, UTF-8, int digits
        raise CheckpointError(f"{what} is not valid JSON ({one_line(error)})") from error


def parse_safetensors(data: bytes) -> tuple[dict, dict[str, torch.Tensor]]:
    """Validate the safetensors framing ourselves, then let safetensors read the tensors."""
    if len(data) < 8:
        raise CheckpointError("not a safetensors file: shorter than its 8-byte header length")
    (header_len,) = struct.unpack("<Q", data[:8])
    if 8 + header_len > len(data):
        raise CheckpointError(
            "not a safetensors file, or a truncated one: the header length "
            f"({header_len} bytes) runs past the end of the file ({len(data)} bytes)"
        )
    if header_len > MAX_HEADER_BYTES:
        raise CheckpointError(
            f"safetensors header of {header_len:,} bytes is larger than any checkpoint's "
            f"({MAX_HEADER_BYTES:,})"
        )
    header = parse_json(data[8 : 8 + header_len], "safetensors header")
    if not isinstance(header, dict):
        raise CheckpointError("safetensors header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    body_len = len(data) - 8 - header_len
    for name, entry in header.items():
        check_entry(name, entry, body_len)
    if not isinstance(metadata, dict) or METADATA_KEY not in metadata:
        raise CheckpointError("safetensors file has no attnviz metadata (config and vocabulary)")
    ours = parse_json(metadata[METADATA_KEY], "attnviz metadata")
    try:
        tensors = load_safetensors_bytes(data)
    except Exception as error:  # safetensors raises its own error types; report, don't crash
        raise CheckpointError(f"safetensors could not read the tensors ({one_line(error)})") from error
    except BaseException as error:  # a Rust panic arrives as pyo3's PanicException(BaseException)
        if type(error).__name__ != "PanicException":
            raise
        raise CheckpointError(f"safetensors could not read the tensors ({one_line(error)})") from error
    return ours, tensors


def check_entry(name: str, entry: object, body_len: int) -> None:
    if not isinstance(entry, dict):
        raise CheckpointError(f"tensor {name!r}: header entry is not an object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in SAFETENSORS_DTYPES:
        raise CheckpointError(f"tensor {name!r}: dtype {dtype!r} is not a float type (expected F32)")
    if not (isinstance(shape, list) and all(isinstance(n, int) and n >= 0 for n in shape)):
        raise CheckpointError(f"tensor {name!r}: shape {shape!r} is not a list of sizes")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(n, int) for n in offsets)):
        raise CheckpointError(f"tensor {name!r}: data_offsets {offsets!r} are malformed")
    begin, end = offsets
    count = 0 if 0 in shape else 1
    for n in shape:
        count *= n
        if count > body_len:  # cannot fit; and a product of a million huge sizes would take minutes
            break
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
        problem = unpickling_problem(error)
        raise CheckpointError(f"not a loadable weights-only .pt file ({problem})") from error
    if not isinstance(payload, dict) or not isinstance(payload.get("state_dict"), dict):
        raise CheckpointError(".pt file must hold a dict with 'state_dict', 'config' and 'vocabulary'")
    tensors = payload.pop("state_dict")
    if not all(isinstance(k, str) and isinstance(t, torch.Tensor) for k, t in tensors.items()):
        raise CheckpointError(".pt state_dict must map names to tensors")
    return payload, tensors


def unpickling_problem(error: Exception) -> str:
    """What torch's many-line weights-only refusal refused, in a few words."""
    text = str(error)
    called = re.search(r"GLOBAL ([\w.]+)", text)
    if called:
        return f"it would call {called.group(1)}; code in a checkpoint is never run"
    operand = re.search(r"Unsupported operand \w+", text)
    return operand.group(0) if operand else one_line(error)


def parse_vocabulary_and_info(header: dict, vocab_size: int) -> tuple[CharTokenizer, dict]:
    """The header's vocabulary (it must have ``vocab_size`` tokens) and its info object."""
    vocabulary = header.get("vocabulary")
    if not isinstance(vocabulary, list):
        raise CheckpointError("vocabulary is missing or not a list")
    try:
        tokenizer = CharTokenizer(vocabulary)
    except (TypeError, ValueError) as error:
        raise CheckpointError(str(error)) from error  # the message starts with "vocabulary"
    if len(tokenizer) != vocab_size:
        raise CheckpointError(
            f"vocabulary has {len(tokenizer)} tokens but the config says vocab_size={vocab_size}"
        )
    info = header.get("info", {})
    if info is None:
        info = {}
    if not isinstance(info, dict):
        raise CheckpointError("info is not a JSON object")
    return tokenizer, info


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
        if tensor.layout != torch.strided or tensor.device.type != "cpu":
            raise CheckpointError(f"tensor {name!r} is a {tensor.layout} tensor on {tensor.device}")
        if not torch.isfinite(tensor).all():
            raise CheckpointError(f"tensor {name!r} holds NaN or infinite values")
        largest = float(tensor.abs().max()) if tensor.numel() else 0.0
        if largest > MAX_WEIGHT:
            raise CheckpointError(
                f"tensor {name!r} holds a value of magnitude {largest:.3g}, beyond the {MAX_WEIGHT:g} "
                "that a trained model of this app ever reaches"
            )


FLOAT16_LARGEST = 65504.0


def write_half_precision(source: Path, out: Path) -> int:
    """Copy the checkpoint ``source`` to ``out`` with its weights stored as float16: half the
    file, which every family widens back to float32 when it loads. The header is kept, with
    ``info.stored_as`` set. Returns the new file's size. A weight beyond float16's range is
    refused (it would become infinite)."""
    ours, tensors = parse_safetensors(read_file(Path(source)))
    if not isinstance(ours, dict):
        raise CheckpointError("attnviz metadata is not a JSON object")
    halved = {}
    for name, tensor in tensors.items():
        largest = float(tensor.abs().max()) if tensor.numel() else 0.0
        if largest > FLOAT16_LARGEST:
            raise CheckpointError(f"tensor {name!r} holds {largest:.3g}, beyond float16's range")
        halved[name] = tensor.to(torch.float16).contiguous()
    info = dict(ours.get("info") or {})
    info["stored_as"] = "float16"
    write_checkpoint(Path(out), halved, {**ours, "info": info})
    return Path(out).stat().st_size
