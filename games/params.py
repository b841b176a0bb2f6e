"""Validation of game parameters, so a bad value fails with a message that names it.

OpenSpiel rejects unknown parameter names itself; the ranges and choices are ours.
"""

from __future__ import annotations

from typing import Any, Mapping


class GameParameterError(ValueError):
    """A game parameter is out of range or not one of its choices."""


def int_param(params: Mapping[str, Any], name: str, lo: int, hi: int) -> int:
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise GameParameterError(f"{name}={value!r}: must be an integer in [{lo}, {hi}]")
    if not lo <= value <= hi:
        raise GameParameterError(f"{name}={value}: out of range, must be in [{lo}, {hi}]")
    return value


def choice_param(params: Mapping[str, Any], name: str, choices: tuple[str, ...]) -> str:
    value = params[name]
    if value not in choices:
        raise GameParameterError(f"{name}={value!r}: must be one of {', '.join(choices)}")
    return value


def bool_param(params: Mapping[str, Any], name: str) -> bool:
    value = params[name]
    if not isinstance(value, bool):
        raise GameParameterError(f"{name}={value!r}: must be true or false")
    return value
