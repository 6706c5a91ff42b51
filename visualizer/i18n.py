"""The window's own words in Chinese; explanations live with their panels.

English is the key. ``Translator`` remembers where each text went and sets it again when the
session's language changes.
"""

from __future__ import annotations

from collections.abc import Callable

ZH = {
    "&File": "文件(&F)",
    "&Open checkpoint…": "打开检查点(&O)…",
    "Open &recent": "最近打开(&R)",
    "Export view as &PNG…": "导出视图为 PNG(&P)…",
    "Export view as &SVG…": "导出视图为 SVG(&S)…",
    "Export &trace (.npz)…": "导出轨迹 .npz(&T)…",
    "&Quit": "退出(&Q)",
    "&Run": "运行(&R)",
    "Step": "单步",
    "Back": "后退",
    "Play": "播放",
    "Pause": "暂停",
    "Reset": "重置",
    "To end": "运行到结束",
    "&View": "视图(&V)",
    "Show the &mean of heads": "显示各头的平均(&M)",
    "&Colormap": "配色(&C)",
    "&Attention kind": "注意力类型(&A)",
    # why a concept page is off for the loaded model (visualizer/panels/registry.py)
    "this model does not expose its raw attention scores, so there is no mask to show on them": (
        "这个模型不提供注意力的原始分数，因此没有可以施加在分数上的掩码"
    ),
    "this model cannot be run teacher-forced": "这个模型不能以教师强制方式运行",
    "this model has no positional encoding": "这个模型没有位置编码",
    "this model does not divide its attention scores by √d_k": "这个模型不把注意力分数除以 √d_k",
    "this model cannot run without its ÷√d_k for the comparison": "这个模型不能去掉 ÷√d_k 来做对比",
    "this model has no normalisation layers": "这个模型没有归一化层",
    "this model does not record statistics around its norms": "这个模型不记录归一化前后的统计量",
    "this model has no encoder and decoder stacks of norms to show": (
        "这个模型没有可展示的编码器与解码器归一化层"
    ),
    "&Compare with another model…": "与另一个模型比较(&C)…",
    "&Stop comparing": "停止比较(&S)",
    "Compare A | B": "比较 A | B",
    "B: no what-if": "B：不做假设实验",
    "B: without positional encoding": "B：去掉位置编码",
    "B: without ÷√d_k": "B：不除以 √d_k",
    "B: without the causal mask": "B：去掉因果掩码",
    "Alignment": "对齐",
    "&Device": "设备(&D)",
    "Auto": "自动",
    "&Help": "帮助(&H)",
    "&Keyboard shortcuts": "键盘快捷键(&K)",
    "Source:": "源文本：",
    "Examples": "示例",
    "T": "温度",
    "beam": "束宽",
    "seed": "种子",
    "Attention Visualizer": "注意力可视化",
    "The previous model and generation are unchanged.": "之前的模型和生成结果保持不变。",
    "■ end of sequence": "■ 序列结束",
    "■ stopped at the maximum length": "■ 已达最大长度而停止",
    "&About this model…": "关于这个模型(&A)…",
    # the Examples menu (model/tasks/examples.py, visualizer/widgets/controls.py)
    "a fresh random input": "随机生成一个新输入",
    "words with spaces and capitals": "带空格和大写字母的单词",
    "any printable ASCII": "任意可打印 ASCII 字符",
    "Chinese characters": "汉字",
    "ASCII and Chinese mixed": "ASCII 与汉字混合",
    "spaces, capitals and punctuation": "空格、大写字母和标点",
    "a sentence": "一个句子",
    "Chinese": "中文",
    "mixed scripts": "中英文混合",
    "by code point: space, capitals, then lowercase": "按码位排序：空格、大写字母，然后小写字母",
    "digits": "数字",
    "Chinese, by code point": "中文，按码位排序",
    "ambiguous: 3 April or 4 March (try beam search, sampling)": (
        "有歧义：4 月 3 日还是 3 月 4 日（试试束搜索和采样）"
    ),
    "only the US reading is a date": "只有美式读法是合法日期",
    "only the day-first reading is a date": "只有日在前的读法是合法日期",
    "ISO in, ISO out": "ISO 格式进，ISO 格式出",
    "Chinese numerals": "汉字数字",
    "answers drawn with known frequencies": "答案按已知频率抽取",
    "Run": "运行",
    "Decoding:": "解码：",
    "speed": "速度",
    "steps/s": "步/秒",
    "greedy": "贪心",
    "sampling (temperature)": "采样（温度）",
    "top-k sampling": "top-k 采样",
    "top-p (nucleus) sampling": "top-p（核）采样",
    "beam search": "束搜索",
    "Output:": "输出：",
    "Encoder self-attention": "编码器自注意力",
    "Masked decoder self-attention": "掩码解码器自注意力",
    "Cross-attention": "交叉注意力",
    "Attention heads": "注意力头",
    "Loading…": "正在加载…",
    "decoder reads <bos> + what it generated": "解码器读入 <bos> + 已生成的内容",
    "decoder reads a target you type (teacher forcing)": "解码器读入你输入的目标（教师强制）",
    "what if: remove the causal mask": "假设：去掉因果掩码",
    "padded batch of two sources": "两个源文本的填充批次",
    "run a source first": "请先运行一个源文本",
    "running the model …": "正在运行模型 …",
    "running the model twice …": "正在运行模型两次 …",
    "target, e.g. noitnetta": "目标，例如 noitnetta",
    "WHAT-IF: the causal mask is removed; every position sees the whole target, "
    "which the model never did in training": (
        "假设实验：因果掩码已去掉；每个位置都能看到整个目标，模型在训练中从未这样做过"
    ),
    "WHAT-IF on the right: no ÷√d_k in any attention layer": ("右侧为假设实验：所有注意力层都不除以 √d_k"),
    "entropy (nats)": "熵（奈特）",
    "no ÷√d_k": "不除以 √d_k",
    "prediction and cross-entropy (nats) at each decoder position, mean": (
        "解码器各位置的预测与交叉熵（奈特），平均"
    ),
}


def tr(text: str, language: str) -> str:
    """``text`` in ``language`` ("en" or "zh"); English where no translation exists."""
    return ZH.get(text, text) if language == "zh" else text


class Translator:
    def __init__(self) -> None:
        self.entries: list[tuple[Callable[[str], object], str]] = []

    def add(self, setter: Callable[[str], object], english: str) -> None:
        self.entries.append((setter, english))

    def apply(self, language: str) -> None:
        for setter, english in self.entries:
            setter(tr(english, language))
