#!/usr/bin/env bash
# Issue 7 on the lent H200 (after `.gpu-stack/device.sh assemble`; carry .whl with nvitop,
# gpustat, blessed, wcwidth and jinxed for the monitor comparison of issue 6).
# Results land in $OUT/bench.tgz. Written 2026-12-02, not yet run (the session's device time was spent).
set -u
root=$(pwd)
o=/tmp/bench; rm -rf "$o"; mkdir -p "$o"
source .gpu-stack/device.sh env
export PYTHONPATH=$PYTHONPATH:$root/src:/tmp/site PYTHONUNBUFFERED=1 TF_CPP_MIN_LOG_LEVEL=2
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
python3 -m tfgpu bench --suite full --json >"$o/bench-full.json" 2>"$o/bench-full.err"
python3 -m tfgpu bench --suite full --compare "$o/bench-full.json" >"$o/bench-full.txt" 2>&1
python3 benchmarks/matmul_vs_torch.py >"$o/matmul-vs-torch.txt" 2>&1
python3 -m tfgpu burn --minutes 2 >"$o/burn-2min.txt" 2>&1; echo "exit $?" >>"$o/burn-2min.txt"
python3 benchmarks/monitor_overhead.py --samples 500 --epochs 3 >"$o/monitor-overhead.txt" 2>&1
for f in "$o"/*.txt; do echo "== $f"; tail -25 "$f"; done
tar -C /tmp -czf "$OUT/bench.tgz" bench
