"""tfgpu explain in real processes: --run, a large log in bounded memory, the recorded H200 log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _tfgpu(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfgpu", *args], capture_output=True, text=True, timeout=300, **kwargs)


def test_explain_run_shows_the_output_and_explains_it():
    code = "import sys; print('failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected', file=sys.stderr); sys.exit(1)"
    result = _tfgpu("explain", "--no-facts", "--run", "--", sys.executable, "-c", code)
    assert result.returncode == 3
    assert "CUDA_ERROR_NO_DEVICE" in result.stderr and "exited with status 1" in result.stderr
    assert "cuInit found no CUDA device" in result.stdout


def test_explain_h200_wheel_layout_log_with_this_machines_facts():
    result = _tfgpu("explain", "--json", str(FIXTURES / "tf_logs/h200-tf-2.21-wheel-layout.log"))
    doc = json.loads(result.stdout)
    assert doc["problems"][0]["id"] == "cannot-dlopen-gpu-libraries"
    assert {h["id"] for h in doc["harmless"]} >= {
        "benign-onednn",
        "benign-cpu-instructions",
        "benign-absl-initializelog",
    }


def test_large_log_is_streamed_in_bounded_memory(tmp_path):
    noise = (
        "2024-03-11 02:00:00.294704: I tensorflow/core/common_runtime/executor.cc:1197] step 123 loss 0.25 " * 2 + "\n"
    )
    log = tmp_path / "big.log"
    with log.open("w") as fh:
        for _ in range(150_000):  # ~30 MB
            fh.write(noise)
        fh.write("OOM when allocating tensor with shape[600,120,1503]\n")
    # The child reports its own peak as VmHWM: ru_maxrss keeps the high-water mark of the forked
    # pytest process across exec (Linux), and RUSAGE_CHILDREN covers earlier tests' TF processes.
    code = (
        "import sys\nfrom tfgpu.cli.main import main\n"
        f"status = main(['explain', '--json', '--no-facts', {str(log)!r}])\n"
        "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM'))\n"
        "print('PEAK_KIB', hwm.split()[1], file=sys.stderr)\nsys.exit(status)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    peak_kib = int(result.stderr.rsplit("PEAK_KIB", 1)[1].split()[0])
    doc = json.loads(result.stdout)
    assert doc["problems"][0]["id"] == "oom-allocating-tensor" and doc["bytes_read"] == log.stat().st_size
    assert peak_kib < 120 * 1024  # KiB: well below the 30 MB log held twice, plus the interpreter
