"""Set-up for every test process (tests/ and experiments/tests/).

Under pytest-xdist (pyproject's `-n 2`) two workers share the two cores, so each holds its
BLAS and OpenMP pools to one thread, and so do the processes its tests start (engines, worker
pools: they inherit the variables). Left at two threads each, the pools spun against each
other: the HTTP fuzz test took 89 s beside the luck tests instead of 10 s, the luck tests
47 s instead of 27 s. A single process (`-n 0`) keeps both cores for itself.
"""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_name, "1")
    import numpy  # noqa: F401  (loaded first, so the limit below finds its BLAS)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
