"""Issue 25, classes 4 and 5: a file the machine may have made hostile is read only when it is a regular
file, never blocking on a FIFO, and bounded by the bytes read, not by what stat says (0 for /dev/zero)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tfgpu.configure.flavour import KerasFlavour, keras_flavour
from tfgpu.system.files import read_regular
from tfgpu.system.packages import collect_packages
from tfgpu.system.tf_install import BUILD_INFO, collect_tensorflow
from tfgpu.xlacache.key import cpu_model


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge"])
def test_doctor_from_refuses_what_is_not_a_report_file_at_once(tmp_path, kind):
    if kind == "dev-zero":
        path = "/dev/zero"  # doctor --from /dev/zero grew to 2.9 GB
    elif kind == "fifo":
        path = str(tmp_path / "report.json")
        os.mkfifo(path)  # no writer: a plain open() blocks forever
    else:
        path = str(tmp_path / "report.json")
        with open(path, "wb") as handle:
            handle.truncate(17 * 2**20)
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "doctor", "--from", path],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and "cannot read" in result.stderr, result.stderr[-500:]
    assert "Traceback" not in result.stderr


def test_read_regular_reads_a_file_within_its_bound_and_refuses_one_past_it(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, 10) == b"x" * 10
    with pytest.raises(OSError, match="larger than 9 bytes"):
        read_regular(path, 9)


@pytest.mark.timeout(30)
def test_a_fifo_for_keras_json_or_cpuinfo_blocks_nothing(tmp_path):
    os.mkfifo(tmp_path / "keras.json")
    assert keras_flavour({"KERAS_HOME": str(tmp_path)}) is KerasFlavour.TENSORFLOW
    os.mkfifo(tmp_path / "cpuinfo")
    assert cpu_model(tmp_path / "cpuinfo")  # the machine's architecture alone


@pytest.mark.timeout(60)
def test_a_fifo_or_device_for_metadata_build_info_or_setup_blocks_nothing(tmp_path):
    site = tmp_path / "site-packages"
    (site / "tensorflow-2.21.0.dist-info").mkdir(parents=True)
    os.mkfifo(site / "tensorflow-2.21.0.dist-info" / "METADATA")
    (site / "keras-3.15.1.dist-info").mkdir()
    os.symlink("/dev/zero", site / "keras-3.15.1.dist-info" / "METADATA")
    (site / "nvidia_cudnn_cu12-9.3.0.75.dist-info").mkdir()
    (site / "nvidia_cudnn_cu12-9.3.0.75.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: nvidia-cudnn-cu12\nVersion: 9.3.0.75\n\n" + "x" * 10**6
    )
    packages = collect_packages([str(site)])
    assert [(d.name, d.version) for d in packages.distributions] == [("nvidia-cudnn-cu12", "9.3.0.75")]
    build = site / "tensorflow" / BUILD_INFO
    build.parent.mkdir(parents=True)
    (site / "tensorflow" / "__init__.py").write_text("")
    os.mkfifo(build)
    tf = collect_tensorflow(packages, search_path=[str(site)])
    assert tf is not None and "not a regular file" in str(tf.build)
