"""`tune` on the seeds' MNIST CNN (examples/mnist_cnn.py: fit(x, y, batch_size=64), jit_compile "auto")
against configurations found by hand, measured in the same run: tf.data + prefetch, jit_compile=False,
at batch 1024 (issue 9: 113,555 samples/s on the H200 on 2026-12-02) and at batch 8192 (issue 15:
439,656 samples/s in float32 on the H200), there also prefetched to the GPU and in mixed_bfloat16.

    python benchmarks/tune_mnist.py [--budget 600] [--json FILE]
"""

from tune_common import main

from tfgpu.model.tune import TrialConfig

HAND = [
    TrialConfig(batch_size=1024, input="tf.data", jit_compile=False),
    TrialConfig(batch_size=8192, input="tf.data", jit_compile=False),
    TrialConfig(batch_size=8192, input="tf.data+device", jit_compile=False),
    TrialConfig(batch_size=8192, input="tf.data", precision="mixed_bfloat16", jit_compile=False),
]

if __name__ == "__main__":
    main("mnist_cnn.py", HAND, __doc__)
