"""The Attribution, Head importance and Logit lens pages' words, in English and Chinese."""

from __future__ import annotations

ATTRIBUTION = {
    "en": {
        "explanation": (
            "<b>Is attention an explanation?</b> Jain &amp; Wallace (2019) found attention often disagrees "
            "with gradient-based importance; Abnar &amp; Zuidema (2020) found attention <i>rolled out</i> "
            "through the layers (½A + ½I per layer, for the residual path) tracks it better. Each row "
            "scores, "
            "for the shown output token f = log p, every source token and, right of the orange line, every "
            "token the decoder had read. <b>Gradient × input</b>: f's change along each token's vector. "
            "<b>Integrated gradients</b>: the gradient averaged on the path from <tt>&lt;pad&gt;</tt> "
            "vectors "
            "to the input; the scores add up to f(input) − f(baseline). <b>Occlusion</b>: how much f drops "
            "when that source token is replaced by <tt>&lt;unk&gt;</tt> (or removed). Rows are scaled by "
            "their "
            "largest |value|: red helps, blue works against. Below: each cross-attention head's rank "
            "correlation (Spearman) with each method; click a head to choose it."
        ),
        "ig_points": "Integrated gradients points:",
        "occlusion": "Occlusion:",
        "occlusion_unk": "replace by <unk>",
        "occlusion_remove": "remove the token",
        "baseline": "Baseline:",
        "baseline_pad": "<pad> vectors",
        "baseline_zero": "zero vectors",
        "stop": "Stop",
        "run": "Compute again",
        "no_step": "Run a source and take at least one step: the page explains the shown output token.",
        "computing": "computing the attributions of step {step} …",
        "stopped": "Stopped. Press “Compute again” to compute step {step}.",
        "summary": (
            "Step {step} writes {token} (log p = {logprob:.4f}). Attention head: cross-attention "
            "L{layer} H{head}. {ig} {occlusion}"
        ),
        "ig": "Integrated gradients: {points} points, sum off f(x) − f(x′) = {difference:.3f} by {gap:.2%}.",
        "ig_none": "",
        "occlusion_said": "Occlusion replaced each source token by <unk>.",
        "occlusion_removed": "Occlusion removed each source token (the tokenizer has no <unk>, or you "
        "chose it).",
        "no_attention": "This model has no attention: only the gradient and occlusion rows have values.",
        "attention_head": "attention L{layer} H{head}",
        "attention_layer": "attention, mean of layer {layer}",
        "rollout": "rollout",
        "gradient_x_input": "gradient × input",
        "integrated_gradients": "integrated gradients",
        "occlusion_method": "occlusion",
        "agreement": "agreement with {method}",
        "heads_axis": "head",
        "layers_axis": "layer",
        "tokens_title": "source tokens | tokens the decoder read",
        "hover": "{method} · {token} ({where} {index}): {value}",
        "hover_head": "L{layer} H{head} · Spearman ρ with {method}: {value}",
        "source": "source",
        "read": "read",
        "what_if": "WHAT-IF active: the attributions explain the model as shown, with its what-ifs",
    },
    "zh": {
        "explanation": (
            "<b>注意力是解释吗？</b>Jain 与 Wallace（2019）发现注意力常与基于梯度的重要性不一致；Abnar 与 "
            "Zuidema"
            "（2020）发现把注意力逐层<i>展开（rollout）</i>（每层取 ½A + ½I，对应残差路径）更贴近重要性。"
            "每一行为当前"
            "输出词元 f = log p 给每个输入词元、以及橙线右侧解码器读过的每个词元打分。<b>梯度 × 输入</b>："
            "f 沿各词元"
            "自身向量方向的变化。<b>积分梯度</b>：从 <tt>&lt;pad&gt;</tt> 向量到输入的路径上平均的梯度，各"
            "分数之和等于 "
            "f(输入) − f(基线)。<b>遮挡</b>：把该输入词元换成 <tt>&lt;unk&gt;</tt>（或删去）后 f 下降多少"
            "。每行按其"
            "最大 |值| 缩放：红色表示促成，蓝色表示起反作用。下方：每个交叉注意力头与各方法的秩相关（Spear"
            "man）；"
            "点击一个头即可选中。"
        ),
        "ig_points": "积分梯度点数：",
        "occlusion": "遮挡：",
        "occlusion_unk": "换成 <unk>",
        "occlusion_remove": "删去该词元",
        "baseline": "基线：",
        "baseline_pad": "<pad> 向量",
        "baseline_zero": "零向量",
        "stop": "停止",
        "run": "重新计算",
        "no_step": "请先运行一个输入并至少前进一步：本页解释当前显示的输出词元。",
        "computing": "正在计算第 {step} 步的归因……",
        "stopped": "已停止。按“重新计算”计算第 {step} 步。",
        "summary": "第 {step} 步写出 {token}（log p = {logprob:.4f}）。注意力头：交叉注意力第 {layer} 层第"
        " {head} 个头。{ig}{occlusion}",
        "ig": "积分梯度：{points} 个点，总和与 f(x) − f(x′) = {difference:.3f} 相差 {gap:.2%}。",
        "ig_none": "",
        "occlusion_said": "遮挡把每个输入词元换成了 <unk>。",
        "occlusion_removed": "遮挡删去了每个输入词元（分词器没有 <unk>，或是你选择了删除）。",
        "no_attention": "这个模型没有注意力：只有梯度和遮挡两类行有数值。",
        "attention_head": "注意力 第 {layer} 层第 {head} 头",
        "attention_layer": "注意力 第 {layer} 层平均",
        "rollout": "rollout",
        "gradient_x_input": "梯度 × 输入",
        "integrated_gradients": "积分梯度",
        "occlusion_method": "遮挡",
        "agreement": "与{method}的一致性",
        "heads_axis": "头",
        "layers_axis": "层",
        "tokens_title": "输入词元 | 解码器读过的词元",
        "hover": "{method} · {token}（{where}第 {index} 个）：{value}",
        "hover_head": "第 {layer} 层第 {head} 头 · 与{method}的 Spearman ρ：{value}",
        "source": "输入",
        "read": "已读",
        "what_if": "假设实验生效中：归因解释的是当前显示的、带假设实验的模型",
    },
}

