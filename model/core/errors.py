"""Errors said to the user in one line: the one place that decides how an error reads."""

from __future__ import annotations

from pathlib import Path


class OneLineError(ValueError):
    """An error said to the user in one line, at most ``MAX_MESSAGE`` characters: its lines
    joined, a long middle cut (a hostile file can put megabytes into a name or a value)."""

    MAX_MESSAGE = 400

    def __init__(self, message: str) -> None:
        message = " ".join(str(message).splitlines())
        if len(message) > self.MAX_MESSAGE:
            half = self.MAX_MESSAGE // 2
            message = f"{message[:half]} … {message[-half:]}"
        super().__init__(message)


class CheckpointError(OneLineError):
    """A checkpoint cannot be used; the message says why in one line."""


def first_line(error: BaseException) -> str:
    """The first line of what ``error`` says ("" when it says nothing)."""
    lines = str(error).strip().splitlines()
    return lines[0].strip() if lines else ""


def one_line(error: BaseException) -> str:
    """The first line of what ``error`` says, or its type's name when it says nothing."""
    return first_line(error) or type(error).__name__


def about(path: Path, error: CheckpointError) -> CheckpointError:
    """``error`` with the file or folder it is about in front, unless it begins with it."""
    message = str(error)
    named = path.name or str(path)
    if message.startswith((str(path), named, repr(str(path)))):
        return error
    return CheckpointError(f"{named}: {message}")
