"""Hostile checkpoints: every bad file is refused in one line, nothing in it runs or is opened.

The corpus is generated here from a valid tiny checkpoint, never committed as binaries. Each
entry is refused by ``load_checkpoint`` with a ``CheckpointError`` naming the problem, and by
``attnviz trace`` with exit status 2, one line on stderr and no file written.
``test_fuzz_checkpoints.py`` then mutates valid files at random.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import pickle
import struct
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from safetensors.torch import load as load_safetensors_bytes
from safetensors.torch import save as save_safetensors_bytes

from model.transformer.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from tests.factories import small_model
from visualizer.cli.attnviz import main

# -- editing a valid file ----------------------------------------------------------------------


def split(data: bytes) -> tuple[dict, bytes]:
    """A safetensors file's header (as JSON) and its data bytes."""
    (length,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8 : 8 + length]), data[8 + length :]


def join(header: dict | bytes, body: bytes) -> bytes:
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + body


def meta_of(header: dict) -> dict:
    return json.loads(header["__metadata__"]["attnviz"])


Builder = Callable[[bytes, Path], Path]  # (valid file's bytes, folder to write in) -> the bad file


def raw(transform: Callable[[bytes], bytes], name: str = "bad.safetensors") -> Builder:
    def build(valid: bytes, where: Path) -> Path:
        path = where / name
        path.write_bytes(transform(valid))
        return path

    return build


def header_edit(edit: Callable[[dict], object]) -> Builder:
    """Edit the safetensors header (tensor entries and ``__metadata__``); data unchanged."""

    def transform(valid: bytes) -> bytes:
        header, body = split(valid)
        edit(header)
        return join(header, body)

    return raw(transform)


def meta_edit(edit: Callable[[dict], object]) -> Builder:
    """Edit the attnviz JSON object inside the metadata."""

    def on_header(header: dict) -> None:
        meta = meta_of(header)
        edit(meta)
        header["__metadata__"]["attnviz"] = json.dumps(meta)

    return header_edit(on_header)


def meta_text(text: str) -> Builder:
    return header_edit(lambda header: header["__metadata__"].update(attnviz=text))


def config_edit(**changes) -> Builder:
    return meta_edit(lambda meta: meta["config"].update(changes))


def tensors_edit(edit: Callable[[dict[str, torch.Tensor]], dict[str, torch.Tensor]]) -> Builder:
    """Rewrite the tensors (a proper safetensors file), keeping the metadata."""

    def transform(valid: bytes) -> bytes:
        header, _ = split(valid)
        tensors = edit(dict(load_safetensors_bytes(valid)))
        return save_safetensors_bytes({k: v.contiguous() for k, v in tensors.items()}, header["__metadata__"])

    return raw(transform)


BIAS = "encoder_layers.0.ffn.linear1.bias"


def replaced(name: str, make: Callable[[torch.Tensor], torch.Tensor]) -> Builder:
    return tensors_edit(lambda tensors: {**tensors, name: make(tensors[name])})


def first_entry(header: dict) -> dict:
    return header[next(k for k in sorted(header) if k != "__metadata__")]


def torch_file(payload: Callable[[bytes, Path], object], name: str = "bad.pt") -> Builder:
    def build(valid: bytes, where: Path) -> Path:
        path = where / name
        torch.save(payload(valid, where), path)
        return path

    return build


def pt_payload(state_edit: Callable[[dict], dict] | None = None) -> Callable[[bytes, Path], object]:
    def payload(valid: bytes, where: Path) -> dict:
        header, _ = split(valid)
        state = dict(load_safetensors_bytes(valid))
        return {**meta_of(header), "state_dict": state_edit(state) if state_edit else state}

    return payload


class Exploit:
    """Unpickling this runs ``call(*args)``: it must never happen."""

    def __init__(self, call, *args) -> None:
        self.call, self.args = call, args

    def __reduce__(self):
        return (self.call, self.args)


MARKER = "code-ran"  # a file the exploits create if they run; it must never exist


def pickled_exploit(valid: bytes, where: Path) -> Path:
    """A bare pickle (protocol 2, so the unpickler gets as far as the GLOBAL it must refuse)."""
    path = where / "evil.pt"
    path.write_bytes(pickle.dumps({"state_dict": Exploit(open, str(where / MARKER), "w")}, protocol=2))
    return path


