"""The positional-encoding panel's words, in English and Chinese (kept out of the panel's code)."""

from __future__ import annotations

TEXT = {
    "en": {
        "pair": "pair i:",
        "what_if": "What-if: remove positional encoding",
        "what_if_unsupported": "this model cannot be run without its positional encoding",
        "swap": "swap source positions",
        "pe_title": "PE: position (row) × dimension (column)",
        "bits_title": "position in binary (bits)",
        "gram_title": "PE·PEᵀ: position × position",
        "waves_title": "PE[:, 2i] (sin, solid) and PE[:, 2i+1] (cos, dashed) over position",
        "waves_learned": "PE[:, 2i] (solid) and PE[:, 2i+1] (dashed) over position",
        "waves_halves": "PE[:, i] (sin, solid) and PE[:, i + d/2] (cos, dashed) over position",
        "position": "position",
        "value": "value",
        "dims": "dims {a}, {b}",
        "computing": "Asking the model for its positional encoding…",
        "sinusoidal": "This model adds the fixed sinusoidal encoding (its <code>sinusoid</code> buffer).",
        "sinusoidal_halves": "This model adds a fixed sinusoidal table, read from its weights, stored as "
        "all sines then all cosines: pair i is dims i and i + d/2, and each wavelength is measured "
        "from the table.",
        "learned": "This model <b>learned</b> its positional embedding: the table, the waves and PE·PEᵀ "
        "show what training made of it; no wavelength applies.",
        "none": "This model adds <b>no</b> positional encoding: the table is all zeros, and its encoder "
        "cannot tell one order of the source from another.",
        "marks": "Red frame: the source's {n} positions (0–{last}); orange row: position {t}, read by "
        "the decoder at the shown step.",
        "marks_no_step": "Red frame: the source's {n} positions (0–{last}).",
        "diagonal": "PE·PEᵀ: every diagonal (fixed offset q − p) is constant: measured max deviation "
        "along a diagonal {dev:.2g} (values span {low:.3g} … {high:.3g}).",
        "diagonal_not": "PE·PEᵀ is <b>not</b> constant along its diagonals (max deviation {dev:.3g}): "
        "a learned encoding does not promise that similarity depends only on the offset.",
        "diagonal_none": "PE·PEᵀ is all zeros.",
        "banner": "What-if active: the source is encoded again WITHOUT positional encoding, beside the "
        "model as trained (the generation above is unchanged).",
        "with_pe": "With PE (as trained): max |A′ − P A Pᵀ| = {dev:.3g}",
        "without_pe": "Without PE: max |A′ − P A Pᵀ| = {dev:.2g}",
        "order_matters": "order matters",
        "order_blind": "order-blind: only permuted",
        "original": "“{text}”",
        "swapped": "swapped {a}↔{b}",
        "swap_head": "encoder self-attention · layer {layer} · {who}",
        "head": "head {h}",
        "mean": "mean of heads",
        "same_chars": "the two swapped characters are the same: choose two that differ",
        "waiting": "running the encoder on both sources…",
        "swap_info": "P swaps source positions {a} and {b} (‘{ca}’ ↔ ‘{cb}’). Without positional encoding a "
        "token's vector is its embedding alone, and attention, Add &amp; Norm and the feed-forward network "
        "treat every position alike, so the encoder cannot see order: the swapped source's attention is the "
        "original's with rows and columns {a} and {b} exchanged (dashed), A′ = P A Pᵀ. Over all layers "
        "and heads the max deviation is {on:.3g} with PE and {off:.2g} without.",
    },
    "zh": {
        "pair": "维度对 i：",
        "what_if": "假设：去掉位置编码",
        "what_if_unsupported": "此模型无法在去掉位置编码的情况下运行",
        "swap": "交换源序列位置",
        "pe_title": "PE：位置（行）× 维度（列）",
        "bits_title": "位置的二进制（各位）",
        "gram_title": "PE·PEᵀ：位置 × 位置",
        "waves_title": "PE[:, 2i]（sin，实线）与 PE[:, 2i+1]（cos，虚线）随位置的变化",
        "waves_learned": "PE[:, 2i]（实线）与 PE[:, 2i+1]（虚线）随位置的变化",
        "waves_halves": "PE[:, i]（sin，实线）与 PE[:, i + d/2]（cos，虚线）随位置的变化",
        "position": "位置",
        "value": "值",
        "dims": "第 {a}、{b} 维",
        "computing": "正在向模型获取它的位置编码…",
        "sinusoidal": "该模型加的是固定的正弦位置编码（即它的 <code>sinusoid</code> 缓冲区）。",
        "sinusoidal_halves": "该模型加的是固定的正弦位置表（从其权重读出），先存全部正弦、再存全部余弦："
        "第 i 对是维度 i 与 i + d/2，每个波长都从表中实测。",
        "learned": "该模型的位置嵌入是<b>学习得到的</b>：表格、波形和 PE·PEᵀ 显示训练的结果；"
        "这里没有波长可言。",
        "none": "该模型<b>没有</b>位置编码：表格全为零，编码器无法区分源序列的不同顺序。",
        "marks": "红框：源序列的 {n} 个位置（0–{last}）；橙色行：当前步解码器读取的位置 {t}。",
        "marks_no_step": "红框：源序列的 {n} 个位置（0–{last}）。",
        "diagonal": "PE·PEᵀ：每条对角线（固定偏移 q − p）上的值都相同：实测沿对角线的最大偏差 "
        "{dev:.2g}（取值范围 {low:.3g} … {high:.3g}）。",
        "diagonal_not": "PE·PEᵀ 沿对角线<b>并不</b>恒定（最大偏差 {dev:.3g}）：学习得到的编码并不保证"
        "相似度只取决于偏移。",
        "diagonal_none": "PE·PEᵀ 全为零。",
        "banner": "假设生效中：源序列在<b>去掉</b>位置编码后重新编码，与训练时的模型并排对比"
        "（上方的生成过程不受影响）。",
        "with_pe": "有位置编码（训练时）：max |A′ − P A Pᵀ| = {dev:.3g}",
        "without_pe": "无位置编码：max |A′ − P A Pᵀ| = {dev:.2g}",
        "order_matters": "顺序有影响",
        "order_blind": "对顺序无感：只是置换",
        "original": "“{text}”",
        "swapped": "交换 {a}↔{b}",
        "swap_head": "编码器自注意力 · 第 {layer} 层 · {who}",
        "head": "第 {h} 个头",
        "mean": "各头平均",
        "same_chars": "交换的两个字符相同：请选两个不同的字符",
        "waiting": "正在对两个源序列运行编码器…",
        "swap_info": "P 交换源序列的位置 {a} 和 {b}（‘{ca}’ ↔ ‘{cb}’）。"
        "没有位置编码时，词元的向量只是它的嵌入；注意力、Add &amp; Norm 和前馈网络对每个位置一视同仁，"
        "所以编码器看不到顺序：交换后源序列的注意力就是原注意力把第 {a}、{b} 行和列互换（虚线），"
        "A′ = P A Pᵀ。在所有层和头上，最大偏差有位置编码时为 {on:.3g}，无位置编码时为 {off:.2g}。",
    },
}
