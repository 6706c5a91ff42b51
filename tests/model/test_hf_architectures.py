"""One entry per Hugging Face architecture (model/hf/architectures.py): every entry is complete,
each architecture the tests build opens with the facts of its entry, and no other module of
model/hf/ names an architecture or branches on a ``model_type``."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import fields, replace
from pathlib import Path
from typing import get_args

import pytest

import model.hf.architectures as table
from model.hf.architectures import ARCHITECTURES, SUPPORTED, Architecture, ModuleNames, SinusoidLayout
from model.hf.description import MAX_SOURCE
from model.interface import NormKind, PositionalScheme

HF_PACKAGE = Path(table.__file__).parent


def architecture_words() -> set[str]:
    """Every way the table names an architecture, lower-cased: model types and display names."""
    words = set()
    for entry in ARCHITECTURES.values():
        words.add(entry.model_type.lower())
        words |= {part.lower() for part in entry.display_name.split("/")}
    return words


NAMING = re.compile(
    "|".join(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])" for word in sorted(architecture_words()))
)


def docstrings(tree: ast.AST) -> set[int]:
    """id() of every string that is a statement of its own (docstrings, and strings used as comments)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def is_model_type(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.endswith("model_type")


def names_of(node: ast.AST) -> list[str]:
    """The identifiers a node introduces or reads."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.keyword) and node.arg:
        return [node.arg]
    if isinstance(node, ast.alias):
        return [node.name, node.asname or ""]
    return []


def architecture_knowledge(source: str) -> list[str]:
    """Where ``source`` names an architecture (in code, not in its docstrings or comments) or
    compares a ``model_type`` with anything but the table: (line, what) as text."""
    tree = ast.parse(source)
    skipped = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        is_code_string = (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped
        )
        if is_code_string and NAMING.search(node.value.lower()):
            found.append(f"{line}: string {node.value!r}")
        for name in names_of(node):
            if NAMING.search(name.lower()):
                found.append(f"{line}: name {name}")
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            others = [operand for operand in operands if not is_model_type(operand)]
            if len(others) < len(operands) and not all(
                isinstance(other, ast.Name) and other.id == "ARCHITECTURES" for other in others
            ):
                found.append(f"{line}: compares {ast.unparse(node)}")
        if isinstance(node, ast.Match) and is_model_type(node.subject):
            found.append(f"{line}: matches {ast.unparse(node.subject)}")
    return found


def test_the_scan_finds_the_branches_the_table_replaced():
    """What model/hf/ read like before the table: each kind of branch is caught."""
    old = '''
T5_TYPES = ("t5", "mt5")

def positional_layout(self):
    """Marian and M2M100 store all sines, then all cosines."""
    if self.model_type in T5_TYPES:
        return None
    if model_type == "m2m_100":
        return "halves"
    return "halves" if self.model_type in ("marian",) else "interleaved"
'''
    found = "\n".join(architecture_knowledge(old))
    assert "name T5_TYPES" in found and "string 't5'" in found and "string 'marian'" in found
    assert "compares self.model_type in T5_TYPES" in found and "compares model_type == 'm2m_100'" in found
    assert "Marian and" not in found  # the docstring may name them
    assert architecture_knowledge((HF_PACKAGE / "architectures.py").read_text(encoding="utf-8"))


def test_only_the_table_names_an_architecture():
    modules = sorted(path for path in HF_PACKAGE.rglob("*.py") if path.name != "architectures.py")
    assert len(modules) >= 8
    found = {
        str(path.relative_to(HF_PACKAGE)): knowledge
        for path in modules
        if (knowledge := architecture_knowledge(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def strategies(record: type) -> list[str]:
    """The fields of ``record`` that hold a function (their annotations are strings here)."""
    return [field.name for field in fields(record) if str(field.type).startswith("Callable")]


@pytest.mark.parametrize("model_type", list(ARCHITECTURES))
def test_every_entry_is_complete(model_type):
    entry = ARCHITECTURES[model_type]
    assert entry.model_type == model_type and entry.display_name in SUPPORTED
    for field in fields(Architecture):
        if field.name != "relative_bias":  # the one fact that is "none" for most
            assert getattr(entry, field.name) is not None, field.name
    assert (entry.relative_bias is not None) == (entry.positional == "relative_bias")
    assert entry.positional in get_args(PositionalScheme) and entry.positional != "none"
    assert entry.norm in get_args(NormKind) and entry.norm != "none"
    assert entry.norm_placement in ("pre", "post")
    assert entry.sinusoid_layout in get_args(SinusoidLayout)
    assert entry.tokenizer_files and all(Path(name).name == name for name in entry.tokenizer_files)
    assert isinstance(entry.scaled, bool)
    assert len(strategies(Architecture)) >= 8
    for name in strategies(Architecture):
        if name != "relative_bias" or entry.relative_bias is not None:
            assert callable(getattr(entry, name)), name
    modules = entry.modules
    assert isinstance(modules, ModuleNames)
    for field in fields(ModuleNames):
        value = getattr(modules, field.name)
        assert callable(value) if field.name in strategies(ModuleNames) else isinstance(value, str) and value


def test_the_table_names_each_architecture_once():
    names = [entry.display_name for entry in ARCHITECTURES.values()]
    assert len(set(names)) == len(names)
    assert ", ".join(names) == SUPPORTED


def test_each_architecture_the_tests_build_opens_with_the_facts_of_its_entry(
    hf_folders, hf_families, whisper_folder
):
    from model.hf.loading import open_hf

    built = []
    folders = {**hf_folders, "whisper": whisper_folder}
    families = {**hf_families, "whisper": open_hf(whisper_folder, "cpu")}
    for kind, family in families.items():
        folder = folders[kind]
        entry = ARCHITECTURES[json.loads((folder / "config.json").read_text())["model_type"]]
        built.append(entry)
        config, info = family.model.config, family.info
        capabilities = info.capabilities
        assert family.architecture is entry, kind
        assert info.display_name == f"{entry.display_name}: {folder.name}"
        assert info.config["model_type"] == entry.model_type
        assert (capabilities.positional, capabilities.norm, capabilities.norm_placement) == (
            entry.positional,
            entry.norm,
            entry.norm_placement,
        ), kind
        assert capabilities.scaling == entry.scaled and (family.scale == 1.0) == (not entry.scaled), kind
        assert family.positional_layout() == entry.sinusoid_layout
        assert info.max_source_len == min(entry.source_positions(config) or 512, MAX_SOURCE)
        assert any((folder / name).is_file() for name in entry.tokenizer_files), kind
        # one of the entry's tokenizers has every file it needs there
        assert any(all((folder / name).is_file() for name in files) for files in entry.tokenizers), kind
        # the shape read from the config is the model's, and the module names find every
        # attention module and every sublayer's norm in it
        shape = entry.shape(config)
        layers = entry.modules.layers
        stacks = (family.model.get_encoder(), family.model.get_decoder())
        assert [len(getattr(stack, layers)) for stack in stacks] == [
            shape.encoder_layers,
            shape.decoder_layers,
        ]
        assert [(k.layers, k.heads) for k in info.kinds] == [
            (shape.encoder_layers, shape.encoder_heads),
            (shape.decoder_layers, shape.decoder_heads),
            (shape.decoder_layers, shape.decoder_heads),
        ], kind
        assert len(family.names) == shape.encoder_layers + 2 * shape.decoder_layers, kind
        assert capabilities.norm_stats, kind
        assert len(family.decoder_layers()) == shape.decoder_layers
        # positions: a table of vectors, or a relative bias
        assert (family.positional_table() is None) == (entry.relative_bias is not None), kind
        if entry.relative_bias is None:
            with pytest.raises(NotImplementedError):
                family.relative_bias_settings()
        else:
            assert family.relative_bias_settings() == (
                config.relative_attention_num_buckets,
                config.relative_attention_max_distance,
            )
        # the ids the decoder starts from, stops at and pads with, and the generation rules
        special = entry.special_tokens(config, family.model.generation_config)
        tokenizer = family.tokenizer
        assert (tokenizer.bos_id, tokenizer.eos_id, tokenizer.pad_id) == (
            special.start,
            special.end,
            special.pad,
        )
        expected_rules = entry.generation_rules(
            family.model.generation_config, entry.target_positions(config)
        )
        assert family.rules == expected_rules, kind
    # an entry no test builds is a built one under another name (mT5 is T5's record)
    for entry in ARCHITECTURES.values():
        if entry not in built:
            renamed = [
                replace(b, model_type=entry.model_type, display_name=entry.display_name) for b in built
            ]
            assert entry in renamed, entry.model_type
