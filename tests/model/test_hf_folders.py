"""Opening Hugging Face folders: what is refused, in one line, before anything is loaded."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from model.core.errors import CheckpointError
from model.hf.folder import check_memory, inspect_folder, recognises
from model.hf.loading import open_hf
from model.registry import open_model
from tests.hf_factories import write_hf_model  # skips without the [hf] extra


@pytest.fixture(scope="module")
def marian(tmp_path_factory):
    return write_hf_model("marian", tmp_path_factory.mktemp("hf") / "opus-mt-tiny")


@pytest.fixture
def copy(marian, tmp_path):
    """A copy of the Marian folder that a test may break."""
    return shutil.copytree(marian, tmp_path / "broken")


def edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


def refused(path, match):
    with pytest.raises(CheckpointError, match=match) as caught:
        open_model(path, "cpu")
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_a_folder_is_recognised_by_its_config_and_an_id_by_its_form(marian, tmp_path):
    assert recognises(marian)
    assert not recognises(tmp_path)  # a folder without config.json
    assert not recognises(marian / "config.json")
    assert recognises(type(marian)("Helsinki-NLP/opus-mt-en-de"))
    assert not recognises(type(marian)("missing/model.safetensors"))


def test_another_architecture_is_named_and_refused(copy):
    edit_config(copy, model_type="gpt2", architectures=["GPT2LMHeadModel"])
    message = refused(copy, "GPT2LMHeadModel")
    assert "Marian" in message and "T5" in message


def test_a_config_that_is_not_json_is_refused(copy):
    (copy / "config.json").write_text("{not json")
    refused(copy, "config.json")


def test_pickled_weights_are_refused_without_being_read(copy, monkeypatch):
    (copy / "model.safetensors").rename(copy / "pytorch_model.bin")
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k))
    message = refused(copy, "pickle")
    assert "safetensors" in message
    assert not any(name.endswith(".bin") for name in opened)


def test_a_folder_without_weights_or_tokenizer_says_which(copy):
    for name in ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json"):
        (copy / name).unlink(missing_ok=True)
    refused(copy, "no tokenizer files")
    (copy / "model.safetensors").unlink()
    refused(copy, "no weights file")


@pytest.mark.parametrize("name", ["vocab.json", "source.spm", "target.spm"])
def test_a_missing_tokenizer_file_is_named(copy, name):
    (copy / name).unlink()
    message = refused(copy, "missing")
    assert message == (
        f"broken: the tokenizer file {name} is missing "
        "(Marian reads vocab.json, source.spm and target.spm, or tokenizer.json)"
    )


def test_a_tokenizer_file_the_library_cannot_read_is_named_with_the_others(copy):
    (copy / "source.spm").write_bytes(b"not a sentencepiece model")
    message = refused(copy, "cannot read its tokenizer")
    assert message.startswith(
        "broken: cannot read its tokenizer from vocab.json, source.spm, target.spm, tokenizer_config.json ("
    ), message
    assert message.endswith("; Marian reads vocab.json, source.spm and target.spm, or tokenizer.json")


def test_a_folder_without_config_json_says_so_in_full(copy):
    from model.registry import FAMILIES

    (copy / "config.json").unlink()
    message = refused(copy, "^broken is a directory without config.json; this app opens ")
    assert "…" not in message and message.endswith(FAMILIES[-1].accepts), message  # never cut
    for entry in FAMILIES:
        assert entry.accepts in message


def test_a_missing_shard_is_named(copy):
    (copy / "model.safetensors").rename(copy / "model-00001-of-00002.safetensors")
    index = {"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}
    (copy / "model.safetensors.index.json").write_text(json.dumps(index))
    refused(copy, "model-00002-of-00002.safetensors is missing")


def test_weights_that_do_not_fit_the_config_are_refused(copy):
    config = json.loads((copy / "config.json").read_text())
    edit_config(copy, d_model=config["d_model"] * 2, encoder_ffn_dim=64)
    refused(copy, "weights do not")


def test_more_layers_in_the_config_than_in_the_weights_is_refused(copy):
    edit_config(copy, encoder_layers=3)
    refused(copy, "do not match the config")


def test_weights_that_compute_nan_are_refused(copy):
    from safetensors.torch import load_file, save_file

    tensors = load_file(copy / "model.safetensors")
    name = next(n for n in tensors if n.endswith("fc1.weight"))
    tensors[name][:] = float("nan")
    save_file(tensors, copy / "model.safetensors", metadata={"format": "pt"})
    refused(copy, "NaN")


def test_a_model_larger_than_free_memory_is_refused_from_its_header(marian):
    facts = inspect_folder(marian)
    assert facts.parameters > 0 and facts.float32_bytes == 4 * facts.parameters
    with pytest.raises(CheckpointError, match="more than this machine has free"):
        check_memory(marian, facts.float32_bytes, available=facts.float32_bytes)
    check_memory(marian, facts.float32_bytes, available=10 * facts.float32_bytes)


def test_without_the_extra_the_user_is_told_which_to_install(marian, monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # import transformers now raises ImportError
    with pytest.raises(CheckpointError, match=r"\[hf\] extra"):
        open_hf(marian, "cpu")


def test_a_model_id_opens_from_the_local_cache_only(marian, tmp_path, monkeypatch):
    import huggingface_hub.constants as hub

    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(tmp_path / "hub"))
    message = refused("Helsinki-NLP/opus-mt-tiny", "not in the local Hugging Face cache")
    assert "hf download Helsinki-NLP/opus-mt-tiny" in message
    # the cache's layout: models--org--name/snapshots/<revision>/ and refs/main naming it
    repo = tmp_path / "hub" / "models--Helsinki-NLP--opus-mt-tiny"
    shutil.copytree(marian, repo / "snapshots" / "0123abcd")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abcd")
    family = open_model("Helsinki-NLP/opus-mt-tiny", "cpu")
    assert family.info.family == "huggingface"
    assert family.path == repo / "snapshots" / "0123abcd"


def test_offline_mode_is_forced():
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
