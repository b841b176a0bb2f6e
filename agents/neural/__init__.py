"""Neural policies: networks over a game's information-state tensor
(`network.py`, sizes in `config.py`, inputs in `encoding.py`), their training
(deep Monte-Carlo self-play, `dmc.py`, with `symmetry.py` and `evaluate.py`),
the safe bot file format (`botfile.py`), the bot that plays one (`bot.py`),
the ONNX export (`onnx_export.py`) and the prior for search (`prior.py`).

Nothing here is imported by `agents` itself: torch loads only when a neural bot
is made or a network is trained. docs/neural.md describes the whole.
"""
