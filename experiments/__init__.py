"""The lab: declared runs (experiments/runs/*.json) and the scripts that make them."""
