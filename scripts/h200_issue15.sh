#!/usr/bin/env bash
# Issue 15 on the lent H200 (scripts/h200_background.sh says how to run and wait):
# tune vs hand on the MNIST CNN at --budget 300, on ResNet-50 at --budget 600, and with REPEAT=N
# the best MNIST hand configuration in N fresh children (the run-to-run noise). Each benchmark
# gets a fresh TensorFlow child of its own; nothing else uses the GPU meanwhile.
set -u
source scripts/h200_background.sh i15 "${1:-run}" "${2:-}"
step tune-mnist python3 benchmarks/tune_mnist.py --budget 300 --json "$o/tune-mnist.json"
step tune-resnet50 python3 benchmarks/tune_resnet50.py --budget 600 --json "$o/tune-resnet50.json"
[ "${REPEAT:-0}" -gt 0 ] && step mnist-repeat python3 benchmarks/tune_mnist.py --skip-tune --repeat "$REPEAT"
touch "$o/done"
