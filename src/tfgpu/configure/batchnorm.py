"""``tfgpu.setup(batchnorm="fused")``: Keras 3's BatchNormalization through cuDNN's fused kernel.

Keras 3 normalises with separate moments, subtract, multiply and add ops on the TensorFlow
backend (the Keras team's "BatchNorm is slow" issue,
https://github.com/keras-team/keras-core/issues/225), where tf.keras called one fused kernel. On
the H200 the same Keras 3 ResNet-50 trained 1.9x faster with the fused kernel in both float32
and mixed_bfloat16 (docs/performance.md §5b). The patch keeps Keras's semantics: the same
output, the same moving statistics (the kernel's Bessel-corrected batch variance is scaled back
to the biased one Keras averages), the same variables; layers it cannot express (a mask, renorm,
synchronized batch norm, other ranks or axes than NHWC's channels) keep Keras's own path.
"""

from __future__ import annotations

import os
from typing import Any

_PATCHED = "_tfgpu_fused"


def use_fused_batch_normalization() -> bool:
    """Route every Keras 3 BatchNormalization of this process through the fused kernel.

    Returns False when it cannot apply (Keras 2 / tf.keras, which fuses already, including Keras 3
    installed beside tf_keras under TF_USE_LEGACY_KERAS=1, or a backend other than TensorFlow);
    calling it twice is harmless.
    """
    if os.environ.get("TF_USE_LEGACY_KERAS") == "1":
        return False  # tf.keras is tf_keras here: patching Keras 3 would claim a change the model never sees
    keras = _keras3_on_tensorflow()
    if keras is None:
        return False
    layer_class = keras.layers.BatchNormalization
    if getattr(layer_class.call, _PATCHED, False):
        return True
    keras_call = layer_class.call

    def call(self: Any, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if not _fusable(self, inputs, mask):
            return keras_call(self, inputs, training=training, mask=mask)
        return _fused_call(self, inputs, bool(training) and self.trainable)

    setattr(call, _PATCHED, True)
    call.__doc__ = keras_call.__doc__
    layer_class.call = call
    return True


def unfused_batchnorm_layers(model: Any) -> int | None:
    """How many of the model's BatchNormalization layers run Keras 3's separate ops where the fused kernel could.

    None where the question does not arise: Keras 2 / tf.keras (which fuses already) or another
    backend. GpuMonitor turns a count into a verdict: a GPU kept busy by these small kernels is
    busy, not fast. Read after training, when every layer is built and knows its input's rank.
    """
    keras = _keras3_on_tensorflow()
    if keras is None:
        return None
    if getattr(keras.layers.BatchNormalization.call, _PATCHED, False):
        return 0
    layers = model._flatten_layers(include_self=False) if hasattr(model, "_flatten_layers") else []
    return sum(
        1
        for layer in layers
        if isinstance(layer, keras.layers.BatchNormalization) and getattr(layer.input_spec, "ndim", None) == 4
        if _fusable_layer(layer)
    )


def _keras3_on_tensorflow() -> Any:
    """The keras module when it is Keras 3 on the TensorFlow backend (the one the patch is for), else None."""
    import keras

    return keras if keras.__version__.startswith("3.") and keras.backend.backend() == "tensorflow" else None


def _fusable_layer(layer: Any) -> bool:
    return not layer.renorm and not layer.synchronized and layer.axis in (-1, 3)


def _fusable(layer: Any, inputs: Any, mask: Any) -> bool:
    return bool(
        mask is None
        and _fusable_layer(layer)
        and inputs.shape.rank == 4
        and inputs.dtype.name in ("float32", "float16", "bfloat16")
    )


def _fused_call(layer: Any, inputs: Any, training: bool) -> Any:
    import tensorflow as tf

    channels = inputs.shape[-1]
    scale = tf.cast(layer.gamma, tf.float32) if layer.scale else tf.ones((channels,), tf.float32)
    offset = tf.cast(layer.beta, tf.float32) if layer.center else tf.zeros((channels,), tf.float32)
    if not training:
        outputs, _, _ = tf.compat.v1.nn.fused_batch_norm(
            inputs,
            scale,
            offset,
            mean=tf.cast(layer.moving_mean, tf.float32),
            variance=tf.cast(layer.moving_variance, tf.float32),
            epsilon=layer.epsilon,
            data_format="NHWC",
            is_training=False,
        )
        return tf.cast(outputs, layer.compute_dtype)
    outputs, mean, variance = tf.compat.v1.nn.fused_batch_norm(
        inputs, scale, offset, epsilon=layer.epsilon, data_format="NHWC", is_training=True
    )
    # The kernel returns the unbiased (n - 1) variance for running averages; Keras averages the biased one.
    count = tf.cast(tf.reduce_prod(tf.shape(inputs)[:-1]), tf.float32)
    variance = variance * (count - 1.0) / tf.maximum(count, 1.0)
    momentum = layer.momentum
    layer.moving_mean.assign(layer.moving_mean * momentum + tf.cast(mean, layer.moving_mean.dtype) * (1.0 - momentum))
    layer.moving_variance.assign(
        layer.moving_variance * momentum + tf.cast(variance, layer.moving_variance.dtype) * (1.0 - momentum)
    )
    return tf.cast(outputs, layer.compute_dtype)
