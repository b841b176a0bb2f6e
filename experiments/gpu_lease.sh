#!/usr/bin/env bash
# One lease of a GPU machine (one H200, 16 CPU cores), as one prepared script: what
# `--device cuda` buys the learner, then classic Canasta's network of advantages over its
# rule bot for 4 players, trained with 13 actors instead of one. The data comes back under
# $OUT; the network is rated afterwards on 2 cores, in declared runs (experiments/runs/).
#
#   OUT=/tmp/lease MINUTES=6.5 ACTORS=13 DEVICE=cuda bash experiments/gpu_lease.sh
#
# The machine has no network: experiments/lease_setup.sh installs open_spiel from .whl/.
set -uo pipefail
OUT=${OUT:?the folder the results go to}
MINUTES=${MINUTES:-6.5}
ACTORS=${ACTORS:-13}
DEVICE=${DEVICE:-cuda}
SEED=${SEED:-4340}
INIT=${INIT:-}          # a bot file to continue from (a later lease, on fresh deals: another SEED)
BENCH=${BENCH:-1}
source experiments/lease_setup.sh

# 1. The learner's step, CPU against GPU, on every game's network (scripts/bench_learner.py).
[ "$BENCH" = 1 ] && python3 -m scripts.bench --only learner --seconds 1 --repeats 2 2>&1 | tee "$OUT/learner.txt"

# 2. Classic Canasta, 4 players: the recipe of experiments/runs/i43-classic-canasta-networks.json
#    (35 minutes, one actor, on 2 cores), with 13 actors and the learner on the GPU.
python3 -m scripts.cli train --game "python_classic_canasta(players=4)" --out "$OUT/p4" \
    --target advantage --baseline rules --opponents rules --actors "$ACTORS" --games-per-batch 8 \
    --buffer-size 1000000 --ema 0.999 --checkpoint-minutes "${CHECKPOINT_MINUTES:-1.5}" --eval-deals 100 \
    --minutes "$MINUTES" --seed "$SEED" --eval-play "margin=0.1" --device "$DEVICE" ${INIT:+--init "$INIT"} 2>&1 \
    | grep -v '^\s*$' | tail -30
ls -la "$OUT/p4" "$OUT/p4/snapshots" 2>/dev/null
# The last snapshot beside the curve: $OUT holds at most 8 files two folders down.
last=$(ls "$OUT/p4/snapshots/"*.safetensors 2>/dev/null | sort | tail -1)
[ -n "$last" ] && cp "$last" "$OUT/p4_last.safetensors"
rm -rf "$OUT/p4/snapshots" "$OUT/p4/eval_results.db" "$OUT/p4/checkpoint.pt"
