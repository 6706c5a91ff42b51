"""The characters the shipped tasks are written in: printable ASCII and common Chinese.

``COMMON_CJK`` holds the 300 most frequent Chinese characters of modern written Chinese (in
order of frequency, after Jun Da's character frequency list), and ``EXTRA_CJK`` those that the
date forms, the ``pick:`` categories and the chosen examples use beyond them.
"""

from __future__ import annotations

PRINTABLE_ASCII: str = "".join(chr(code) for code in range(0x20, 0x7F))  # space .. tilde, 95
COMMON_CJK: str = (
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里"
    "用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实"
    "日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重并物手应战向头文体政"
    "美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常先海通教儿原东声提立及比员"
    "解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报才结反受目太量再感建务做接必场件"
    "计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象"
)
# 〇 and the date units, the pick: answers, and the Examples menu's phrases (注意力, 机器学习 ...)
EXTRA_CJK_WORDS: tuple[str, ...] = (
    "〇一二三四五六七八九十年月日",
    "水果苹果香蕉葡萄西瓜橙子动物猫狗鸟鱼兔颜色红蓝绿黄紫白",
    "注意力机制你好世界机器学习模型翻译中文早上好谢谢再见",
)


def _unique(text: str) -> str:
    return "".join(dict.fromkeys(text))


CJK_CHARACTERS: str = _unique(COMMON_CJK + "".join(EXTRA_CJK_WORDS))
TEXT_CHARACTERS: str = PRINTABLE_ASCII + CJK_CHARACTERS  # what reverse: and sort: accept


# Characters outside the vocabulary, standing in for the unknown ones a person types: Chinese
# characters beyond the 333 (爱 among them), accented Latin, Greek and Cyrillic letters. The
# tokenizer reads every one as <unk>; training draws them so that the model learns to write
# <unk> where one stands (the rare-word lesson: the character is then copied from the source
# position cross-attention points at), and the held-out check draws them the same way.
_OUTSIDE_CANDIDATES = (
    "爱吗呢吧啊哪请让路城市春夏秋冬雨雪风花草树林森星云江河湖海岛桥船车站店饭茶酒衣鞋伞灯窗床桌椅"
    "éèêëàâäçñöüßøåæíóúÉÑÖÜ"
    "αβγδεζηθλμπσφψωΔΣΩ"
    "бгджзийлпфцчшщыэюяБГДЖЗЛПФЦЧШЩЭЮЯ"
)
OUTSIDE_CHARACTERS: str = "".join(c for c in dict.fromkeys(_OUTSIDE_CANDIDATES) if c not in TEXT_CHARACTERS)
