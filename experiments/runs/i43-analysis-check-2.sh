#!/usr/bin/env bash
# The declared analysis check: 20 hands in two shards (one a core), then their summary.
set -euo pipefail
common="--results /work/runs/check/hands2.db --seat-agent neural --hands 20 --every 3 --worlds 24 --recheck 2000"
python -m experiments.analysis_check $common --shard 0/2 --out /work/runs/check/check2_a.json 2>/work/runs/check/a2.err &
python -m experiments.analysis_check $common --shard 1/2 --out /work/runs/check/check2_b.json 2>/work/runs/check/b2.err &
wait
python -m experiments.analysis_check --combine /work/runs/check/check2_a.json /work/runs/check/check2_b.json \
    --out /work/runs/check/analysis_check2.json
