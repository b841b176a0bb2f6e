"""Training: self-play data and the networks learnt from it. The policy networks'
deep Monte-Carlo self-play (`dmc.py`, its `--target advantage` samples in
`advantage.py`), expert iteration (`expert.py`), their evaluation against a bot
(`evaluate.py`), the ONNX export (`onnx_export.py`) and ensembles (`ensemble.py`),
with their commands (`policy_cli.py`); the value and belief networks (`selfplay.py`,
`value.py`, `belief.py`, `onnx_twin.py`, `cli.py`). The bots never import this
package: what they read is the files it writes (a test checks that the bot
runtime loads no module of it)."""
