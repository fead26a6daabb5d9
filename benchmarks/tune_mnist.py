"""`tune` on the seeds' MNIST CNN (examples/mnist_cnn.py: fit(x, y, batch_size=64), jit_compile "auto")
against the configuration found by hand (issue 9: tf.data, batch 1024, prefetch, float32,
jit_compile=False: 113,555 samples/s on the H200 on 2026-12-02), measured in the same run.

    python benchmarks/tune_mnist.py [--budget 600] [--json FILE]
"""

from tune_common import main

from tfgpu.model.tune import TrialConfig

HAND = [TrialConfig(batch_size=1024, input="tf.data", jit_compile=False)]

if __name__ == "__main__":
    main("mnist_cnn.py", HAND, __doc__)
