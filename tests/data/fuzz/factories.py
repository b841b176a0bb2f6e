"""Factories that raise what no caller expects, for the command-line cases
(tests/data/fuzz/cli_cases.txt): a bot registered with --register and a match
format named by --match, each of which the command must refuse in one line."""


class Broken(Exception):
    """Not a ValueError, nor any exception the toolkit names."""


def raising_bot(game, player, seed=0, **settings):
    """A bot factory that always raises."""
    raise Broken("this factory always fails")


def bot_raising_in_play(game, player, seed=0, **settings):
    """A bot factory that makes a bot when the command checks it (seed 0) and
    raises when a game makes it (any other seed): the harness's fault to blame."""
    if seed == 0:
        from agents import make_bot
        return make_bot("random", game, player, seed)
    raise Broken(f"no bot for seed {seed}")


def raising_format(game, **settings):
    """A match format factory that always raises."""
    raise Broken("this match format always fails")
