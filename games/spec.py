"""The `name` or `name(key=value, ...)` syntax that game strings
(`python_page_one(players=4)`) and bot specs (`ismcts(iterations=1000,rollout=rules)`)
share; it lives with the games because the lowest floor, a game's loader, reads it.

A value wholly in quotes (`cmd="./bot --opts a,b"` or single quotes) is the text between them:
its commas and brackets are the value's, not the spec's."""

from __future__ import annotations

import re
from typing import Any

_SPEC = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.S)
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")     # a quoted value: its brackets are not the spec's


def parse_value(text: str) -> Any:
    """'3' -> 3, '0.5' -> 0.5, 'true' -> True, anything else stays a string."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'":
        return t[1:-1]
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    for kind in (int, float):
        try:
            return kind(t)
        except ValueError:
            pass
    return t


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Splits a bot spec into its name and keyword arguments.

    Raises ValueError naming the problem: no name, unbalanced parentheses, an
    argument without `=`, or a repeated key.
    """
    unquoted = _QUOTED.sub("", spec)
    if unquoted.count("(") != unquoted.count(")"):
        raise ValueError(f"malformed bot spec {spec!r}: unbalanced parentheses")
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(f"malformed bot spec {spec!r}: expected name or name(key=value,...)")
    name, body = m.group(1), m.group(2)
    kwargs: dict[str, Any] = {}
    if body is not None and body.strip():
        depth, start, parts, quote = 0, 0, [], None
        for i, ch in enumerate(body):
            if quote is not None:            # inside quotes: commas and brackets are the value's
                quote = None if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
                if depth < 0:
                    raise ValueError(f"malformed bot spec {spec!r}: unbalanced ')'")
            elif ch == "," and depth == 0:
                parts.append(body[start:i])
                start = i + 1
        if quote is not None:
            raise ValueError(f"malformed bot spec {spec!r}: unclosed {quote}")
        if depth:
            raise ValueError(f"malformed bot spec {spec!r}: unbalanced '('")
        parts.append(body[start:])
        for part in parts:
            if "=" not in part:
                raise ValueError(f"malformed bot spec {spec!r}: argument {part.strip()!r} is not key=value")
            key, value = part.split("=", 1)
            key = key.strip()
            if not key.isidentifier():
                raise ValueError(f"malformed bot spec {spec!r}: bad argument name {key!r}")
            if key in kwargs:
                raise ValueError(f"malformed bot spec {spec!r}: {key} given twice")
            kwargs[key] = parse_value(value)
    return name, kwargs