def legacy_exploit(valid: bytes, where: Path) -> Path:
    """torch's pre-zip format: its magic number, then the pickle."""
    from torch.serialization import MAGIC_NUMBER, PROTOCOL_VERSION

    buffer = io.BytesIO()
    for part in (MAGIC_NUMBER, PROTOCOL_VERSION, {}):
        pickle.dump(part, buffer, protocol=2)
    pickle.dump({"state_dict": Exploit(os.system, f"touch {where / MARKER}")}, buffer, protocol=2)
    path = where / "legacy.pt"
    path.write_bytes(buffer.getvalue())
    return path


def zip_exploit(valid: bytes, where: Path) -> object:
    return {"state_dict": Exploit(os.system, f"touch {where / MARKER}")}


def directory(valid: bytes, where: Path) -> Path:
    (where / "folder.safetensors").mkdir()
    return where / "folder.safetensors"


def absent(valid: bytes, where: Path) -> Path:
    return where / "absent.safetensors"


def fifo(valid: bytes, where: Path) -> Path:
    path = where / "pipe.safetensors"
    os.mkfifo(path)  # reading it would block forever: the loader must not open it
    return path


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


# (builder, what the one-line message must say)
CORPUS = {
    # the file itself
    "empty file": (raw(lambda d: b""), "empty"),
    "directory": (directory, "directory"),
    "absent": (absent, "no such file"),
    "fifo": (fifo, "not a regular file"),
    "shorter than the length": (raw(lambda d: d[:5]), "8-byte"),
    "truncated in the header": (raw(lambda d: d[:100]), "runs past"),
    "truncated in the data": (raw(lambda d: d[:-100]), "does not fit"),
    "truncated by one byte": (raw(lambda d: d[:-1]), "does not fit"),
    "random bytes": (raw(lambda d: bytes(range(256)) * 4), "runs past"),
    # the safetensors header
    "header length lies": (raw(lambda d: struct.pack("<Q", 10**12) + d[8:]), "runs past"),
    "header is not JSON": (raw(lambda d: join(b"{not json", d)), "not valid JSON"),
    "header is not UTF-8": (raw(lambda d: join(b'{"\xff\xfe": 1}', d)), "not valid JSON"),
    "header nested too deep": (raw(lambda d: join(deep_json(100_000).encode(), d)), "not valid JSON"),
    "header number too long": (raw(lambda d: join(b'{"a": ' + b"9" * 5000 + b"}", d)), "not valid JSON"),
    "header is a list": (raw(lambda d: join(b"[1, 2]", d)), "not a JSON object"),
    "offsets run past the data": (
        header_edit(lambda h: first_entry(h).update(data_offsets=[0, 10**9])),
        "does not fit",
    ),
    "offsets backwards": (header_edit(lambda h: first_entry(h).update(data_offsets=[8, 0])), "does not fit"),
    "offsets negative": (header_edit(lambda h: first_entry(h).update(data_offsets=[-4, 0])), "does not fit"),
    "offsets not numbers": (header_edit(lambda h: first_entry(h).update(data_offsets=["0", 4])), "malformed"),
    "shape lies about the size": (
        header_edit(lambda h: first_entry(h).update(shape=[10**6, 10**6])),
        "does not fit",
    ),
    "shape not a list": (header_edit(lambda h: first_entry(h).update(shape="32")), "not a list of sizes"),
    "shape of 50,000 huge sizes": (  # their product alone would take seconds to compute
        header_edit(lambda h: first_entry(h).update(shape=[10**18] * 50_000)),
        "does not fit",
    ),
    "shape of 1,000 dimensions": (
        header_edit(lambda h: first_entry(h).update(shape=[1] * 1000 + [32])),
        "has shape",
    ),
    "entry not an object": (header_edit(lambda h: h.update(bogus=[1])), "not an object"),
    "overlapping tensors": (header_edit(lambda h: overlap(h)), "could not read"),
    # dtypes: float16 / bfloat16 are widened; anything else is refused
    "int64 tensor": (replaced(BIAS, lambda t: t.to(torch.int64)), "not a float type"),
    "float64 tensor": (replaced(BIAS, lambda t: t.to(torch.float64)), "not a float type"),
    "bool tensor": (replaced(BIAS, lambda t: t > 0), "not a float type"),
    "unknown dtype": (header_edit(lambda h: first_entry(h).update(dtype="Q99")), "not a float type"),
    # tensors
    "missing tensor": (tensors_edit(lambda t: {k: v for k, v in t.items() if k != BIAS}), "is missing"),
    "no tensors": (tensors_edit(lambda t: {}), "is missing"),
    "extra tensor": (tensors_edit(lambda t: {**t, "bogus": torch.zeros(1)}), "unexpected tensor 'bogus'"),
    "wrong shape": (replaced(BIAS, lambda t: torch.zeros(3)), "has shape"),
    "transposed": (replaced("src_embed.weight", lambda t: t.T), "has shape"),
    "NaN weights": (replaced(BIAS, lambda t: torch.full_like(t, float("nan"))), "NaN"),
    "infinite weights": (replaced(BIAS, lambda t: torch.full_like(t, float("inf"))), "infinite"),
    "absurdly large weights": (replaced(BIAS, lambda t: torch.full_like(t, 1e30)), "magnitude"),
    # metadata
    "no metadata": (header_edit(lambda h: h.pop("__metadata__")), "no attnviz metadata"),
    "metadata without attnviz": (header_edit(lambda h: h.update(__metadata__={"x": "y"})), "no attnviz"),
    "metadata is not JSON": (meta_text("{oops"), "not valid JSON"),
    "metadata nested too deep": (meta_text(deep_json(100_000)), "not valid JSON"),
    "metadata is a list": (meta_text("[1, 2, 3]"), "not a JSON object"),
    "metadata is a string": (meta_text('"config"'), "not a JSON object"),
    "metadata value not a string": (
        header_edit(lambda h: h["__metadata__"].update(other=5)),
        "could not read",
    ),
    "format version from the future": (meta_edit(lambda m: m.update(format_version=99)), "newer"),
    "format version missing": (meta_edit(lambda m: m.pop("format_version")), "format_version"),
    "format version a string": (meta_edit(lambda m: m.update(format_version="1")), "not an integer"),
    "format version zero": (meta_edit(lambda m: m.update(format_version=0)), "not valid"),
    "format version true": (meta_edit(lambda m: m.update(format_version=True)), "not an integer"),
    # config
    "config missing": (meta_edit(lambda m: m.pop("config")), "config"),
    "config is a list": (meta_edit(lambda m: m.update(config=[1])), "config"),
    "d_model 10**9": (config_edit(d_model=10**9), "d_model"),
    "heads do not divide d_model": (config_edit(n_heads=5), "does not divide"),
    "zero layers": (config_edit(n_encoder_layers=0), "n_encoder_layers"),
    "negative d_ff": (config_edit(d_ff=-64), "d_ff"),
    "non-integer d_model": (config_edit(d_model=32.5), "d_model must be an integer"),
    "string d_model": (config_edit(d_model="32"), "d_model must be an integer"),
    "null n_heads": (config_edit(n_heads=None), "n_heads must be an integer"),
    "string dropout": (config_edit(dropout="0.1"), "dropout"),
    "NaN dropout": (config_edit(dropout=float("nan")), "dropout"),
    "huge max_len": (config_edit(max_len=10**12), "max_len"),
    "unknown norm": (config_edit(norm_placement="middle"), "norm_placement"),
    "unknown config field": (config_edit(tokenizer_file="/etc/passwd"), "unknown field"),
    "sizes too big to allocate": (
        config_edit(d_model=8192, d_ff=65536, n_encoder_layers=64),
        "more than this app loads",
    ),
    "config that does not match the tensors": (config_edit(d_model=64, d_ff=128), "has shape"),
    # vocabulary
    "vocabulary shorter than the embedding": (meta_edit(lambda m: m["vocabulary"].pop()), "vocab_size"),
    "vocabulary missing": (meta_edit(lambda m: m.pop("vocabulary")), "vocabulary"),
    "vocabulary a string": (meta_edit(lambda m: m.update(vocabulary="abc")), "not a list"),
    "vocabulary entry a number": (meta_edit(lambda m: m["vocabulary"].__setitem__(10, 7)), "single"),
    "vocabulary entry a list": (meta_edit(lambda m: m["vocabulary"].__setitem__(10, ["a"])), "single"),
    "vocabulary entry two characters": (meta_edit(lambda m: m["vocabulary"].__setitem__(10, "ab")), "single"),
    "vocabulary entry empty": (meta_edit(lambda m: m["vocabulary"].__setitem__(10, "")), "single"),
    "vocabulary entry a lone surrogate": (
        meta_edit(lambda m: m["vocabulary"].__setitem__(10, "\ud800")),
        "surrogate",
    ),
    "vocabulary duplicates": (
        meta_edit(lambda m: m["vocabulary"].__setitem__(10, m["vocabulary"][11])),
        "duplicate",
    ),
    "vocabulary without special tokens": (meta_edit(lambda m: m["vocabulary"].reverse()), "must start"),
    "info not an object": (meta_edit(lambda m: m.update(info=["/etc/passwd"])), "info"),
    # .pt files: read with the weights-only unpickler, never run
    "pickle that runs code": (pickled_exploit, "would call io.open"),
    "legacy torch file that runs code": (legacy_exploit, "would call posix.system"),
    "torch.save that runs code": (torch_file(zip_exploit), "would call posix.system"),
    ".pt that is not a zip or pickle": (raw(lambda d: b"\x80\x04garbage", "junk.pt"), "weights-only"),
    ".pt that is a safetensors file": (raw(lambda d: d, "renamed.pt"), "weights-only"),
    ".pt holding a list": (torch_file(lambda d, w: [1, 2]), "must hold a dict"),
    ".pt state_dict of numbers": (
        torch_file(pt_payload(lambda s: {k: 1.0 for k in s})),
        "must map names to tensors",
    ),
    ".pt int64 tensors": (
        torch_file(pt_payload(lambda s: {k: v.to(torch.int64) for k, v in s.items()})),
        "dtype",
    ),
    ".pt sparse tensor": (
        torch_file(pt_payload(lambda s: {**s, BIAS: s[BIAS].to_sparse()})),
        "sparse",
    ),
    ".pt format version from the future": (
        torch_file(lambda d, w: {**pt_payload()(d, w), "format_version": 2}),
        "newer",
    ),
}


