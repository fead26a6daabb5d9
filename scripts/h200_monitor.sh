#!/usr/bin/env bash
# Issue 6 on the lent H200 (after `.gpu-stack/device.sh assemble`): GpuMonitor on the MNIST CNN in
# its seed and tuned configurations, and the overhead benchmark (the --once/--watch runs of
# docs/examples were made by the first version of this script, same day).
# Everything lands in $OUT/monitor.tgz.
set -u
root=$(pwd)
o=/tmp/mon; rm -rf "$o"; mkdir -p "$o"
source .gpu-stack/device.sh env
export PYTHONPATH=$PYTHONPATH:$root/src:/tmp/site PYTHONUNBUFFERED=1 TF_CPP_MIN_LOG_LEVEL=2
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
cd "$o"
python3 $root/examples/mnist_cnn.py --mode seed --samples 60000 --epochs 3 --monitor mnist-seed.png >mnist-seed.txt 2>&1
python3 $root/examples/mnist_cnn.py --mode tuned --samples 60000 --epochs 20 --monitor mnist-tuned.png >mnist-tuned.txt 2>&1
python3 $root/benchmarks/monitor_overhead.py --samples 500 --epochs 3 >overhead.txt 2>&1
for f in *.txt; do echo "== $f"; tail -12 "$f"; done
tar -C /tmp -czf "$OUT/monitor.tgz" mon
