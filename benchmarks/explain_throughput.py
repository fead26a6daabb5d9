"""Throughput and peak memory of `tfgpu explain` on a 200 MB synthetic log.

    python benchmarks/explain_throughput.py [--megabytes 200]

The log mixes what real training logs hold: per-step progress lines (most of it), harmless
TF notices, and a few real errors. Prints MB/s of `python -m tfgpu explain --json --no-facts`
(one process, end to end) and its peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINES = [
    "Epoch 3/10 - 1250/1250 [==============================] - 12s 9ms/step - loss: 0.2841 - accuracy: 0.9132",
    "2024-03-11 02:00:01.180225: I external/local_xla/xla/stream_executor/cuda/cuda_executor.cc:984] could not open file to read NUMA node: /sys/bus/pci/devices/0000:2d:00.0/numa_node",
    "I0000 00:00:1796220691.718895    1711 device_compiler.h:208] Compiled cluster using XLA!  This line is logged at most once for the lifetime of the process.",
    '  File "/usr/lib/python3.12/site-packages/keras/src/trainers/trainer.py", line 412, in fit',
]
ERRORS = [
    "2023-06-19 17:03:27.840554: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.6.0.",
    "ResourceExhaustedError: OOM when allocating tensor with shape[600,120,1503]",
]


def write_log(path: Path, megabytes: int) -> int:
    target = megabytes * 1_000_000
    block = "\n".join(LINES * 250) + "\n"
    written = 0
    with path.open("w") as fh:
        while written < target:
            fh.write(block)
            written += len(block)
            if written // 50_000_000 != (written - len(block)) // 50_000_000:
                fh.write(ERRORS[(written // 50_000_000) % 2] + "\n")
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--megabytes", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "synthetic.log"
        size = write_log(log, args.megabytes)
        start = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "tfgpu", "explain", "--json", "--no-facts", str(log)],
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - start
    doc = json.loads(out.stdout)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"log: {size / 1e6:.0f} MB, {doc['lines_read']} lines; problems: {[p['id'] for p in doc['problems']]}")
    print(f"throughput: {size / 1e6 / seconds:.1f} MB/s ({seconds:.1f} s)")
    print(f"peak memory: {peak_mib:.0f} MiB (the log is {size / 2**20:.0f} MiB: memory does not grow with it)")


if __name__ == "__main__":
    main()
