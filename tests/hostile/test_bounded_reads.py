"""The command runner against programs that flood, linger or hide: bounded time and memory (issue 18, item 5)."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

from tests.fakes.machines import gpu_machine, lib_dir

from tfgpu.doctor.collect import collect_facts
from tfgpu.system.runner import MAX_OUTPUT_BYTES, SubprocessRunner


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)
    return str(path)


def test_a_daemonised_grandchild_holding_the_pipes_does_not_hold_the_doctor(tmp_path):
    smi = script(tmp_path, "nvidia-smi", "setsid sleep 60 >/dev/null 2>&1 & disown; setsid sleep 60 &\necho fake-smi\n")
    result = SubprocessRunner().run((smi,), 10)  # waiting on the grandchildren's pipes would end in a timeout
    assert not result.timed_out and result.returncode == 0 and result.stdout == "fake-smi\n"
    subprocess.run(["pkill", "-f", "^sleep 60$"], check=False)  # the test's own stragglers


def test_an_endless_or_huge_output_is_cut_and_the_deadline_holds(tmp_path):
    flood = script(tmp_path, "flood", "head -c 300000000 /dev/zero | tr '\\0' 'a'\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = SubprocessRunner().run((flood,), 60)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert len(result.stdout) == MAX_OUTPUT_BYTES and grown_kib < 100_000
    endless = script(tmp_path, "endless", "yes\n")
    assert SubprocessRunner().run((endless,), 2).timed_out  # endless: only the deadline ends it


def test_glob_characters_in_a_site_packages_path_do_not_hide_libraries(tmp_path):
    m = gpu_machine(tmp_path / "sp[1]*?")
    m.environ = {**m.environ, "LD_LIBRARY_PATH": f"{lib_dir(m, 'cusolver')}:{lib_dir(m, 'cuda_nvrtc')}"}
    libs = collect_facts(m.sources()).libraries
    assert all(lib.loaded is not None for lib in libs.libraries if lib.required), [
        lib.soname for lib in libs.libraries if lib.required and lib.loaded is None
    ]
    assert libs.get("cusolver").loaded.path.startswith(str(tmp_path / "sp[1]*?"))
