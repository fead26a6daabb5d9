"""The probe's Keras training check with real tensorflow-cpu (on the CPU: the GPU runs are in tests/gpu)."""

from __future__ import annotations

from tests.unit.probe.test_worker_shaping import load_worker


def test_check_training_fits_the_tiny_cnn_in_both_policies_and_respects_the_xla_budget():
    import tensorflow as tf

    worker = load_worker()
    results = worker.check_training(tf, "/CPU:0", "mixed_bfloat16", xla_budget=120.0)
    assert [(r["jit_compile"], r["policy"]) for r in results] == [
        (False, "float32"),
        (False, "mixed_bfloat16"),
        ("auto", "mixed_bfloat16"),
        ("auto", "float32"),
    ]
    assert all(r["ok"] and r["first_epoch_seconds"] > 0 and r["warm_step_seconds"] > 0 for r in results)
    assert tf.keras.mixed_precision.global_policy().name == "float32"  # back to the default for whatever runs next
    starved = worker.check_training(tf, "/CPU:0", "mixed_bfloat16", xla_budget=0.0)
    assert starved[-1]["timed_out"] and len(starved) == 3  # the second XLA run is skipped
