"""The Decoding panel's words, in English and Chinese."""

from __future__ import annotations

TEXT = {
    "en": {
        "no_model": "Open a model to see its next-token distribution.",
        "no_step": "No token has been chosen yet: press Step (→) to run the first decoder step.",
        "heading": "Step {step}: the decoder read <b>{input}</b> and chose <b>{token}</b>{how}",
        "forced": " (forced by you)",
        "sampled": ", p = {p:.3f}",
        "rest": "rest",
        "model": "model p",
        "filtered": "after the settings",
        "in_rest": ". It ranks {rank} of {vocab} and is drawn as its own bar, left of the rest.",
        "entropy": "Entropy of the model's distribution: <b>{nats:.3f} nats = {bits:.3f} bits</b> "
        "(as uncertain as a fair choice among {perplexity:.1f} tokens). "
        "After the settings: <b>{fnats:.3f} nats = {fbits:.3f} bits</b> ({fperplexity:.1f}); "
        "{kept} of {vocab} tokens can be drawn.",
        "greedy": "Greedy: always the most likely token; temperature, top-k and top-p are not used.",
        "beam": "Beam search, width {width}: the token comes from the best hypothesis (see the Beam "
        "panel), so it need not be this step's most likely one; the model's probabilities are used "
        "as they are.",
        "sample": "Sampling at temperature {t:g} from the whole vocabulary (seed {seed}).",
        "topk": "Top-k sampling: temperature {t:g}, keep the {k} most likely tokens, renormalise and "
        "draw (seed {seed}).",
        "topp": "Top-p (nucleus) sampling: temperature {t:g}, keep the smallest set of most likely "
        "tokens whose probability reaches {p:g}, renormalise and draw (seed {seed}).",
        "pending": " <i>The steps are being regenerated with these settings; the token shown was "
        "chosen with the previous ones.</i>",
        "hint": "Click a candidate's bar to force it at this step: a branch, later steps are dropped "
        "and Step continues from your choice.",
        "undo": "Undo forcing",
        "undo_tip": "Regenerate up to this step with the model's own choices (drops every forced token)",
        "hover": "{token}: rank {rank}, model p = {p:.4f}, after the settings {f:.4f}{cut} — click to force",
        "hover_rest": "rest: {n} less likely tokens together, model p = {p:.4f}, after the settings {f:.4f}",
        "cut": " (cut off)",
        "cut_legend": "cut off",
        "log": "log scale",
        "log_tip": "Probabilities on a logarithmic axis, down to 10⁻⁸: shows the unlikely tokens too",
        "chosen_legend": "chosen",
        "forced_legend": "forced",
        "data_legend": "data p",
        "calibration": "<span style='color:{color}'>—</span> The data's own probabilities for this "
        "task and what has been generated so far: the model's distance from them (total variation, "
        "0 = the same, 1 = disjoint) is <b>{tv:.3f}</b>.",
        "hover_data": ", data p = {d:.4f}",
    },
    "zh": {
        "no_model": "请先打开一个模型，才能看到它的下一个词元分布。",
        "no_step": "还没有选出任何词元：按“单步”（→）运行解码器的第一步。",
        "heading": "第 {step} 步：解码器读入 <b>{input}</b>，选出 <b>{token}</b>{how}",
        "forced": "（由你强制指定）",
        "sampled": "，p = {p:.3f}",
        "rest": "其余",
        "model": "模型概率",
        "filtered": "按设置处理后",
        "in_rest": "。它在 {vocab} 个词元中排第 {rank}，单独画成一根柱子，位于“其余”左边。",
        "entropy": "模型分布的熵：<b>{nats:.3f} 奈特 = {bits:.3f} 比特</b>"
        "（不确定程度相当于在 {perplexity:.1f} 个词元中均匀地选）。"
        "按设置处理后：<b>{fnats:.3f} 奈特 = {fbits:.3f} 比特</b>（{fperplexity:.1f}）；"
        "{vocab} 个词元中有 {kept} 个可能被抽到。",
        "greedy": "贪心解码：总是取概率最大的词元；温度、top-k 和 top-p 都不起作用。",
        "beam": "束搜索，束宽 {width}：词元取自得分最高的假设（见“束搜索”面板），"
        "所以不一定是这一步概率最大的词元；直接使用模型的概率。",
        "sample": "按温度 {t:g} 在整个词表上采样（随机种子 {seed}）。",
        "topk": "Top-k 采样：温度 {t:g}，只保留概率最大的 {k} 个词元，重新归一化后抽取（随机种子 {seed}）。",
        "topp": "Top-p（核）采样：温度 {t:g}，保留累计概率达到 {p:g} 的最少的高概率词元，"
        "重新归一化后抽取（随机种子 {seed}）。",
        "pending": " <i>正在用这些设置重新生成；图中所选的词元还是按之前的设置选出的。</i>",
        "hint": "点击某个候选词元的柱子，就在这一步强制选它：这是一个分支，之后的步骤会被丢弃，"
        "再按“单步”就从你的选择继续生成。",
        "undo": "撤销强制",
        "undo_tip": "按模型自己的选择重新生成到这一步（去掉所有被强制的词元）",
        "hover": "{token}：排第 {rank}，模型概率 {p:.4f}，按设置处理后 {f:.4f}{cut} —— 点击即强制选它",
        "hover_rest": "其余：{n} 个概率较小的词元合计，模型概率 {p:.4f}，按设置处理后 {f:.4f}",
        "cut": "（已被截掉）",
        "cut_legend": "被截掉",
        "log": "对数坐标",
        "log_tip": "用对数坐标画概率（低至 10⁻⁸），概率很小的词元也看得见",
        "chosen_legend": "选中",
        "forced_legend": "强制",
        "data_legend": "数据概率",
        "calibration": "<span style='color:{color}'>—</span> 对这个任务和已生成的部分，数据本身给出的概率："
        "模型与它的距离（总变差距离，0 = 相同，1 = 完全不重叠）为 <b>{tv:.3f}</b>。",
        "hover_data": "，数据概率 {d:.4f}",
    },
}
