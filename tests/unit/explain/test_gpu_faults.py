"""explain on real TF 2.21 / Keras 3.15 logs of known faults, recorded on the lent GPU machine and without one (issue 28).

scripts/h200_issue28.sh made them on an H100 80GB (2026-12-06; set k, faults that need no GPU, scripts/cpu_issue28.sh
on the development machine, which has none); each log's category was written in
benchmarks/corpus/gpu-faults.json before the log existed. These are TF's own words of today, which the
public corpus (mostly TF 1.x and early 2.x) has few of.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfgpu.explain.explain import explain_lines
from tfgpu.model.findings import Severity

ROOT = Path(__file__).resolve().parents[3]
FAULTS = json.loads((ROOT / "benchmarks" / "corpus" / "gpu-faults.json").read_text())["faults"]
LOGS = ROOT / "tests" / "fixtures" / "tf_logs" / "gpu-faults"


CAPPED_LIKE_HELD = "fraction-oom"
"""The one recorded miss: a per_process_gpu_memory_fraction cap leaves TF's device line as small as another
process holding the GPU does, and a TF 2 log prints nothing else that tells them apart."""


NAN_WITHOUT_ITS_CAUSE = "labels-out-of-range"
"""The other recorded miss (set o, on the H100): labels outside the classes give NaN on the GPU, not an error, and the
log shows only "loss: nan"; explain names the NaN loss, whose cause text puts such labels first, not the labels."""


UNNAMED_LIBRARY = "nvjitlink-old"
"""The third recorded miss (set t, on the H100): CUDA 12.1's libnvJitLink first on LD_LIBRARY_PATH makes cuSPARSE 12.5
fail to load, and TF 2.21 logs only "Cannot dlopen some GPU libraries", naming none; from the log alone that is the
wheel layout's missing directory as much as an older library ahead of the wheels, and explain names the first."""


@pytest.mark.parametrize("name", sorted(set(FAULTS) - {CAPPED_LIKE_HELD, NAN_WITHOUT_ITS_CAUSE, UNNAMED_LIBRARY}))
def test_each_recorded_fault_is_named_as_registered(name):
    fault = FAULTS[name]
    explanation = explain_lines((LOGS / f"{name}.log").read_text().splitlines())
    errors = [p for p in explanation.problems if p.severity is Severity.ERROR]
    if fault["benign"]:
        assert not errors, [p.id for p in errors]
        assert fault["category"] in {h.category for h in explanation.harmless}
    else:
        assert explanation.problems and explanation.problems[0].category == fault["category"]


def test_tfs_device_taking_little_of_the_gpu_is_another_process_holding_it():
    """TF 2.21 gave its device 1047 MB of an 80 GB H100 that a second TF process held (holder-nvidia-smi.txt):
    the run that fit is warned, the run that did not is told whose memory it was."""
    held = (LOGS / "holder-nvidia-smi.txt").read_text()
    assert "79283 MiB, 81559 MiB" in held
    fit = explain_lines((LOGS / "oom-gpu-busy.log").read_text().splitlines())
    assert [(p.id, p.severity) for p in fit.problems] == [("gpu-mostly-held-at-start", Severity.WARNING)]
    failed = explain_lines((LOGS / "oom-gpu-busy-large.log").read_text().splitlines())
    assert failed.problems[0].id == "oom-gpu-held-at-start"


def test_a_configured_memory_limit_is_not_read_as_another_processs_memory():
    line = (
        "I0000 00:00:1796533159.197013    3735 gpu_device.cc:2043] Created device /job:localhost/replica:0/task:0/"
        "device:GPU:0 with {mb} MB memory:  -> device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:00:06.0"
    )
    oom = "Allocator (GPU_0_bfc) ran out of memory trying to allocate 256.00MiB (rounded to 268435456)requested by op"
    limited = explain_lines([line.format(mb=4096), oom])  # memory_limit=4096: the user's own cap
    assert limited.problems[0].category == "oom"
    whole = explain_lines([line.format(mb=78752), oom])  # TF took the whole GPU: its own model did not fit
    assert whole.problems[0].category == "oom"
    held = explain_lines([line.format(mb=1047), oom])
    assert held.problems[0].category == "oom_gpu_busy"


def test_a_pinned_op_is_told_by_the_device_types_its_kernels_have():
    """TF 2.21's eager message lists the op's kernel device types: [CPU] alone is an op without a GPU kernel
    (recorded), a list with GPU and a GPU index missing from the available devices is an index that does not exist."""
    message = (
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: Could not satisfy device specification "
        "'/job:localhost/replica:0/task:0/device:GPU:{index}'. enable_soft_placement=0. Supported device types "
        "[{types}]. All available devices [/job:localhost/replica:0/task:0/device:GPU:0, "
        "/job:localhost/replica:0/task:0/device:CPU:0]."
    )
    cpu_only = explain_lines([message.format(index=0, types="CPU")])
    assert cpu_only.problems[0].category == "op_without_gpu_kernel"
    beyond = explain_lines([message.format(index=1, types="GPU, CPU")])
    assert beyond.problems[0].category == "invalid_device_ordinal"


def test_a_scripts_own_memory_cap_is_named_beside_another_process_holding_the_gpu():
    """TF 2.21 with per_process_gpu_memory_fraction=0.05 created a 4053 MB device on the 80 GB H100, as a GPU
    another process held would: explain's first reading is the held GPU, and it names the cap as the other reading."""
    explanation = explain_lines((LOGS / f"{CAPPED_LIKE_HELD}.log").read_text().splitlines())
    first, second = explanation.problems[:2]
    assert (first.category, second.category) == ("oom_gpu_busy", FAULTS[CAPPED_LIKE_HELD]["category"])
    assert "per_process_gpu_memory_fraction" in first.cause
    assert "per_process_gpu_memory_fraction" in first.fix


def test_labels_outside_the_classes_are_an_error_on_the_cpu_and_a_nan_loss_on_the_gpu():
    """Set n's CPU twin names the labels; set o's GPU run shows only the NaN, which explain names as such."""
    cpu = explain_lines((LOGS / "labels-out-of-range-cpu.log").read_text().splitlines())
    assert cpu.problems[0].id == "labels-outside-classes"
    gpu = explain_lines((LOGS / f"{NAN_WITHOUT_ITS_CAUSE}.log").read_text().splitlines())
    assert [p.id for p in gpu.problems] == ["loss-is-nan"] and gpu.problems[0].severity is Severity.ERROR
    assert "labels outside the model's classes" in gpu.problems[0].cause


def test_a_library_tf_does_not_name_is_left_to_the_doctor_to_find():
    """Set t's older nvJitLink: the log names no library, so explain says that TF registered no GPU for a library it
    could not load, and that `tfgpu doctor` finds which one; it does not guess the library."""
    explanation = explain_lines((LOGS / f"{UNNAMED_LIBRARY}.log").read_text().splitlines())
    first = explanation.problems[0]
    assert first.id == "cannot-dlopen-gpu-libraries"
    assert "tfgpu doctor" in first.fix
    assert "nvJitLink" not in first.title
