"""The kinds of fault a bot can commit, by the names the harness records.

The referee (eval/referee.py) names a seat's fault by one of these, and an engine
bot (agents/engine.py) raises its protocol breaches with the same names through
an exception's `fault_kind`: they live here, under both, so that the bot runtime
need not import the harness to speak its language.
"""

RAISED = "raised"           # the bot raised an exception (an engine: a malformed or missing answer)
ILLEGAL = "illegal"         # the bot answered an action that is not legal, or changed the state it was handed
TIMEOUT = "timeout"         # the bot took longer than the time limit
CRASHED = "crashed"         # the bot's process died (a worker, or an engine that exited)
GAME_ERROR = "game error"   # not a bot's fault: the game itself raised, and the game is void
