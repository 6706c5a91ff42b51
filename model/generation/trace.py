"""The trace file: a generation's arrays as .npz, and a JSON summary beside it.

Every kind of attention the model's family describes is written under the kind's name:
a kind whose queries are source positions as [L, H, S, S], one whose queries are decoder
positions as [L, H, T, keys] (row t from step t; zeros where a causal kind's row is shorter).
Extras are written as ``enc_<name>`` (the encoder's, positions last) and ``dec_<name>``
(one per step, steps last). The JSON names the family and its kinds. For the Transformer
(L layers, H heads, S source tokens, T output steps, V vocabulary):

================  =====================  =================================================
name              shape                  meaning
================  =====================  =================================================
enc_self          [L_enc, H, S, S]       encoder self-attention weights, query × key
dec_self          [L_dec, H, T, T]       decoder self-attention; row t from step t, zeros above the diagonal
cross             [L_dec, H, T, S]       cross-attention weights
probs             [T, V]                 distribution each token was chosen from (after filtering)
model_probs       [T, V]                 the model's own softmax, before temperature / top-k / top-p
src_ids           [S]                    source token ids (characters, then <eos>)
input_ids         [T]                    what the decoder read at each step (<bos>, out[0], ...)
out_ids           [T]                    the chosen tokens
forced            [T]                    True where the user forced the token
prompted          [T]                    True where the model's own prompt gave the token (Whisper)
enc_norms         [L_enc, 2, 4, S]       per Add & Norm: in_mean, in_std, out_mean, out_std
dec_norms         [L_dec, 3, 4, T]       the same for the decoder
step_seconds      [T]                    wall time of each step
================  =====================  =================================================

A speech model's trace (keys S are time frames, ``seconds_per_position`` in the JSON) also
holds ``spectrogram`` [mel bins, frames]: the log-mel spectrogram its encoder read.

Teacher-forced traces also hold ``target_ids`` [T], ``predictions`` [T], ``loss`` [T] and,
for each decoder kind with raw scores, ``<kind>_scores`` (the Transformer's ``dec_self_scores``
[L_dec, H, T, T] and ``cross_scores`` [L_dec, H, T, S]); there ``probs`` equals ``model_probs``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from model.generation.forced_records import TeacherForcedRecord
from model.generation.records import GenerationSnapshot
from model.interface import NO_INTERVENTIONS, FamilyInfo, Tokenizer
from model.source import Source, source_kind, source_label

TRACE_VERSION = 1


def generation_arrays(snapshot: GenerationSnapshot) -> dict[str, np.ndarray]:
    """Every kind of attention under its own name, then the distributions, ids and extras."""
    encoder, steps = snapshot.encoder, snapshot.steps
    n_steps, source_len = len(steps), len(encoder.source_axis)
    vocab = len(snapshot.tokenizer)
    arrays: dict[str, np.ndarray] = {}
    for kind in snapshot.info.kinds:
        if not kind.per_step:
            arrays[kind.name] = encoder.attention[kind.name].astype(np.float32)
            continue
        n_keys = n_steps if kind.keys == "target" else source_len
        matrix = np.zeros((kind.layers, kind.heads, n_steps, n_keys), dtype=np.float32)
        for t, step in enumerate(steps):
            row = step.attention[kind.name]  # [L, H, keys]: t+1 keys for a causal kind
            matrix[:, :, t, : row.shape[-1]] = row
        arrays[kind.name] = matrix

    def stacked(rows: list[np.ndarray], empty_shape: tuple[int, ...]) -> np.ndarray:
        return np.stack(rows).astype(np.float32) if rows else np.zeros(empty_shape, dtype=np.float32)

    arrays.update(
        probs=stacked([s.filtered_probs for s in steps], (0, vocab)),
        model_probs=stacked([s.probs for s in steps], (0, vocab)),
        src_ids=encoder.src_ids.astype(np.int64),
        input_ids=np.asarray([s.input_id for s in steps], dtype=np.int64),
        out_ids=np.asarray([s.token_id for s in steps], dtype=np.int64),
        forced=np.asarray([s.forced for s in steps], dtype=bool),
        prompted=np.asarray([s.prompted for s in steps], dtype=bool),
    )
    arrays.update(source_arrays(encoder))
    for name, value in encoder.extras.items():
        arrays[f"enc_{name}"] = value.astype(np.float32)
    for name in steps[0].extras if steps else ():
        arrays[f"dec_{name}"] = np.stack([s.extras[name] for s in steps], axis=-1).astype(np.float32)
    arrays["step_seconds"] = np.asarray([s.seconds for s in steps], dtype=np.float64)
    return arrays


def teacher_forced_arrays(record: TeacherForcedRecord) -> dict[str, np.ndarray]:
    encoder, item = record.encoder, record.item
    arrays: dict[str, np.ndarray] = {}
    for kind, matrices in item.attention.items():
        if kind in encoder.attention:  # a source-side kind: as the encoder recorded it
            arrays[kind] = encoder.attention[kind].astype(np.float32)
            continue
        arrays[kind] = matrices.weights.astype(np.float32)
        if matrices.scores is not None:
            arrays[f"{kind}_scores"] = matrices.scores.astype(np.float32)
    probs = item.probs.astype(np.float32)
    arrays.update(source_arrays(encoder))
    arrays.update(
        probs=probs,
        model_probs=probs,
        src_ids=encoder.src_ids.astype(np.int64),
        input_ids=item.input_ids.astype(np.int64),
        out_ids=item.target_ids.astype(np.int64),
        target_ids=item.target_ids.astype(np.int64),
        predictions=item.predictions.astype(np.int64),
        loss=item.loss.astype(np.float32),
        forced=np.ones(len(item.target_ids), dtype=bool),
    )
    for name, value in encoder.extras.items():
        arrays[f"enc_{name}"] = value.astype(np.float32)
    for name, value in item.extras.items():
        arrays[f"dec_{name}"] = value.astype(np.float32)
    return arrays


def source_arrays(encoder) -> dict[str, np.ndarray]:
    """A speech model's source: the log-mel spectrogram its encoder read [bins, columns]."""
    picture = encoder.source_axis.picture
    return {"spectrogram": picture.astype(np.float32)} if picture is not None else {}


