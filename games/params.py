"""Validation of game parameters, so a bad value fails with a message that names it.

OpenSpiel rejects unknown parameter names itself; the ranges and choices are ours.
"""

from __future__ import annotations

from typing import Any, Mapping


class GameParameterError(ValueError):
    """A game parameter is out of range or not one of its choices, or parameters clash:
    `param` names the one to change (None where none alone is at fault), so that a form can
    put the message beside its field without reading the message."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


def int_param(params: Mapping[str, Any], name: str, lo: int, hi: int) -> int:
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise GameParameterError(f"{name}={value!r}: must be an integer in [{lo}, {hi}]", param=name)
    if not lo <= value <= hi:
        raise GameParameterError(f"{name}={value}: out of range, must be in [{lo}, {hi}]", param=name)
    return value


def choice_param(params: Mapping[str, Any], name: str, choices: tuple[str, ...]) -> str:
    value = params[name]
    if value not in choices:
        raise GameParameterError(f"{name}={value!r}: must be one of {', '.join(choices)}", param=name)
    return value


def bool_param(params: Mapping[str, Any], name: str) -> bool:
    value = params[name]
    if not isinstance(value, bool):
        raise GameParameterError(f"{name}={value!r}: must be true or false", param=name)
    return value
