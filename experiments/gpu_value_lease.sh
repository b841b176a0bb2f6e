#!/usr/bin/env bash
# One lease of a GPU machine (one H200, 16 CPU cores) for issue 43's value and belief
# networks: the shipped ones overfit their self-play data within a few epochs (held-out
# error rising from epoch 5 of 15), so this lease buys data. The 16 cores play self-play
# games for SP_SECONDS (every game fixed by its seed, so `cardarena selfplay --deals N
# --seed S` replays the same N games anywhere), then every network trains at once with
# the learner on the GPU. The networks come back under $OUT as one archive; they are
# checked on 2 cores afterwards, on fresh games, against the shipped ones
# (experiments/value_check.py), in declared runs (experiments/runs/).
#
#   OUT=/tmp/lease SP_SECONDS=260 DEVICE=cuda bash experiments/gpu_value_lease.sh
#
# The machine has no network: experiments/lease_setup.sh installs open_spiel from .whl/.
set -uo pipefail
OUT=${OUT:?the folder the results go to}
SP_SECONDS=${SP_SECONDS:-260}
TRAIN_SECONDS=${TRAIN_SECONDS:-240}
DEVICE=${DEVICE:-cuda}
EPOCHS=${EPOCHS:-25}
SCALE=${SCALE:-1}        # workers multiplier: 1 on the lease's 16 cores
source experiments/lease_setup.sh
WORK=/tmp/lease_work; rm -rf "$WORK"; mkdir -p "$WORK/nets"
START=$SECONDS; SP_END=$((START + SP_SECONDS))

# grow NAME GAME POLICY WORKERS SEED STEP MAX: extends NAME.db by STEP games at a time until
# SP_END or MAX games (as many as the networks build their data from within
# TRAIN_SECONDS); a run cut off at SP_END keeps every game it finished.
grow() {
    local name=$1 game=$2 policy=$3 workers=$4 seed=$5 step=$6 max=$7 n=0
    while [ $SECONDS -lt $SP_END ] && [ $n -lt "$max" ]; do
        n=$((n + step))
        timeout $((SP_END - SECONDS + 1)) python3 -m scripts.cli selfplay --quiet --workers "$workers" \
            --game "$game" --policy "$policy" --deals "$n" --seed "$seed" --out "$WORK/$name.db" \
            >>"$WORK/$name.selfplay.log" 2>&1
    done
}

# 1. Self-play, every core busy. SET=canasta: Modern Canasta by its network (the
#    strongest fast policy) and by its rule bot (twenty times faster), classic Canasta
#    by its rule bot. SET=pages: Page One and American Page One by their networks.
SET=${SET:-canasta}
if [ "$SET" = canasta ]; then
    grow modern_neural python_modern_canasta neural $((11 * SCALE)) 4361 1500 30000 &
    grow modern_rules python_modern_canasta rules $((2 * SCALE)) 4362 4000 24000 &
    grow classic2 "python_classic_canasta(players=2)" rules 1 4363 4000 20000 &
    grow classic3 "python_classic_canasta(players=3)" rules 1 4364 4000 20000 &
    grow classic4 "python_classic_canasta(players=4)" rules 1 4365 4000 20000 &
else
    grow page_one "python_page_one(players=4)" neural $((7 * SCALE)) 4366 8000 60000 &
    grow american_page_one "python_american_page_one(players=4)" neural $((8 * SCALE)) 4367 6000 40000 &
fi
wait
python3 - "$WORK" <<'EOF' | tee "$OUT/games.txt"
import sqlite3, sys, pathlib
for db in sorted(pathlib.Path(sys.argv[1]).glob("*.db")):
    n = sqlite3.connect(db).execute("select count(*) from games").fetchone()[0]
    print(f"{db.stem}: {n} games")
EOF

# 2. Every network at once, the learner on the GPU (data building on the CPUs).
value() {  # NAME GAME DB PER_GAME HIDDEN
    timeout "$TRAIN_SECONDS" python3 -m scripts.cli train-value --game "$2" --data "$WORK/$3.db" \
        --out "$WORK/nets/$1.value.safetensors" --per-game "$4" --hidden "$5" --epochs "$EPOCHS" \
        --lr 3e-4 --seed 43 --device "$DEVICE" --no-onnx --quiet >"$WORK/nets/$1.value.log" 2>&1
}
belief() {  # NAME GAME DB
    timeout "$TRAIN_SECONDS" python3 -m scripts.cli train-belief --game "$2" --data "$WORK/$3.db" \
        --out "$WORK/nets/$1.belief.safetensors" --per-game 8 --hidden 256,256 --epochs "$EPOCHS" \
        --lr 3e-4 --seed 43 --device "$DEVICE" --no-onnx --quiet >"$WORK/nets/$1.belief.log" 2>&1
}
if [ "$SET" = canasta ]; then
    value modern_neural python_modern_canasta modern_neural 8 256,256 &
    value modern_neural_wide python_modern_canasta modern_neural 8 512,512 &
    value modern_rules python_modern_canasta modern_rules 4 256,256 &
    belief modern_neural python_modern_canasta modern_neural &
    for p in 2 3 4; do
        value classic$p "python_classic_canasta(players=$p)" classic$p 6 256,256 &
        belief classic$p "python_classic_canasta(players=$p)" classic$p &
    done
else
    for g in page_one american_page_one; do
        value $g "python_$g(players=4)" $g 4 256,256 &
        value ${g}_wide "python_$g(players=4)" $g 4 512,512 &
        belief $g "python_$g(players=4)" $g &
    done
fi
wait
echo "seconds: $((SECONDS - START))"
tail -n 3 "$WORK"/nets/*.log
(cd "$WORK/nets" && tar czf "$OUT/nets.tgz" ./*.safetensors ./*.json ./*.csv ./*.log)
cp "$WORK"/*.selfplay.log "$OUT/"
tail -n 3 "$WORK"/*.selfplay.log
ls -la "$OUT"
