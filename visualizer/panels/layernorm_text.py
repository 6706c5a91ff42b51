"""The LayerNorm panel's words, in English and Chinese (kept out of the panel's code)."""

from __future__ import annotations

SUBLAYER_NAMES = {
    "en": {
        "self-attention": "self-attention",
        "masked self-attention": "masked self-attention",
        "cross-attention": "cross-attention",
        "feed-forward": "feed-forward",
    },
    "zh": {
        "self-attention": "自注意力",
        "masked self-attention": "掩码自注意力",
        "cross-attention": "交叉注意力",
        "feed-forward": "前馈网络",
    },
}

TEXT = {
    "en": {
        "stack": "Layers of:",
        "encoder": "encoder",
        "decoder": "decoder",
        "layer": "layer {n}",
        "mean": "mean",
        "std": "std",
        "input": "● input x + Sublayer(x)",
        "output": "■ output LayerNorm(…)",
        "reference": "- - β average (mean) · γ size (std)",
        "header_enc": "Encoder layer {layer}: one point per source token.",
        "header_dec": "Decoder layer {layer}: one point per decoder step (labelled by the token it read).",
        "page_layer": "Before and after each Add & Norm",
        "page_batch": "LayerNorm vs BatchNorm on a padded batch",
        "no_steps": "Step forward to see the decoder's statistics, one step at a time.",
        "add_norm": "Add & Norm {i} · {name}",
        "norm_pre": "Norm {i} · before {name}",
        "feature": "feature",
        "bn_mean": "BatchNorm mean, per feature",
        "bn_std": "BatchNorm std, per feature",
        "ln_mean": "LayerNorm mean, per token of row {row}",
        "ln_std": "LayerNorm std, per token of row {row}",
        "with_pads": "— pads included",
        "real_only": "— real tokens only",
        "batched": "● batched with padding",
        "alone": "— alone",
        "pad_region": "▒ <pad>",
        "computing": "Running the padded batch through the model…",
        "batch": (
            "<b>A padded batch</b> at the first Add &amp; Norm (encoder layer 1): row 1 “{a}” "
            "({na} tokens), row 2 “{b}” ({nb} tokens + {pads} &lt;pad&gt;). "
            "<span style='color:{red}'><b>BatchNorm</b></span>, per feature over both rows and all "
            "positions: counting the pads moves a feature's mean by up to <b>{dmean:.3g}</b> and its std "
            "by up to <b>{dstd:.3g}</b>. <span style='color:{blue}'><b>LayerNorm</b></span>, per token "
            "over its {d} features: the real tokens' mean and std differ by at most <b>{dln:.1e}</b> "
            "batched vs alone — padding changes nothing."
        ),
        "what_if": "What-if active: these statistics come from the model with {what}.",
    },
    "zh": {
        "stack": "显示：",
        "encoder": "编码器",
        "decoder": "解码器",
        "layer": "第 {n} 层",
        "mean": "均值",
        "std": "标准差",
        "input": "● 输入 x + Sublayer(x)",
        "output": "■ 输出 LayerNorm(…)",
        "reference": "- - β 平均值（均值）· γ 大小（标准差）",
        "header_enc": "编码器第 {layer} 层：每个点是一个源词元。",
        "header_dec": "解码器第 {layer} 层：每个点是一个解码步（标注为该步读入的词元）。",
        "page_layer": "每个 Add & Norm 的前与后",
        "page_batch": "填充批次上的 LayerNorm 与 BatchNorm",
        "no_steps": "向前走一步，即可逐步看到解码器的统计量。",
        "add_norm": "Add & Norm {i} · {name}",
        "norm_pre": "Norm {i} · {name}之前",
        "feature": "特征",
        "bn_mean": "BatchNorm 均值（每个特征）",
        "bn_std": "BatchNorm 标准差（每个特征）",
        "ln_mean": "LayerNorm 均值（第 {row} 行的每个词元）",
        "ln_std": "LayerNorm 标准差（第 {row} 行的每个词元）",
        "with_pads": "— 计入填充",
        "real_only": "— 仅真实词元",
        "batched": "● 与填充同批",
        "alone": "— 单独运行",
        "pad_region": "▒ <pad>",
        "computing": "正在用模型运行填充后的批次…",
        "batch": (
            "<b>填充后的批次</b>，位于第一个 Add &amp; Norm（编码器第 1 层）：第 1 行“{a}”（{na} 个词元），"
            "第 2 行“{b}”（{nb} 个词元 + {pads} 个 &lt;pad&gt;）。"
            "<span style='color:{red}'><b>BatchNorm</b></span> 对每个特征在两行、所有位置上统计：计入填充后，"
            "某个特征的均值最多偏移 <b>{dmean:.3g}</b>，标准差最多偏移 <b>{dstd:.3g}</b>。"
            "<span style='color:{blue}'><b>LayerNorm</b></span> 对每个词元在其 {d} 个特征上统计："
            "真实词元的均值和标准差在同批与单独运行时最多相差 <b>{dln:.1e}</b>——填充毫无影响。"
        ),
        "what_if": "假设实验进行中：这些统计量来自{what}的模型。",
    },
}

