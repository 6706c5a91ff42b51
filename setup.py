"""Every package under model/ and visualizer/ is found, not listed (pyproject.toml holds the rest).

The shipped checkpoints are the package ``model.assets``, whose files live in the top-level
``assets/`` folder (``package-dir`` in pyproject.toml), so it is named here beside what is found.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["model", "model.*", "visualizer", "visualizer.*"]), "model.assets"])
