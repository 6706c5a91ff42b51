"""Shared test set-up. Qt must run offscreen: without a display it aborts the whole process."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
