"""The Why-attention panel's words, in English and Chinese."""

from __future__ import annotations

TEXT = {
    "en": {
        "explanation": (
            "<b>Why attention?</b> An RNN encoder-decoder without attention (Cho et al. 2014) folds the "
            "whole source into <b>one fixed vector</b>, the encoder's final state, and the decoder must "
            "write every output token from it: the longer the source, the more it forgets. Attention "
            "(Bahdanau et al. 2014) lets every decoder step build <b>a fresh weighted sum</b> of all "
            "encoder states, c<sub>i</sub> = Σ<sub>j</sub> α<sub>ij</sub> h<sub>j</sub>, with "
            "α<sub>i</sub> = softmax<sub>j</sub>(e<sub>ij</sub>). Only the score e<sub>ij</sub> differs: "
            "<b>additive</b> vᵀ tanh(W s<sub>i−1</sub> + U h<sub>j</sub>) (Bahdanau), <b>dot-product</b> "
            "s<sub>i−1</sub> · h<sub>j</sub> (Luong et al. 2015), <b>scaled dot-product</b> "
            "s · h / √d, which the Transformer computes between learned projections, Q Kᵀ / √d<sub>k</sub>, "
            "in every head. The curves below are the shipped models on <tt>reverse:</tt>, measured for "
            "every input length (as Bahdanau et al.'s Figure 2 measured BLEU against sentence length)."
        ),
        "curves_title": "exact match on reverse: by input length (95 % intervals shaded)",
        "x_axis": "input length (characters)",
        "y_axis": "exact match (%)",
        "this_source": "this source: {n}",
        "no_curves": "No accuracy-by-length curves were found in {folder}. Measure one with "
        "<tt>attnviz eval --checkpoint PATH --by-length --json {folder}/NAME.json</tt>.",
        "at_length": "At input length {n}: {values}.",
        "not_measured": "The curves measure reverse: and sort: inputs of 1–48 characters; this source "
        "is {n} characters long.",
        "what_if": "What-if on the attention weights:",
        "as_trained": "as trained",
        "uniform_attention": "uniform: α = 1/S",
        "attend_only": "all on one source position",
        "no_attention": "none: the context is zero",
        "position": "position",
        "banner": "WHAT-IF: the decoder uses {what} at every step (the model's own weights are replaced)",
        "what_if_unsupported": "The what-ifs replace the attention weights of an RNN with attention; "
        "{model} has none to replace. Open one with the buttons below.",
        "open": "Open:",
        "compare_transformer": "Compare with the Transformer",
        "compare_rnn": "Compare with the RNN with attention",
        "compare_tip": "Step both models on the same source, side by side: the RNN's alignment beside "
        "the Transformer's cross-attention (the Compare page).",
        "missing": "{name} is not in this installation",
    },
    "zh": {
        "explanation": (
            "<b>为什么需要注意力？</b>没有注意力的 RNN 编码器-解码器（Cho 等，2014）把整个输入压缩成"
            "<b>一个固定向量</b>，即编码器的最终状态，解码器必须仅凭它写出每一个输出词元：输入越长，忘得越多。"
            "注意力（Bahdanau 等，2014）让解码器每一步都重新计算所有编码器状态的<b>加权和</b>，"
            "c<sub>i</sub> = Σ<sub>j</sub> α<sub>ij</sub> h<sub>j</sub>，其中 "
            "α<sub>i</sub> = softmax<sub>j</sub>(e<sub>ij</sub>)。不同之处只在打分 e<sub>ij</sub>："
            "<b>加性</b> vᵀ tanh(W s<sub>i−1</sub> + U h<sub>j</sub>)（Bahdanau），<b>点积</b> "
            "s<sub>i−1</sub> · h<sub>j</sub>（Luong 等，2015），<b>缩放点积</b> s · h / √d——"
            "Transformer 的每个头都在学到的投影之间计算它：Q Kᵀ / √d<sub>k</sub>。"
            "下面的曲线是随附模型在 <tt>reverse:</tt> 上按每个输入长度测得的准确率"
            "（正如 Bahdanau 等人的图 2 按句子长度测量 BLEU）。"
        ),
        "curves_title": "reverse: 按输入长度的完全匹配率（阴影为 95% 区间）",
        "x_axis": "输入长度（字符）",
        "y_axis": "完全匹配率（%）",
        "this_source": "当前输入：{n}",
        "no_curves": "在 {folder} 中没有找到按长度的准确率曲线。可用 "
        "<tt>attnviz eval --checkpoint PATH --by-length --json {folder}/NAME.json</tt> 测量。",
        "at_length": "输入长度为 {n} 时：{values}。",
        "not_measured": "曲线测量的是 1–48 个字符的 reverse: 与 sort: 输入；当前输入长 {n} 个字符。",
        "what_if": "注意力权重的假设实验：",
        "as_trained": "按训练结果",
        "uniform_attention": "均匀：α = 1/S",
        "attend_only": "全部集中在一个输入位置",
        "no_attention": "无：上下文为零",
        "position": "位置",
        "banner": "假设实验：解码器每一步都使用{what}（模型自己的权重被替换）",
        "what_if_unsupported": "这些假设实验替换带注意力的 RNN 的注意力权重；{model} 没有可替换的权重。"
        "可用下面的按钮打开一个。",
        "open": "打开：",
        "compare_transformer": "与 Transformer 对比",
        "compare_rnn": "与带注意力的 RNN 对比",
        "compare_tip": "在同一个输入上并排逐步运行两个模型："
        "RNN 的对齐矩阵与 Transformer 的交叉注意力并列（对比页）。",
        "missing": "此安装中没有 {name}",
    },
}

# what the buttons and legends call the shipped models
MODEL_NAMES = {
    "en": {
        "none": "RNN, no attention",
        "additive": "RNN, additive attention",
        "scaled_dot": "RNN, scaled dot-product",
        "transformer": "Transformer",
    },
    "zh": {
        "none": "RNN，无注意力",
        "additive": "RNN，加性注意力",
        "scaled_dot": "RNN，缩放点积",
        "transformer": "Transformer",
    },
}
