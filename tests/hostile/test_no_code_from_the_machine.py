"""Issue 25, class 1: the doctor never runs code from the machine it inspects. A library's version is read
from its name, its wheel or its install's header; the file is never loaded into tfgpu's process, where its
constructor could abort the doctor (exit 134, no report) or _exit(0) it (an empty "healthy" report)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.fakes.cli import tfgpu_child
from tests.fakes.machines import tf_gpu_site

CONSTRUCTORS = {
    "abort": "#include <stdlib.h>\n__attribute__((constructor)) static void c(void) { abort(); }\n",
    "exit0": "#include <unistd.h>\n__attribute__((constructor)) static void c(void) { _exit(0); }\n",
}


def planted(tmp_path: Path, behaviour: str) -> Path:
    """A conda-like prefix whose libcudnn.so.9 does ``behaviour`` as soon as it is loaded."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    assert compiler, "a C compiler builds the planted library (Debian's gcc is on every machine of this project)"
    prefix = tmp_path / "env"
    (prefix / "lib").mkdir(parents=True)
    (prefix / "include").mkdir()
    source = tmp_path / "c.c"
    source.write_text(CONSTRUCTORS[behaviour])
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(prefix / "lib" / "libcudnn.so.9"), str(source)], check=True)
    header = "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n"
    (prefix / "include" / "cudnn_version.h").write_text(header)
    return prefix


@pytest.mark.parametrize("behaviour", sorted(CONSTRUCTORS))
def test_doctor_static_never_loads_a_library_it_inspects(tmp_path, behaviour):
    prefix = planted(tmp_path, behaviour)
    site = tmp_path / "site-packages"  # TF 2.21's GPU wheels without cuDNN: the doctor looks for it elsewhere
    site.mkdir()
    tf_gpu_site(site, drop=("nvidia/cudnn/",))
    env = dict(os.environ, CONDA_PREFIX=str(prefix), PYTHONPATH=str(site))
    result = tfgpu_child("doctor", "--static", "--json", env=env)
    assert result.returncode in (0, 3), (result.returncode, result.stderr[-2000:])
    doc = json.loads(result.stdout)  # a whole report, not an empty one
    assert doc["command"] == "doctor" and doc["findings"]
    assert str(prefix / "lib" / "libcudnn.so.9") in result.stdout
    assert "9.1.0" in result.stdout  # the version, read from the install's header
