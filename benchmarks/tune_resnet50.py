"""`tune` on Keras ResNet-50 as a tutorial trains it (examples/resnet50.py: fit(x, y, batch_size=64),
jit_compile "auto") against hand-picked configurations measured in the same run: tf.data batch
256 with jit_compile=False in float32 (the best of the 2026-12-02 hand trials: 873 img/s, the
mixed policies were slower), and the same with the batch prefetched to the GPU
(prefetch_to_device) in float32 and mixed_bfloat16, and tf.data batch 256 with cuDNN's fused batch
norm (tfgpu.setup(batchnorm="fused"), 1.9x on 2026-12-03: docs/performance.md §5b).

    python benchmarks/tune_resnet50.py [--budget 600] [--hand-from FILE] [--skip-tune] [--json FILE]
"""

from tune_common import main

from tfgpu.model.tune import TrialConfig

HAND = [
    TrialConfig(batch_size=256, input="tf.data", jit_compile=False),
    TrialConfig(batch_size=256, input="tf.data+device", jit_compile=False),
    TrialConfig(batch_size=256, input="tf.data+device", precision="mixed_bfloat16", jit_compile=False),
    TrialConfig(batch_size=256, input="tf.data", jit_compile=False, batchnorm="fused"),
]

if __name__ == "__main__":
    main("resnet50.py", HAND, __doc__)
