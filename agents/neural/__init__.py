"""Neural policies: networks over a game's information-state tensor
(`network.py`, sizes in `config.py`, inputs in `encoding.py`, suit symmetries
in `symmetry.py`), the safe bot file format (`botfile.py`), the bot that plays
one (`bot.py`) and the prior for search (`prior.py`). Their training, export
and ensembles are the `training` package's, which nothing here imports.

Nothing here is imported by `agents` itself: torch loads only when a neural bot
is made. docs/neural.md describes the whole.
"""
