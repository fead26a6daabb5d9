"""tfgpu.setup(batchnorm="fused") with real tensorflow-cpu: Keras's results, through cuDNN's kernel's API."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfgpu.configure.options import make_options
from tfgpu.model.errors import DiagnosticError

SCRIPT = str(Path(__file__).parents[1] / "fakes" / "scripts" / "fused_batchnorm_check.py")


def test_fused_batch_normalization_gives_keras_results_and_trains_in_both_precisions():
    run = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True, timeout=300)
    (line,) = [x for x in run.stdout.splitlines() if x.startswith("RESULT ")]
    r = json.loads(line.split(" ", 1)[1])
    assert any("fused kernel" in a for a in r["applied"]) and r["patched"] == "call"
    # same normalised output, moving mean and (biased) moving variance, train and inference
    assert r["train_diff"] < 1e-4 and r["mean_diff"] < 1e-5 and r["variance_diff"] < 1e-4 and r["infer_diff"] < 1e-4
    assert math.isclose(r["fused_loss"], r["loss"], rel_tol=1e-3)  # the same training, step for step
    assert math.isfinite(r["bf16_loss"])


def test_batchnorm_option_is_checked():
    assert make_options(batchnorm="fused").batchnorm == "fused"
    with pytest.raises(DiagnosticError) as info:
        make_options(batchnorm="yes")
    assert info.value.reference == "setup-invalid-option" and '"fused"' in info.value.hint


def test_under_tf_use_legacy_keras_the_option_says_tf_keras_fuses_already():
    code = "import tfgpu\ns = tfgpu.setup(batchnorm='fused', verbose=False)\nprint('WARN', s.warnings, 'APPLIED', s.applied)\n"
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert "tf.keras fuses already" in run.stdout and "fused kernel" not in run.stdout.split("APPLIED", 1)[1]
