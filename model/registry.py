"""``open_model(path)``: ask each registered family "is this yours?" in turn, and open it.

A family registers one ``FamilyEntry``: its name, what it accepts (said to the user when
nothing recognises a path), a cheap ``recognises(path)`` that reads at most a header, and
``opens(path, device)`` that returns the loaded ``ModelFamily`` or raises ``CheckpointError``
in one line (``open_model`` puts the file's name in front where the message lacks it), and may
say what a path nobody recognises lacks to be its (``explains``: a folder "without
config.json"). The entries are imported lazily ("module:function"), so naming the families
imports no torch. Tests (and plugins) add their own with ``register_family``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

from model.core.errors import CheckpointError, about

if TYPE_CHECKING:
    from model.interface import ModelFamily


@dataclass(frozen=True)
class FamilyEntry:
    name: str  # the family's registry name, as its FamilyInfo.family says
    accepts: str  # what it opens, for the message when nothing recognises a path (keep it short:
    # the message holds every family's, and a CheckpointError is cut past MAX_MESSAGE)
    recognises: str | Callable[[Path], bool]  # "module:function" or the function
    opens: str | Callable[[Path, str], ModelFamily]
    # for a path no family recognises: what it lacks to be this family's, as words that follow
    # "X is a directory" (e.g. "without config.json"); None where it is not nearly one
    explains: str | Callable[[Path], str | None] | None = None

    def call(self, which: str, *args):
        target = getattr(self, which)
        if isinstance(target, str):
            module, name = target.split(":")
            target = getattr(import_module(module), name)
        return target(*args)


FAMILIES: list[FamilyEntry] = [
    # folders (and model ids of the local cache) first: the Transformer's entry takes every file
    FamilyEntry(
        "huggingface",
        "a Hugging Face model folder (config.json, safetensors weights, tokenizer files) or a model id "
        "in the local Hugging Face cache",
        "model.hf.folder:recognises",
        "model.hf.loading:open_hf",
        "model.hf.folder:why_not",
    ),
    # before the Transformer's, which takes every other file: this one reads only a header
    FamilyEntry(
        "rnn",
        "an attnviz RNN checkpoint (.safetensors)",
        "model.rnn.checkpoint:recognises",
        "model.rnn.checkpoint:load_rnn_checkpoint",
    ),
    FamilyEntry(
        "replay",
        "an attnviz replay (.replay.safetensors): its last snapshot",
        "model.core.header:is_replay",
        "model.tasks.replay:open_last_snapshot",
    ),
    FamilyEntry(
        "transformer",
        "an attnviz Transformer checkpoint (.safetensors, or a weights-only .pt/.pth)",
        "model.transformer.checkpoint:recognises",
        "model.transformer.checkpoint:load_checkpoint",
    ),
]


def import_families() -> None:
    """Import every registered family's modules now (the worker does, off the GUI thread,
    before the first model is opened)."""
    for entry in FAMILIES:
        for target in (entry.recognises, entry.opens):
            if isinstance(target, str):
                import_module(target.split(":")[0])


def register_family(entry: FamilyEntry) -> FamilyEntry:
    """Add (or replace) a family; it is asked before the built-in ones."""
    unregister_family(entry.name)
    FAMILIES.insert(0, entry)
    return entry


def unregister_family(name: str) -> None:
    FAMILIES[:] = [entry for entry in FAMILIES if entry.name != name]


def family_names() -> tuple[str, ...]:
    return tuple(entry.name for entry in FAMILIES)


def describe_path(path: Path) -> str:
    """What a path looks like, in a few words, for the refusal."""
    if not path.exists():
        return "nothing (the path does not exist)"
    if path.is_dir():
        return "a directory"
    return f"a {path.suffix} file" if path.suffix else "a file without an extension"


def open_model(path: str | Path, device: str = "auto") -> ModelFamily:
    """The model at ``path``, opened by the first family that recognises it, on ``device``.

    Refuses with ``CheckpointError`` in one line that names the file (or folder) and says
    what is wrong with it, or what it saw and what the families accept.
    """
    path = Path(path)
    for entry in FAMILIES:
        if entry.call("recognises", path):
            try:
                return entry.call("opens", path, device)
            except CheckpointError as error:
                named = about(path, error)
                if named is error:
                    raise
                raise named from error
    if not path.exists():
        raise CheckpointError(f"{path.name}: no such file or folder")
    lacks = [entry.call("explains", path) for entry in FAMILIES if entry.explains is not None]
    seen = " ".join([describe_path(path), *filter(None, lacks)])
    accepted = "; ".join(entry.accepts for entry in FAMILIES)
    raise CheckpointError(f"{shortened(path.name)} is {seen}; this app opens {accepted}")


def shortened(name: str, most: int = 40) -> str:
    """A file name of at most ``most`` characters (its middle left out), so that the message
    around it is never cut."""
    return name if len(name) <= most else f"{name[: most // 2 - 1]}…{name[-(most // 2 - 1) :]}"
