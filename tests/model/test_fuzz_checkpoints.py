"""Fuzzing checkpoints: hypothesis mutates valid files (random bytes, overwritten bytes, flipped
weight bits, truncations, header values, .pt files); the loader either returns a model that runs
one step with finite logits, or refuses in one line. Never anything in between, never a hang,
never absurd memory."""

from __future__ import annotations

import io
import json
import resource
import struct
import tempfile
import time
from functools import cache
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.torch import load as load_safetensors_bytes

from model.generation.engine import GenerationEngine
from model.transformer.checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from tests.factories import small_model
from tests.model.test_hostile_checkpoints import join, meta_of, split

# A loader that takes this long on a file of a few kilobytes has hung (say, on a hostile length
# field): a hang detector, not a speed check, so it is far above any busy machine's time.
HANG_S = 300

@cache
def fuzz_seed_file() -> bytes:
    """A tiny valid checkpoint: small enough that random edits often land in the header."""
    model, tokenizer = small_model(
        seed=5, d_model=8, n_heads=2, d_ff=16, n_encoder_layers=1, n_decoder_layers=1, max_len=12
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seed.safetensors"
        save_checkpoint(path, model, tokenizer)
        return path.read_bytes()


@cache
def fuzz_seed_pt_file() -> bytes:
    """The same model as a weights-only .pt (made once: torch.save's bytes differ per call)."""
    header, _ = split(fuzz_seed_file())
    buffer = io.BytesIO()
    torch.save({**meta_of(header), "state_dict": dict(load_safetensors_bytes(fuzz_seed_file()))}, buffer)
    return buffer.getvalue()


FUZZ = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def loads_and_runs_or_refuses(data: bytes, suffix: str = ".safetensors", load=load_checkpoint) -> None:
    """The property: a checkpoint that ``load`` opens runs one step with finite logits; else
    CheckpointError."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"fuzz{suffix}"
        path.write_bytes(data)
        try:
            checkpoint = load(path, "cpu")
        except CheckpointError as error:
            assert str(error) and "\n" not in str(error)
            return
        finally:
            assert time.perf_counter() - started < HANG_S, "the loader hung"
    source = "ab"[: checkpoint.config.max_len - 1]
    engine = GenerationEngine(checkpoint, source)
    record = engine.step()
    assert record is not None and torch.isfinite(torch.from_numpy(record.logits.copy())).all()


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Models this small run fastest on one thread; a second one only waits on a busy machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module", autouse=True)
def memory_stays_bounded():
    """No fuzzed file may make the loader allocate absurd memory (peak RSS, in KiB on Linux)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    yield
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < 1024**2, f"peak memory grew by {grown // 1024} MiB"


@FUZZ
@given(st.binary(max_size=2048))
def test_fuzz_random_bytes(data):
    loads_and_runs_or_refuses(data)


@FUZZ
@given(st.binary(max_size=512), st.integers(0, 600))
def test_fuzz_random_bytes_behind_a_plausible_length(data, length):
    loads_and_runs_or_refuses(struct.pack("<Q", length) + data)


def overwritten_bytes(data, valid: bytes) -> bytes:
    """``valid`` with up to six bytes overwritten, anywhere or in the header (hypothesis ``data``)."""
    edited = bytearray(valid)
    anywhere = st.integers(0, len(valid) - 1)
    in_header = st.integers(0, 8 + struct.unpack("<Q", valid[:8])[0] - 1)
    edits = data.draw(st.lists(st.tuples(st.one_of(anywhere, in_header), st.integers(0, 255)), max_size=6))
    for position, value in edits:
        edited[position] = value
    return bytes(edited)


def flipped_weight_bits(data, valid: bytes) -> bytes:
    """``valid`` with one to eight bits of its tensor data flipped (hypothesis ``data``)."""
    edited = bytearray(valid)
    position = st.integers(8 + struct.unpack("<Q", valid[:8])[0], len(valid) - 1)
    for index, bit in data.draw(st.lists(st.tuples(position, st.integers(0, 7)), min_size=1, max_size=8)):
        edited[index] ^= 1 << bit
    return bytes(edited)


@FUZZ
@given(st.data())
def test_fuzz_overwritten_bytes(data):
    loads_and_runs_or_refuses(overwritten_bytes(data, fuzz_seed_file()))


@FUZZ
@given(st.data())
def test_fuzz_flipped_weight_bits(data):
    """Bit flips in the data: exponents turn into NaN, inf or 1e38 — refused, never run."""
    loads_and_runs_or_refuses(flipped_weight_bits(data, fuzz_seed_file()))


@FUZZ
@given(st.integers(0, 10**6))
def test_fuzz_truncated(length):
    valid = fuzz_seed_file()
    loads_and_runs_or_refuses(valid[: length % len(valid)])


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from([0, 1, -1, 2, 8, 16, 10**9, "", "F32", "I64", "F16", "/etc/passwd"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def json_paths(value, prefix=()) -> list[tuple]:
    """Every path to a value inside nested dicts and lists."""
    paths = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            paths += json_paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            paths += json_paths(inner, (*prefix, index))
    return paths


def set_at(root, path: tuple, value):
    if not path:
        return value
    target = root
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return root


@FUZZ
@given(st.data())
def test_fuzz_header_values(data):
    """Replace one value anywhere in the header or in the attnviz metadata; fix up the length."""
    header, body = split(fuzz_seed_file())
    meta = meta_of(header)
    if data.draw(st.booleans(), label="in the metadata"):
        where = data.draw(st.sampled_from(json_paths(meta)), label="path")
        meta = set_at(meta, where, data.draw(JSON_VALUES, label="value"))
    else:
        where = data.draw(st.sampled_from(json_paths(header)), label="path")
        header = set_at(header, where, data.draw(JSON_VALUES, label="value"))
    if isinstance(header, dict) and isinstance(header.get("__metadata__"), dict):
        header["__metadata__"]["attnviz"] = json.dumps(meta)
    loads_and_runs_or_refuses(join(json.dumps(header).encode(), body))


@FUZZ
@given(st.data())
def test_fuzz_pt_files(data):
    """A weights-only .pt of the same model, with bytes overwritten: refused or loaded, never run."""
    valid = bytearray(fuzz_seed_pt_file())
    position = st.integers(0, len(valid) - 1)
    for index, value in data.draw(st.lists(st.tuples(position, st.integers(0, 255)), max_size=6)):
        valid[index] = value
    loads_and_runs_or_refuses(bytes(valid), suffix=".pt")
