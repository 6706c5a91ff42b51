"""Hugging Face encoder-decoders as a model family (needs the ``[hf]`` extra).

Importing this package forces the library offline: this app never downloads a model.
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
