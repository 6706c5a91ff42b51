"""What the Hugging Face tests compare the app against: the same folders opened by the library
alone, and its norms as the library's code names them."""

from __future__ import annotations

from tests.hf_factories import transformers  # skips without the [hf] extra

SOURCES = ("the cat sat on the mat", "où est la gare ?", "a")  # a sentence, accents and marks, one letter

LIBRARY_MODELS: dict = {}


def library_model(folder):
    """The same folder opened by the library alone, with its own eager attention (once per
    folder: the tests only read it, except the one that hooks it, which opens its own)."""
    if folder not in LIBRARY_MODELS:
        LIBRARY_MODELS[folder] = transformers.AutoModelForSeq2SeqLM.from_pretrained(
            folder, attn_implementation="eager"
        ).eval()
    return LIBRARY_MODELS[folder]


def library_norms(reference, kind: str):
    """Each sublayer's norm of the library's model, named as the library's code names them
    (written out here, not found by the app's own search): (encoder, decoder) lists of lists."""
    encoder, decoder = reference.get_encoder(), reference.get_decoder()
    if kind == "t5":
        return (
            [[block.layer[j].layer_norm for j in range(2)] for block in encoder.block],
            [[block.layer[j].layer_norm for j in range(3)] for block in decoder.block],
        )
    return (
        [[layer.self_attn_layer_norm, layer.final_layer_norm] for layer in encoder.layers],
        [
            [layer.self_attn_layer_norm, layer.encoder_attn_layer_norm, layer.final_layer_norm]
            for layer in decoder.layers
        ],
    )