HEADS = {
    "en": {
        "explanation": (
            "<b>Which heads matter?</b> Michel et al. (2019) zeroed attention heads one at a time and foun"
            "d "
            "that many can go with little loss, while encoder-decoder (cross) attention depends on its hea"
            "ds "
            "more than self-attention does. Each map below is one kind of attention, layers × heads: how "
            "much log-likelihood of the reference (nats per sequence) the model loses when that head alone "
            "is zeroed, and the exact match left. <b>Click a head</b> to zero it in the live model (again "
            "to "
            "restore it); the slider zeroes the <i>k</i> least important heads together, and the curve sho"
            "ws "
            "the exact match as heads are removed."
        ),
        "sample": "Measure on:",
        "sample_tasks": "fresh task examples",
        "sample_source": "this source",
        "sample_history": "the sources run on this model",
        "n": "Examples:",
        "measure": "Measure",
        "stop": "Stop",
        "restore": "Restore all heads",
        "prune": "Zero the k least important heads:",
        "measuring": "measuring each head on {n} sources …",
        "stopped": "Stopped. Press “Measure” to measure again.",
        "no_source": "Run a source first: its output is the reference.",
        "no_history": "Run some sources first: for a model without a known task, importance is measured on "
        "the sources you have run, with the model's own outputs as references.",
        "summary": (
            "Sample: {n}; references: {references}. As trained: exact match {exact:.0%}, "
            "log-likelihood {ll:.3f} nats per sequence. Most important: {most}."
        ),
        "references_task": "the task's answers",
        "references_model": "the model's own outputs (exact match: the output did not change)",
        "map_title": "{kind}: log-likelihood drop",
        "curve_title": "exact match with the k least important heads zeroed",
        "curve_x": "heads zeroed (k)",
        "curve_y": "exact match (%)",
        "k_now": "k = {k}: exact match {exact:.0%} on the sample",
        "zeroed_now": "Zeroed in the live model: {heads}",
        "none_zeroed": "No head is zeroed: the model runs as trained.",
        "hover": "{kind} L{layer} H{head}: log-likelihood drop {drop:.3f} nats, exact match {exact:.0%} "
        "with it zeroed",
        "banner": "WHAT-IF: {n} head(s) zeroed in the live model",
    },
    "zh": {
        "explanation": (
            "<b>哪些头重要？</b>Michel 等（2019）逐个把注意力头置零，发现许多头去掉后几乎没有损失，而编码"
            "器-解码器"
            "（交叉）注意力比自注意力更依赖它的头。下面每张图是一种注意力，层 × 头：单独把该头置零时，模型"
            "对参考答案的"
            "对数似然损失多少（每个序列的奈特数），以及剩下的完全匹配率。<b>点击一个头</b>即在实时模型中把"
            "它置零"
            "（再点一次恢复）；滑块把最不重要的 <i>k</i> 个头一起置零，曲线显示随着去掉的头增多完全匹配率"
            "的变化。"
        ),
        "sample": "测量于：",
        "sample_tasks": "新的任务样例",
        "sample_source": "当前输入",
        "sample_history": "在此模型上运行过的输入",
        "n": "样例数：",
        "measure": "测量",
        "stop": "停止",
        "restore": "恢复所有头",
        "prune": "把最不重要的 k 个头置零：",
        "measuring": "正在在 {n} 个输入上逐个测量每个头……",
        "stopped": "已停止。按“测量”重新测量。",
        "no_source": "请先运行一个输入：它的输出就是参考答案。",
        "no_history": "请先运行一些输入：对没有已知任务的模型，重要性在你运行过的输入上测量，以模型自己的"
        "输出为参考。",
        "summary": "样本：{n} 个输入；参考答案：{references}。按训练结果：完全匹配率 {exact:.0%}，"
        "对数似然 {ll:.3f} 奈特/序列。最重要的：{most}。",
        "references_task": "任务的答案",
        "references_model": "模型自己的输出（完全匹配：输出没有改变）",
        "map_title": "{kind}：对数似然下降",
        "curve_title": "把最不重要的 k 个头置零后的完全匹配率",
        "curve_x": "置零的头数（k）",
        "curve_y": "完全匹配率（%）",
        "k_now": "k = {k}：样本上的完全匹配率 {exact:.0%}",
        "zeroed_now": "实时模型中已置零：{heads}",
        "none_zeroed": "没有头被置零：模型按训练结果运行。",
        "hover": "{kind} 第 {layer} 层第 {head} 头：对数似然下降 {drop:.3f} 奈特，置零后完全匹配率 "
        "{exact:.0%}",
        "banner": "假设实验：实时模型中有 {n} 个头被置零",
    },
}

