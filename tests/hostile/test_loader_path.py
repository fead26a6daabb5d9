"""Issue 25, class 2: the loader splits LD_LIBRARY_PATH at ``;`` as well as ``:`` (glibc), so a line naming a
directory with either in it adds other, relative directories; tfgpu models the loader and never prints one."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tests.fakes.machines import tf_gpu_site

from tfgpu.system.libraries import search_order


@pytest.mark.timeout(120)
def test_env_never_prints_a_line_the_loader_would_split(tmp_path):
    site = tmp_path / "we;x" / "site-packages"  # PYTHONPATH splits at ":" only; the loader at ";" too
    site.mkdir(parents=True)
    tf_gpu_site(site)  # TF 2.21's wheels: cuSOLVER is outside libtensorflow_framework's RUNPATH
    env = dict(os.environ, PYTHONPATH=str(site))
    env.pop("LD_LIBRARY_PATH", None)
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "env"], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert result.returncode == 0
    assert "we;x" not in result.stdout  # no export line that would search "x/site-packages/..." relative to the cwd
    assert "no line can point at" in result.stderr and "we;x" in result.stderr


def test_the_search_order_reads_ld_library_path_as_the_loader_does():
    dirs = [d.path for d in search_order(":/opt/a;/opt/b", (), ())]
    assert dirs[:3] == [".", "/opt/a", "/opt/b"]  # a leading separator searches the working directory first
