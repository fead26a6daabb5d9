"""No line tfgpu prints for pasting (a doctor fix, `tfgpu env`) can run a command or set another variable."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.fakes.machines import gpu_machine

from tfgpu.doctor.collect import collect_facts
from tfgpu.knowledge.fixes import fix_env_lines

METAS = [";", "&&", "|", "$(", "`", "'", '"', "\\", "\n", " ", "$", ">", "<", "*", "#", "!", "~", "{", "}"]


def pasteable(hint: str) -> str:
    """The part of a hint meant for the shell: up to the prose tfgpu adds after three spaces."""
    return hint.split("   ", 1)[0]


def effect_of(line: str, workdir: Path) -> tuple[set[str], str, int]:
    """The variables a pasted line sets in a clean bash, what it printed, and its status."""
    script = f"{line}\nenv -0 > {workdir}/env.out"
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        cwd=workdir,
        env={"PATH": os.environ["PATH"], "HOME": str(workdir)},
        capture_output=True,
        text=True,
        timeout=20,
    )
    names = {item.split("=", 1)[0] for item in (workdir / "env.out").read_text().split("\0") if item}
    return names, result.stdout + result.stderr, result.returncode


def baseline(workdir: Path) -> set[str]:
    return effect_of(":", workdir)[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    prefix=st.sampled_from(["GPU-a", "0", "0,1", "MIG-1/2/3", ""]),
    payload=st.lists(
        st.sampled_from([*METAS, "touch pwned", "id", "X=1", "GPU-b", ",", ",bad"]), min_size=1, max_size=6
    ),
)
@example(prefix="0,GPU-a", payload=[";", "touch pwned", ",bad"])  # issue 18's case, via the invalid-entry fix
def test_cuda_visible_devices_fixes_set_only_that_variable(tmp_path, prefix, payload):
    m = gpu_machine(Path(tempfile.mkdtemp(dir=tmp_path)))
    m.environ = {**m.environ, "CUDA_VISIBLE_DEVICES": prefix + "".join(payload)}
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    base = baseline(work)
    for finding in m.diagnose().findings:
        line = pasteable(finding.hint)
        if not line.startswith(("export ", "unset ")):
            continue
        names, output, status = effect_of(line, work)
        assert status == 0 and output == "", (line, output)
        assert names - base <= {line.split()[1].split("=")[0]}, line
        assert not (work / "pwned").exists(), line


def test_tfgpu_env_quotes_hostile_site_packages_paths(tmp_path):
    hostile = "we ird$(touch pwned)`touch pwned2`&x'y\"z"  # a ";" is never offered: see test_loader_path.py
    m = gpu_machine(tmp_path / hostile)
    (line,) = fix_env_lines(collect_facts(m.sources()))
    work = tmp_path / "work"
    work.mkdir()
    script = f'{line}\nprintf %s "$LD_LIBRARY_PATH" > ldpath'
    subprocess.run(["bash", "--norc", "-c", script], cwd=work, env={"PATH": os.environ["PATH"]}, check=True, timeout=20)
    assert not (work / "pwned").exists() and not (work / "pwned2").exists()
    assert (work / "ldpath").read_text().split(":")[0].endswith(f"{hostile}/site-packages/nvidia/cusolver/lib")


def test_a_directory_with_control_characters_is_never_offered(tmp_path):
    m = gpu_machine(tmp_path / "a\x1b]0;owned\x07b")
    assert fix_env_lines(collect_facts(m.sources())) == []


def test_a_file_name_with_escape_sequences_reaches_stderr_escaped(tmp_path):
    name = str(tmp_path / "\x1b]0;owned\x07\x1b[31mred.log")
    for args in (("explain", "--no-facts", name), ("doctor", "--from", name), ("bench", "--compare", name)):
        result = subprocess.run(
            [sys.executable, "-m", "tfgpu", *args], capture_output=True, text=True, timeout=60, check=False
        )
        assert result.returncode == 2 and "\x1b" not in result.stderr and "\\x1b" in result.stderr, args
