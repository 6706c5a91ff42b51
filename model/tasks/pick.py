"""The ``pick:`` task: a category in, one member out, drawn with fixed, known frequencies.

Its answers are a real distribution, so a model trained on it should give each member the
probability the data gives it; the Decoding panel and ``attnviz eval`` compare the two.
"""

from __future__ import annotations

# category -> {member: probability}; every row sums to 1, and no two rows are uniform
PICK_CATEGORIES: dict[str, dict[str, float]] = {
    "fruit": {"apple": 0.35, "banana": 0.25, "cherry": 0.15, "grape": 0.1, "mango": 0.1, "pear": 0.05},
    "水果": {"苹果": 0.4, "香蕉": 0.25, "葡萄": 0.15, "西瓜": 0.12, "橙子": 0.08},
    "colour": {"red": 0.3, "blue": 0.25, "green": 0.2, "yellow": 0.15, "purple": 0.1},
    "动物": {"猫": 0.4, "狗": 0.35, "鸟": 0.15, "鱼": 0.1},
    "weather": {"sunny": 0.5, "cloudy": 0.3, "rain": 0.15, "snow": 0.05},
    # smaller primes are likelier: weight 1/p, rounded to three decimals (sums to 1)
    "prime < 50": {},
}


def _prime_weights() -> dict[str, float]:
    primes = [p for p in range(2, 50) if all(p % d for d in range(2, int(p**0.5) + 1))]
    weights = [1 / p for p in primes]
    rounded = [round(w / sum(weights), 3) for w in weights]
    rounded[0] = round(rounded[0] + 1 - sum(rounded), 3)  # the rounding remainder goes to 2
    return {str(p): w for p, w in zip(primes, rounded, strict=True)}


PICK_CATEGORIES["prime < 50"] = _prime_weights()
PICK_NAMES: tuple[str, ...] = tuple(PICK_CATEGORIES)


def pick_distribution(category: str) -> dict[str, float]:
    """The members of ``category`` and their probabilities; ValueError for an unknown one."""
    if category not in PICK_CATEGORIES:
        raise ValueError(f"unknown pick: category {category!r}; choose one of {', '.join(PICK_NAMES)}")
    return dict(PICK_CATEGORIES[category])