def overlap(header: dict) -> None:
    """Point the second tensor at the first one's bytes (same size, so the offsets check holds)."""
    entries = [header[k] for k in sorted(header) if k != "__metadata__"]
    same = [e for e in entries if e["shape"] == entries[0]["shape"] and e is not entries[0]]
    same[0]["data_offsets"] = list(entries[0]["data_offsets"])


@pytest.fixture(scope="module")
def valid_bytes(tmp_path_factory) -> bytes:
    model, tokenizer = small_model(seed=4)
    path = tmp_path_factory.mktemp("valid") / "valid.safetensors"
    save_checkpoint(path, model, tokenizer, {"note": "the corpus starts from this file"})
    load_checkpoint(path, "cpu")  # valid before it is spoiled
    return path.read_bytes()


@pytest.fixture(params=sorted(CORPUS), ids=str)
def hostile(request, valid_bytes, tmp_path) -> tuple[Path, str, Path]:
    """(bad file, what its message must say, folder where its exploit marker would appear)."""
    build, message = CORPUS[request.param]
    where = tmp_path / "corpus"
    where.mkdir()
    if request.param == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    return build(valid_bytes, where), message, where


def test_load_refuses_with_one_line_naming_the_problem(hostile):
    path, message, where = hostile
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path, "cpu")
    text = str(info.value)
    assert message in text, text
    assert "\n" not in text and "\r" not in text and len(text) <= CheckpointError.MAX_MESSAGE + 3
    assert not (where / MARKER).exists()