def axis_summary(source: Source, encoder) -> dict:
    """What the source was and what its positions are: text tokens, or time frames (their
    length in seconds, how many hold the file's own sound, the notice said on opening)."""
    axis = encoder.source_axis
    summary: dict = {"source_kind": source_kind(source), "source_axis": axis.kind}
    if axis.kind == "frames":
        summary.update(
            seconds_per_position=axis.seconds_per_position,
            heard_positions=axis.heard,
            source_path=str(getattr(source, "path", "")),
        )
    if encoder.notice:
        summary["source_notice"] = encoder.notice
    return summary


def token_texts(tokenizer: Tokenizer, ids) -> list[str]:
    return [tokenizer.token_text(int(i)) for i in ids]


def generation_summary(snapshot: GenerationSnapshot) -> dict:
    tokenizer = snapshot.tokenizer
    summary = {
        "trace_version": TRACE_VERSION,
        "mode": "generate",
        "source": source_label(snapshot.source),
        **axis_summary(snapshot.source, snapshot.encoder),
        "source_tokens": snapshot.encoder.tokens,
        "unknown_characters": [{"position": p, "character": c} for p, c in snapshot.encoder.unknown],
        "decoder_input_tokens": token_texts(tokenizer, [s.input_id for s in snapshot.steps]),
        "output_tokens": token_texts(tokenizer, snapshot.output_ids),
        # each <unk> the model wrote filled with the source character attention points at
        "output_text": snapshot.output_text(),
        "output_text_as_written": snapshot.output_text(copy_unknowns=False),  # <unk> as U+FFFD
        "copied_unknowns": [copy.to_dict() for copy in snapshot.copies.values()],
        "stop_reason": snapshot.stop_reason,
        **model_summary(snapshot.info),
        "decoding": snapshot.settings.to_dict(),
        "interventions": interventions_dict(snapshot.interventions),
        "timings": {
            "encode_s": snapshot.encoder.seconds,
            "steps_s": [s.seconds for s in snapshot.steps],
            "total_s": snapshot.encoder.seconds + sum(s.seconds for s in snapshot.steps),
        },
    }
    if snapshot.beam is not None:
        tree = snapshot.beam.to_dict()
        for node in tree["nodes"]:
            token = node["token"] if node["token"] >= 0 else tokenizer.bos_id  # the root: the start token
            node["text"] = tokenizer.token_text(token)
        summary["beam"] = tree
    return summary


