"""A tiny deterministic training script for the setup/run integration tests.

Prints one JSON line: logical CPUs, the strategy, its replicas and the final loss.
Modes: plain (Keras fit), setup-split (tfgpu.setup(split=2) then Keras fit under its
MirroredStrategy), multiworker (a custom loop on MultiWorkerMirroredStrategy: each step's
gradient is all-reduced across the workers, so N workers follow one worker's trajectory).
"""

import json
import os
import sys

import numpy as np

mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
if mode == "setup-split":
    import tfgpu

    s = tfgpu.setup(split=2, verbose=False)
import tensorflow as tf  # a user script: setup() must come first

tf.keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.random((512, 8)).astype("float32")
y = (x @ rng.random((8, 1)).astype("float32")).astype("float32")

if mode == "multiworker":
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(64).with_options(options)
    with strategy.scope():
        w = tf.Variable(tf.zeros((8, 1)))

    @tf.function
    def step(xb, yb):
        def replica(xr, yr):
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum((xr @ w - yr) ** 2) / 64.0  # per-example sum over the global batch
            grad = tape.gradient(loss, w)
            grad = tf.distribute.get_replica_context().all_reduce("SUM", grad)
            w.assign_sub(0.05 * grad)

        strategy.run(replica, args=(xb, yb))

    for _ in range(5):
        for xb, yb in strategy.experimental_distribute_dataset(ds):
            step(xb, yb)
    loss = float(tf.reduce_mean((x @ w - y) ** 2))
else:
    strategy = s.strategy if mode == "setup-split" else tf.distribute.get_strategy()
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
    loss = float(model.fit(x, y, batch_size=64, epochs=5, verbose=0, shuffle=False).history["loss"][-1])

out = {
    "cpus": len(tf.config.list_logical_devices("CPU")),
    "strategy": type(strategy).__name__,
    "replicas": strategy.num_replicas_in_sync,
    "loss": loss,
    "worker": json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {}).get("index"),
}
print("RESULT " + json.dumps(out), flush=True)
