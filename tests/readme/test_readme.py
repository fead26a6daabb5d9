"""Every command and snippet of README.md does what the README says, on this (CPU) machine.

The README is the newcomer's first contact: when one of its commands stops working or its
printed examples stop matching the code, one of these tests fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text()
ENV = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def block_after(heading: str, language: str = "text") -> str:
    rest = README[README.index(heading) :]
    match = re.search(rf"```{language}\n(.*?)```", rest, flags=re.S)
    assert match, f"no {language} block after {heading!r}"
    return match.group(1)


def tfgpu(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tfgpu", *args], capture_output=True, text=True, timeout=300, cwd=ROOT, env=ENV, **kwargs
    )


def table_commands() -> list[str]:
    return sorted(set(re.findall(r"^\| `(?:eval \"\$\()?tfgpu (\w+)", README, flags=re.M)))


def test_the_command_table_names_every_command_and_each_has_a_help_page_with_its_exit_statuses():
    from tfgpu.cli.main import COMMANDS

    assert table_commands() == sorted(COMMANDS)
    for command in COMMANDS:
        result = tfgpu(command, "--help")
        assert result.returncode == 0 and "exit status" in result.stdout, command


def test_the_doctor_example_is_what_the_code_prints_for_its_saved_facts():
    shown = block_after("## What it prints")
    source = re.search(r"`tfgpu doctor --from (\S+)`", README[README.index("## What it prints") :]).group(1)
    result = tfgpu("doctor", "--from", source)
    assert result.returncode == 3 and result.stdout == shown


def test_the_explain_example_is_what_the_code_prints_for_its_log():
    shown = block_after("## Explain a log")
    command = re.search(r"`tfgpu explain (--no-facts \S+)`", README).group(1).split()
    result = tfgpu("explain", *command)
    assert result.returncode == 3 and result.stdout == shown


def test_the_recipe_and_the_ways_to_keep_the_fix_run(tmp_path):
    recipe = block_after("### TensorFlow does not see my GPU", "bash")
    lines = [line.split("#")[0].strip() for line in recipe.strip().splitlines()]
    assert lines == ["tfgpu doctor", 'eval "$(tfgpu env)"', "tfgpu doctor"]
    bin_dir = Path(sys.executable).parent
    env = {**ENV, "PATH": f"{bin_dir}{os.pathsep}{ENV['PATH']}"}
    for line in lines:
        result = subprocess.run(
            ["bash", "-c", line], capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env
        )
        assert result.returncode in (0, 3) and "Traceback" not in result.stderr, line  # 3: this machine has no GPU
    activate = tmp_path / "activate"
    activate.write_text("# a venv's activate script\n")
    assert subprocess.run(["bash", "-c", f"tfgpu env >> {activate}"], env=env, timeout=120).returncode == 0
    assert subprocess.run(["bash", "-n", str(activate)]).returncode == 0  # still a valid script
    write = subprocess.run(
        ["bash", "-c", f"tfgpu doctor --fix-env --write {tmp_path}/tfgpu-env.sh"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert write.returncode == 0 and ("nothing to write" in write.stderr or (tmp_path / "tfgpu-env.sh").exists())


def test_the_setup_snippet_trains_on_this_machine(tmp_path):
    snippet = block_after("## Configure, run, monitor", "python")
    prelude = (
        "import tensorflow as tf\n"
        "def build_model():\n"
        "    m = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])\n"
        "    m.compile(optimizer='sgd', loss='mse')\n"
        "    return m\n"
        "ds = tf.data.Dataset.from_tensor_slices((tf.random.normal([512, 4]), tf.random.normal([512, 2])))\n"
    )
    script = tmp_path / "snippet.py"
    script.write_text(prelude + snippet.replace("import tfgpu\n", "import tfgpu\n", 1) + "print('TRAINED')\n")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=ENV)
    assert result.returncode == 0 and "TRAINED" in result.stdout, result.stderr[-2000:]


@pytest.mark.timeout(600)
def test_the_install_command_works_in_a_fresh_copy(tmp_path):
    install = block_after("## Set up", "bash").strip()
    assert install.startswith("python3 -m venv .venv") and install.endswith("tfgpu doctor --exit-zero")
    copy = tmp_path / "clone"
    shutil.copytree(
        ROOT, copy, ignore=shutil.ignore_patterns(".venv", ".git", ".gpu-stack", "*.egg-info", "build", "__pycache__")
    )
    result = subprocess.run(["bash", "-c", install], capture_output=True, text=True, timeout=580, cwd=copy)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "tfgpu doctor" in result.stdout and "Traceback" not in result.stderr