def teacher_forced_summary(
    record: TeacherForcedRecord,
    tokenizer: Tokenizer,
    source: Source,
    info: FamilyInfo,
    interventions=None,
    seconds: float | None = None,
) -> dict:
    return {
        "trace_version": TRACE_VERSION,
        "mode": "teacher_forced",
        "source": source_label(source),
        **axis_summary(source, record.encoder),
        "source_tokens": record.encoder.tokens,
        "unknown_characters": [{"position": p, "character": c} for p, c in record.encoder.unknown],
        "unknown_target_characters": [{"position": p, "character": c} for p, c in record.unknown],
        "decoder_input_tokens": token_texts(tokenizer, record.input_ids),
        "output_tokens": token_texts(tokenizer, record.target_ids),
        "output_text": tokenizer.decode(record.target_ids),
        "predicted_tokens": token_texts(tokenizer, record.predictions),
        "mean_loss": record.mean_loss,
        **model_summary(info),
        "decoding": {"strategy": "teacher_forced"},
        "interventions": interventions_dict(interventions or NO_INTERVENTIONS),
        "timings": {
            "encode_s": record.encoder.seconds,
            "total_s": seconds if seconds is not None else record.encoder.seconds,
        },
    }


def model_summary(info: FamilyInfo) -> dict:
    """The family, its kinds of attention (the names of their arrays) and its config."""
    kinds = {
        kind.name: {
            "title": kind.title,
            "layers": kind.layers,
            "heads": kind.heads,
            "queries": kind.queries,
            "keys": kind.keys,
            "causal": kind.causal,
        }
        for kind in info.kinds
    }
    described = {"family": info.family, "model": info.display_name, "kinds": kinds, "config": info.config}
    if not info.has_attention:
        described["without_attention"] = info.without_attention
    return described


def interventions_dict(interventions) -> dict:
    return {
        "no_positional": interventions.no_positional,
        "no_scaling": interventions.no_scaling,
        "no_causal_mask": interventions.no_causal_mask,
        "zeroed_heads": sorted(list(h) for h in interventions.zeroed_heads),
        "uniform_attention": interventions.uniform_attention,
        "attend_only": interventions.attend_only,
        "no_attention": interventions.no_attention,
    }


def npz_path_of(path: str | Path) -> Path:
    """Where a trace asked to go to ``path`` is written: ``.npz`` is added when missing."""
    path = Path(path)
    return path if path.suffix == ".npz" else path.with_name(path.name + ".npz")


def summary_path(npz_path: Path) -> Path:
    """trace.npz → trace.json beside it."""
    return npz_path.with_suffix(".json")


def summary_json(summary: dict) -> bytes:
    """The summary as UTF-8 JSON, escaped as ASCII only if UTF-8 cannot hold its text.

    Lone surrogates (undecodable bytes of a command line) have no UTF-8 form; JSON's ``\\u``
    escapes can carry them.
    """
    try:
        return json.dumps(summary, ensure_ascii=False, indent=1).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(summary, ensure_ascii=True, indent=1).encode("utf-8")


def write_atomically(path: Path, write) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, then rename it into place."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        with open(temporary, "wb") as file:
            write(file)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_trace(npz_path: str | Path, arrays: dict[str, np.ndarray], summary: dict) -> tuple[Path, Path]:
    """Write the .npz and its .json beside it; each is either complete or not there."""
    npz_path = npz_path_of(npz_path)
    json_path = summary_path(npz_path)
    text = summary_json(summary)  # before anything is written: it is what can fail on odd text
    write_atomically(npz_path, lambda file: np.savez_compressed(file, **arrays))
    write_atomically(json_path, lambda file: file.write(text))
    return npz_path, json_path