LOGIT_LENS = {
    "en": {
        "explanation": (
            "<b>Logit lens.</b> The decoder builds its answer layer by layer. Reading each decoder layer's "
            "output at the shown step through the model's own final norm and output layer gives the "
            "next-token distribution the model would have if it stopped there (nostalgebraist 2020). Each "
            "row is a layer, the most likely tokens first; the token the model wrote is in orange, and the "
            "last columns give its probability and rank. The last layer is the model's own distribution."
        ),
        "no_step": "Run a source and take at least one step: the lens reads the shown step.",
        "top": "#{n}",
        "written_p": "p(written)",
        "written_rank": "rank",
        "layer": "layer {n}",
        "summary": "Step {step} writes {token}. {appears}",
        "appears": "It is the most likely token from layer {layer} on.",
        "never": "It becomes the most likely token only at the output.",
        "what_if": "The lens reads the model as trained: the what-ifs shown elsewhere are not applied here.",
    },
    "zh": {
        "explanation": (
            "<b>Logit lens（逻辑透镜）。</b>解码器逐层构建它的答案。把当前步每个解码器层的输出，经过模型自"
            "己的最终归一化"
            "和输出层读出，就得到模型若停在那一层时的下一个词元分布（nostalgebraist 2020）。每一行是一层，"
            "最可能的词元"
            "在前；模型实际写出的词元显示为橙色，最后两列是它的概率和名次。最后一层就是模型自己的分布。"
        ),
        "no_step": "请先运行一个输入并至少前进一步：透镜读取当前显示的那一步。",
        "top": "第 {n}",
        "written_p": "p(写出的)",
        "written_rank": "名次",
        "layer": "第 {n} 层",
        "summary": "第 {step} 步写出 {token}。{appears}",
        "appears": "从第 {layer} 层起它就是最可能的词元。",
        "never": "直到输出时它才成为最可能的词元。",
        "what_if": "透镜读取的是按训练结果的模型：其他地方显示的假设实验在这里不生效。",
    },
}
