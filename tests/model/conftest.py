"""Fixtures for model tests live in tests/conftest.py (shared with GUI tests)."""