def test_cli_trace_exits_2_with_one_line_and_writes_nothing(hostile, tmp_path, capsys):
    path, message, where = hostile
    out = tmp_path / "out"
    out.mkdir()
    code = main(["trace", "--checkpoint", str(path), "--text", "reverse: abc", "--out", str(out / "t.npz")])
    captured = capsys.readouterr()
    assert code == 2
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("attnviz: ") and message in lines[0], captured.err
    assert lines[0].startswith((f"attnviz: {path.name}", f"attnviz: {path}")), lines[0]  # the file, first
    assert "Traceback" not in captured.err and captured.out == ""
    assert list(out.iterdir()) == []
    assert not (where / MARKER).exists()


def test_unreadable_file_is_refused(valid_bytes, tmp_path, monkeypatch, capsys):
    """Simulated with ``open`` raising: a root user reads a chmod-000 file regardless."""
    path = tmp_path / "locked.safetensors"
    path.write_bytes(valid_bytes)
    real_open = builtins.open

    def locked_open(file, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", locked_open)
    with pytest.raises(CheckpointError, match="permission denied"):
        load_checkpoint(path, "cpu")
    out = tmp_path / "out"
    out.mkdir()
    assert main(["trace", "--checkpoint", str(path), "--text", "abc", "--out", str(out / "t.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "permission denied" in err and not list(out.iterdir())


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file")
def test_chmod_000_file_is_refused(valid_bytes, tmp_path):
    path = tmp_path / "locked.safetensors"
    path.write_bytes(valid_bytes)
    path.chmod(0)
    try:
        with pytest.raises(CheckpointError, match="permission denied"):
            load_checkpoint(path, "cpu")
    finally:
        path.chmod(0o600)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_tensors_are_widened_to_float32(valid_bytes, tmp_path, dtype):
    header, _ = split(valid_bytes)
    tensors = {k: v.to(dtype) for k, v in load_safetensors_bytes(valid_bytes).items()}
    path = tmp_path / "half.safetensors"
    path.write_bytes(save_safetensors_bytes(tensors, header["__metadata__"]))
    loaded = load_checkpoint(path, "cpu")
    for name, tensor in tensors.items():
        restored = loaded.model.state_dict()[name]
        assert restored.dtype == torch.float32 and torch.equal(restored, tensor.float()), name


def test_paths_in_metadata_are_never_opened(valid_bytes, tmp_path, monkeypatch, capsys):
    written = tmp_path / "written-by-metadata"
    meta_paths = {"tokenizer_file": "/etc/passwd", "out": str(written), "checkpoint": "/etc/shadow"}
    header, body = split(valid_bytes)
    meta = meta_of(header)
    meta.update(meta_paths)  # unknown top-level keys are ignored ...
    meta["info"] = {**meta_paths, "trace": str(written)}  # ... and info is only shown
    header["__metadata__"]["attnviz"] = json.dumps(meta)
    path = tmp_path / "paths.safetensors"
    path.write_bytes(join(header, body))

    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open

    def recording_open(file, *args, **kwargs):
        opened.append(os.fsdecode(file) if not isinstance(file, int) else f"fd {file}")
        return real_open(file, *args, **kwargs)

    def recording_os_open(file, *args, **kwargs):
        opened.append(os.fsdecode(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", recording_open)
    monkeypatch.setattr(io, "open", recording_open)
    monkeypatch.setattr(os, "open", recording_os_open)
    checkpoint = load_checkpoint(path, "cpu")
    assert opened == [str(path)]
    assert checkpoint.metadata["tokenizer_file"] == "/etc/passwd"  # kept as text, shown, never used

    out = tmp_path / "out" / "t.npz"
    out.parent.mkdir()
    opened.clear()
    assert main(["trace", "--checkpoint", str(path), "--text", "reverse: abc", "--out", str(out)]) == 0
    capsys.readouterr()
    assert all(Path(p).parent in (tmp_path, out.parent) for p in opened), opened
    assert not any(p in opened for p in ("/etc/passwd", "/etc/shadow", str(written)))
    assert sorted(p.name for p in out.parent.iterdir()) == ["t.json", "t.npz"]
    assert not written.exists()


def test_a_file_too_large_is_refused_without_being_read(valid_bytes, tmp_path, monkeypatch):
    import model.core.weights_file as weights_file  # where every family's file limit lives

    path = tmp_path / "huge.safetensors"
    path.write_bytes(valid_bytes)
    monkeypatch.setattr(weights_file, "MAX_FILE_BYTES", len(valid_bytes) - 1)
    opened = []
    real_open = builtins.open
    monkeypatch.setattr(
        builtins, "open", lambda file, *a, **k: opened.append(file) or real_open(file, *a, **k)
    )
    with pytest.raises(CheckpointError, match="larger than any checkpoint"):
        load_checkpoint(path, "cpu")
    assert opened == []
