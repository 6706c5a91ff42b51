"""How attention scores are made, as the families describe them (``ScoreFunction``): the
descriptions more than one family shares. A family with its own way of scoring (the RNN's
additive attention, T5's position bias) describes it in its own package.

The words are English; the app translates them where it shows them (the Masks page).
"""

from __future__ import annotations

from model.interface import ScoreFunction, ScoreStage

# the paper's attention: our Transformer, and the Hugging Face models that divide by √d_k
SCALED_DOT_PRODUCT = ScoreFunction(
    "scaled dot product",
    "<b>Scaled dot-product attention</b>: Attention(Q, K, V) = softmax(QKᵀ / √d_k) V. Each "
    "query row is compared with every key (QKᵀ) and divided by √d_k.",
    (
        ScoreStage("raw", "QKᵀ", "QKᵀ<br>(raw scores)"),
        ScoreStage("scaled", "÷√d_k", "÷ √d_k<br>(scaled)"),
    ),
    scale="1/√d_k",
)
