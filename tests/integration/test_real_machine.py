"""The doctor on this real machine with the real tensorflow-cpu wheel installed (no GPU, no driver)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.fakes.elf import write_elf

from tfgpu.model.errors import NvmlUnavailable
from tfgpu.nvml.client import PynvmlClient
from tfgpu.system.elf import read_dynamic, read_symbols
from tfgpu.system.tf_install import find_tensorflow_dir


def _tfgpu(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfgpu", *args], capture_output=True, text=True, timeout=120)


def test_doctor_json_on_this_machine_finds_the_cpu_build():
    result = _tfgpu("doctor", "--json")
    assert result.returncode == 3, result.stderr
    doc = json.loads(result.stdout)
    ids = {f["id"] for f in doc["findings"]}
    assert "tf-built-without-cuda" in ids
    assert doc["facts"]["tensorflow"]["distribution"] == "tensorflow-cpu"
    assert doc["facts"]["tensorflow"]["build"]["is_cuda_build"] is False


def test_doctor_text_on_this_machine_has_all_sections_and_no_traceback():
    result = _tfgpu("doctor")
    for section in ("Hardware & driver", "CUDA libraries", "TensorFlow", "Environment"):
        assert section in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_real_nvml_binding_without_driver_reports_library_not_found():
    client = PynvmlClient()
    try:
        count = client.device_count()
    except NvmlUnavailable as exc:
        assert exc.kind in ("NVMLError_LibraryNotFound", "NVMLError_DriverNotLoaded")
        assert exc.reason
    else:
        pytest.skip(f"this machine has an NVIDIA driver ({count} GPUs)")


@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf (binutils) not installed")
def test_elf_parser_agrees_with_readelf_on_tensorflow_and_on_the_fake_writer(tmp_path):
    tf_dir = find_tensorflow_dir()
    assert tf_dir is not None
    candidates = [
        tf_dir / "libtensorflow_cc.so.2",
        write_elf(tmp_path / "libf.so", soname="libf.so", runpath="$ORIGIN/a:/b"),
    ]
    for lib in candidates:
        out = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True, timeout=60).stdout
        line = next((ln for ln in out.splitlines() if "(RUNPATH)" in ln), "")
        expected = list(dict.fromkeys(line.split("[", 1)[1].rstrip("]").split(":"))) if line else []
        assert list(read_dynamic(str(lib)).runpath) == expected


def _nm(lib: Path, *flags: str) -> list[str]:
    out = subprocess.run(["nm", "-D", *flags, str(lib)], capture_output=True, text=True, timeout=120, check=True).stdout
    return [line.split()[-1] for line in out.splitlines() if line.strip()]


@pytest.mark.timeout(300)
@pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) not installed")
def test_symbol_reader_agrees_with_nm_on_tensorflow(tmp_path):
    """libtensorflow_framework has a GNU hash table only (no DT_HASH) and version requirements on libstdc++ and glibc."""
    tf_dir = find_tensorflow_dir()
    assert tf_dir is not None
    lib = tf_dir / "libtensorflow_framework.so.2"
    symbols = read_symbols(str(lib))
    assert symbols.defined == {name.split("@")[0] for name in _nm(lib, "--defined-only")}
    versioned = {name.split("@")[0] for name in _nm(lib, "--undefined-only") if "@" in name}
    assert set().union(*symbols.needed.values()) == versioned and "libc.so.6" in symbols.needed


def test_what_a_real_library_binds_from_libc_is_what_libc_defines():
    """The loader check's own question, on two real libraries: every symbol libstdc++ binds from libc.so.6 is there."""
    libc = next(
        (
            p
            for p in ("/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/usr/lib64/libc.so.6")
            if Path(p).exists()
        ),
        None,
    )
    cxx = next((str(p) for p in Path(libc or "/").parent.glob("libstdc++.so.6")), None)
    if libc is None or cxx is None:
        pytest.skip("no glibc libc.so.6 and libstdc++.so.6 at the usual x86-64 paths")
    binds = read_symbols(cxx).needed["libc.so.6"]
    assert len(binds) > 50 and binds <= read_symbols(libc).defined


def test_import_and_help_load_neither_tensorflow_nor_pynvml():
    code = (
        "import sys, tfgpu\n"
        "from tfgpu.cli.main import main\n"
        "try:\n    main(['doctor', '--help'])\nexcept SystemExit:\n    pass\n"
        "bad = [m for m in ('tensorflow', 'pynvml', 'keras') if m in sys.modules]\n"
        "print('LOADED', bad)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "LOADED []" in result.stdout, result.stdout + result.stderr


def test_wheel_installs_into_a_clean_venv_and_runs(tmp_path):
    repo = Path(__file__).parents[2]
    wheel_dir = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheel_dir), str(repo)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    wheel = next(wheel_dir.glob("tfgpu-*.whl"))
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheel)], check=True, timeout=600, capture_output=True)
    version = subprocess.run([str(venv / "bin" / "tfgpu"), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("tfgpu ")
    doctor = subprocess.run(
        [str(venv / "bin" / "tfgpu"), "doctor", "--json"], capture_output=True, text=True, timeout=120
    )
    assert doctor.returncode == 3, doctor.stderr
    ids = {f["id"] for f in json.loads(doctor.stdout)["findings"]}
    assert "tensorflow-not-installed" in ids


def test_doctor_python_flag_diagnoses_an_interpreter_without_tensorflow():
    base = Path(sys.base_prefix) / "bin" / "python3"
    result = _tfgpu("doctor", "--json", "--python", str(base))
    ids = {f["id"] for f in json.loads(result.stdout)["findings"]}
    # issue 19: said once (the probe's "no TensorFlow" repeated the static finding with the same fix)
    assert "tensorflow-not-installed" in ids and "tensorflow-import-failed" not in ids
    assert json.loads(result.stdout)["facts"]["host"]["python_executable"] == str(base)


def test_doctor_python_flag_rejects_a_non_interpreter(tmp_path):
    result = _tfgpu("doctor", "--python", str(tmp_path / "nope"))
    assert result.returncode == 2 and "not an executable" in result.stderr


def test_tfgpu_env_prints_nothing_to_eval_when_no_fix_is_needed():
    result = _tfgpu("env")
    assert result.returncode == 0 and result.stdout == ""
