"""`tune` on Keras ResNet-50 as a tutorial trains it (examples/resnet50.py: fit(x, y, batch_size=64),
jit_compile "auto") against hand-picked configurations measured in the same run: tf.data
batch 256, jit_compile=False, in float32 and in both mixed policies.

    python benchmarks/tune_resnet50.py [--budget 600] [--hand-from FILE] [--skip-tune] [--json FILE]
"""

from tune_common import main

from tfgpu.model.tune import TrialConfig

HAND = [
    TrialConfig(batch_size=256, input="tf.data", jit_compile=False),
    TrialConfig(batch_size=256, input="tf.data", precision="mixed_bfloat16", jit_compile=False),
    TrialConfig(batch_size=256, input="tf.data", precision="mixed_float16", jit_compile=False),
]

if __name__ == "__main__":
    main("resnet50.py", HAND, __doc__)
