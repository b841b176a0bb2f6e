"""Seeds derived from seeds: one mixing function that the harness's schedule,
the duplicate-deal chance (games/chance.py), the search's analysis and the
training recipes all use, so the same numbers mean the same deals everywhere.
It lives here, under the rules, because search and the bots may not import the
harness (eval/) and the harness may import them."""

from __future__ import annotations

_MASK = (1 << 64) - 1


def derive_seed(*parts: int) -> int:
    """A 63-bit seed from integers, mixed by splitmix64: the same on every machine
    and Python version (unlike hash()), and unrelated for neighbouring inputs."""
    x = 0x9E3779B97F4A7C15
    for part in parts:
        x = (x ^ (part & _MASK)) & _MASK
        x = (x + 0x9E3779B97F4A7C15) & _MASK
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
        x ^= x >> 31
    return x >> 1