# what this model's norms are, under the legend: (norm, placement) → words per language
MODEL_NORMS = {
    "en": {
        ("layernorm", "post"): (
            "This model: LayerNorm after each sublayer (post-LN, as in the paper): "
            "LayerNorm(x + Sublayer(x))."
        ),
        ("layernorm", "pre"): (
            "This model: LayerNorm in front of each sublayer (pre-LN): x + Sublayer(LayerNorm(x)). "
            "The residual stream x itself is not normalised inside the stack: its statistics (orange) "
            "may grow from layer to layer."
        ),
        ("rmsnorm", "pre"): (
            "This model: RMSNorm in front of each sublayer (pre-norm): x + Sublayer(RMSNorm(x)). "
            "RMSNorm divides each token by the root mean square of its features and multiplies by γ: "
            "no mean is subtracted and there is no β, so the output's mean is not pinned to 0 "
            "(no dashed references here)."
        ),
        ("rmsnorm", "post"): (
            "This model: RMSNorm after each sublayer: RMSNorm(x + Sublayer(x)); no mean is subtracted "
            "and there is no β."
        ),
    },
    "zh": {
        (
            "layernorm",
            "post",
        ): "本模型：每个子层之后做 LayerNorm（后归一化，与论文相同）：LayerNorm(x + Sublayer(x))。",
        ("layernorm", "pre"): (
            "本模型：每个子层之前做 LayerNorm（前归一化）：x + Sublayer(LayerNorm(x))。"
            "残差流 x 本身在层内不被归一化：它的统计量（橙色）可能逐层增大。"
        ),
        ("rmsnorm", "pre"): (
            "本模型：每个子层之前做 RMSNorm（前归一化）：x + Sublayer(RMSNorm(x))。"
            "RMSNorm 把每个词元除以其特征的均方根再乘以 γ：不减去均值，也没有 β，"
            "因此输出的均值并不固定为 0（此处不画虚线参考）。"
        ),
        ("rmsnorm", "post"): (
            "本模型：每个子层之后做 RMSNorm：RMSNorm(x + Sublayer(x))；不减去均值，也没有 β。"
        ),
    },
}

# the words that change for a pre-norm model (its norms read the residual stream itself)
PRE_NORM_TEXT = {
    "en": {"input": "● input x (the residual stream)", "page_layer": "Before and after each norm"},
    "zh": {"input": "● 输入 x（残差流）", "page_layer": "每个归一化的前与后"},
}


def norm_text(language: str, norm: str, placement: str) -> dict[str, str]:
    """The panel's words for a model whose norms are ``norm`` (layernorm or rmsnorm) placed
    ``placement`` (post or pre): LayerNorm's name becomes RMSNorm's where the model has it."""
    text = dict(TEXT[language])
    if placement == "pre":
        text |= PRE_NORM_TEXT[language]
    if norm == "rmsnorm":
        text = {key: value.replace("LayerNorm", "RMSNorm") for key, value in text.items()}
    text["model_norms"] = MODEL_NORMS[language][(norm, placement)]
    return text


WHAT_IF_NAMES = {
    "en": {
        "no_positional": "no positional encoding",
        "no_scaling": "no ÷√d_k",
        "no_causal_mask": "no causal mask",
        "zeroed_heads": "zeroed heads",
    },
    "zh": {
        "no_positional": "去掉位置编码",
        "no_scaling": "去掉 ÷√d_k",
        "no_causal_mask": "去掉因果掩码",
        "zeroed_heads": "屏蔽部分注意力头",
    },
}
