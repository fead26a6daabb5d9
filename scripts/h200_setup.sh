#!/usr/bin/env bash
# Issue 5 on the lent H200 (after `.gpu-stack/device.sh assemble`): tfgpu.setup() memory growth
# vs the default (NVML-measured), split=2 with MirroredStrategy, precision="auto" on CC 9.0,
# and `tfgpu run` on the MNIST script. Results land in $OUT/setup.tgz.
set -u
root=$(pwd)
o=/tmp/setup; rm -rf "$o"; mkdir -p "$o"
source .gpu-stack/device.sh env
export PYTHONPATH=$PYTHONPATH:$root/src PYTHONUNBUFFERED=1 TF_CPP_MIN_LOG_LEVEL=2
measure='from tfgpu.nvml.client import PynvmlClient; import tensorflow as tf; tf.ones(1); float(tf.reduce_sum(tf.ones((1024, 1024)))); print("NVML memory used after the first op: %.1f GiB" % (PynvmlClient().memory_info(0).used_bytes / 2**30))'
python3 -c "$measure" >"$o/memory-default.txt" 2>&1
python3 -c "import tfgpu; tfgpu.setup(memory='growth')
$measure" >"$o/memory-growth.txt" 2>&1
python3 -c "import tfgpu; tfgpu.setup(memory='8GiB')
$measure" >"$o/memory-limit-8gib.txt" 2>&1
python3 "$root/tests/fakes/scripts/train_small.py" setup-split >"$o/split2-mirrored.txt" 2>&1
python3 -c "import tfgpu; s = tfgpu.setup(precision='auto'); print('policy', s.precision_policy)" >"$o/precision-auto.txt" 2>&1
python3 -m tfgpu run --memory growth -- python3 "$root/examples/mnist_cnn.py" --mode seed --samples 60000 --epochs 1 >"$o/run-mnist-seed.txt" 2>&1
python3 -m tfgpu run --precision auto -- python3 "$root/examples/mnist_cnn.py" --mode tuned --samples 60000 --epochs 10 >"$o/run-mnist-tuned-auto.txt" 2>&1
for f in "$o"/*.txt; do echo "== $f"; grep -v "oneDNN\|absl::\|UserWarning\|data_adapter" "$f" | tail -8; done
tar -C /tmp -czf "$OUT/setup.tgz" setup
