"""Neural policies: networks over a game's information-state tensor, their
training (Deep Monte-Carlo self-play, `dmc.py`), the safe bot file format
(`botfile.py`), the bot that plays one (`bot.py`) and the ONNX export.

Nothing here is imported by `agents` itself: torch loads only when a neural bot
is made or a network is trained. docs/neural.md describes the whole.
"""
