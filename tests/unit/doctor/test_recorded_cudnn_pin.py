"""The doctor on facts recorded on the H200 (2026-12-04): PyTorch 2.5.1's cuDNN 9.1.0.70 pin beside TF 2.21.

Recorded by scripts/h200_issue29.sh (`tfgpu doctor --json` in a venv where pip had replaced TF's
nvidia-cudnn-cu12 9.3.0.75 with 9.1.0.70); applying the fix asserted here made a Keras CNN train
there (docs/examples/h200-cudnn-torch-pin-2026-12-04c.txt).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tfgpu.doctor.diagnose import diagnose
from tfgpu.doctor.examine import facts_from_document
from tfgpu.model.findings import Severity
from tfgpu.model.unavailable import Unavailable

RECORDING = Path(__file__).parents[2] / "fixtures/doctor/h200-torch-cudnn-pin-2026-12-04.json"
FIX = "/root/venv29/bin/python -m pip install --upgrade 'nvidia-cudnn-cu12>=9.3'"


def _findings():
    return {f.id: f for f in diagnose(facts_from_document(json.loads(RECORDING.read_text()))).findings}


def test_one_cause_is_named_with_tfs_own_words_and_the_pip_fix():
    found = _findings()
    cause = found["cudnn-older-than-build"]
    assert cause.severity is Severity.ERROR and cause.hint == FIX
    assert "'Loaded runtime CuDNN library: 9.1.0 but source was compiled with: 9.3.0'" in cause.detail
    assert "torch 2.5.1 pins nvidia-cudnn-cu12==9.1.0.70" in cause.detail
    # the same cause is not said again with other fixes
    assert "cudnn-runtime-mismatch" not in found
    assert not any(f.id == "cuda-library-version-mismatch" and "cudnn" in f.summary for f in found.values())


def test_the_probes_symptoms_point_to_the_cudnn_fix():
    found = _findings()
    for symptom in ("gpu-op-failed", "keras-training-failed", "xla-compile-failed"):
        assert found[symptom].hint == FIX, symptom
        assert "TF refused its cuDNN" in found[symptom].detail, symptom


def test_without_the_library_facts_the_probes_log_names_the_refusal():
    """A report whose library scan failed still has TF's own line: the runtime finding carries the fix."""
    facts = facts_from_document(json.loads(RECORDING.read_text()))
    blind = dataclasses.replace(facts, libraries=Unavailable("scan failed", "test"))
    found = {f.id: f for f in diagnose(blind).findings}
    assert "cudnn-older-than-build" not in found
    runtime = found["cudnn-runtime-mismatch"]
    assert runtime.summary == "TF loaded cuDNN 9.1.0 but was built with 9.3.0"
    assert runtime.hint == "/root/venv29/bin/python -m pip install --upgrade 'nvidia-cudnn-cu12>=9.3.0'"
    assert found["keras-training-failed"].hint == runtime.hint
