# Sourced by the GPU lease scripts (experiments/gpu_*.sh): the machine has no network, so
# open_spiel travels as a wheel in .whl/ (see /work/.library/device/README.md) and is
# installed under /tmp/site; then what the machine is, and that torch sees its GPU.
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
fi
nproc; nvidia-smi -L 2>/dev/null
python3 -c "import torch, pyspiel; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" || exit 1
