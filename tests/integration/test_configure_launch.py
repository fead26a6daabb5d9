"""tfgpu.setup() and tfgpu run with real tensorflow-cpu in child processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = str(Path(__file__).parents[1] / "fakes" / "scripts" / "train_small.py")


def results(stdout: str) -> list[dict]:
    return [json.loads(line.split("RESULT ", 1)[1]) for line in stdout.splitlines() if "RESULT " in line]


def py(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout)


def test_setup_split_2_trains_under_mirrored_strategy_on_two_logical_cpus():
    (r,) = results(py(SCRIPT, "setup-split").stdout)
    assert r["cpus"] == 2 and r["strategy"] == "MirroredStrategy" and r["replicas"] == 2 and r["loss"] < 1.0


def test_setup_after_tensorflow_initialised_names_the_line_to_move():
    code = "import tensorflow as tf\ntf.ones(1)\nimport tfgpu\ntry:\n    tfgpu.setup(split=2, verbose=False)\nexcept tfgpu.DiagnosticError as e:\n    print('REF', e.reference); print('HINT', e.hint)\n"
    out = py("-c", code).stdout
    assert "REF tf-runtime-already-initialized" in out and "<string>:5" in out


def test_setup_precision_auto_without_gpu_is_float32_with_the_reason():
    code = "import tfgpu\ns = tfgpu.setup(precision='auto', memory='growth', verbose=False)\nprint('POLICY', s.precision_policy); print('WARN', s.warnings)\nprint('STRATEGY', type(s.strategy).__name__)"
    out = py("-c", code).stdout
    assert "POLICY float32" in out and "no GPU" in out and "STRATEGY _DefaultDistributionStrategy" in out


def test_run_applies_code_options_through_the_bootstrap_and_returns_the_exit_status():
    result = py("-m", "tfgpu", "run", "--split", "2", "--", sys.executable, SCRIPT, "plain")
    (r,) = results(result.stdout)
    assert result.returncode == 0 and r["cpus"] == 2
    # issue 19: run says what the unmodified script really gets: the default strategy, 1 replica
    assert r["replicas"] == 1 and "an unmodified script trains on the default strategy (1 replica)" in result.stderr
    assert "[tfgpu run] exit status 0" in result.stderr
    failing = py("-m", "tfgpu", "run", "--", sys.executable, "-c", "import sys; sys.exit(7)")
    assert failing.returncode == 7


def test_run_verdict_on_a_crashed_script_is_the_failure_and_its_cause():
    crash = Path(__file__).parents[1] / "fixtures" / "tf_logs" / "h200-tf-2.21-nvrtc-crash.log"
    code = f"import sys; sys.stderr.write(open({str(crash)!r}).read()); sys.exit(1)"
    result = py("-m", "tfgpu", "run", "--", sys.executable, "-c", code)
    assert result.returncode == 1
    assert "Verdict: The script failed (exit status 1): cuDNN could not load libnvrtc.so.12" in result.stderr
    assert "waits for input" not in result.stderr


def test_run_bootstrap_still_runs_the_users_own_sitecustomize(tmp_path):
    ran = tmp_path / "ran.txt"  # every interpreter that runs the user's sitecustomize adds its pid
    (tmp_path / "sitecustomize.py").write_text(
        f"import os\nwith open({str(ran)!r}, 'a') as f: f.write(f'{{os.getpid()}}\\n')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    show = "import os, sys; print('CHILD', os.getpid(), sys.modules['sitecustomize'].__file__)"
    result = subprocess.run(
        [sys.executable, "-m", "tfgpu", "run", "--split", "2", "--", sys.executable, "-c", show],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    (line,) = [line.split() for line in result.stdout.splitlines() if line.startswith("CHILD ")]
    # the child's sitecustomize is tfgpu's bootstrap (split=2 needs code), and the user's ran in it too
    assert result.returncode == 0 and "bootstrap" in line[2] and line[1] in ran.read_text().split()


def test_run_workers_2_trains_to_the_same_loss_as_one_worker():
    one = results(py("-m", "tfgpu", "run", "--", sys.executable, SCRIPT, "multiworker").stdout)
    two = results(
        py("-m", "tfgpu", "run", "--workers", "2", "--", sys.executable, SCRIPT, "multiworker", timeout=600).stdout
    )
    assert len(one) == 1 and len(two) == 2 and {r["worker"] for r in two} == {0, 1}
    assert all(r["replicas"] == 2 for r in two)
    assert abs(two[0]["loss"] - one[0]["loss"]) < 0.05 * max(one[0]["loss"], 1e-3) + 1e-3


def test_run_workers_warns_before_starting_when_keras_3_fit_cannot_work():
    from tfgpu.launch.cluster import cluster_config
    from tfgpu.launch.run import keras_multiworker_warning

    warning = keras_multiworker_warning(2, {}, None)
    assert warning is not None and "TF_USE_LEGACY_KERAS=1" in warning and "custom training loop" in warning
    assert keras_multiworker_warning(1, {}, None) is None
    assert keras_multiworker_warning(2, {"TF_USE_LEGACY_KERAS": "1"}, None) is None
    slurm = {"SLURM_JOB_ID": "7", "SLURM_NTASKS": "2", "SLURM_JOB_NODELIST": "gpu[01-02]"}
    cluster = cluster_config(slurm)
    assert keras_multiworker_warning(1, slurm, cluster) == warning  # `srun -n2 tfgpu run -- …`: one worker per task


def test_run_without_a_command_is_a_usage_error():
    assert py("-m", "tfgpu", "run").returncode == 2
    assert py("-m", "tfgpu", "run", "--", "no-such-program-tfgpu").returncode == 2


def test_run_applies_the_options_after_a_script_that_imports_keras_first():
    """`import keras` imports TensorFlow inside it: the setup ran there and met a half-imported keras
    ("partially initialized module 'keras'"), crashing the script; it now runs once keras is done."""
    code = (
        "import keras, numpy as np\n"
        "m = keras.Sequential([keras.Input((8, 8, 3)), keras.layers.Conv2D(4, 3), keras.layers.BatchNormalization(),"
        " keras.layers.Flatten(), keras.layers.Dense(2)])\n"
        "m.compile(optimizer='sgd', loss='mse')\n"
        "m.fit(np.zeros((8, 8, 8, 3)), np.zeros((8, 2)), verbose=0)\n"
        "print('PATCHED', getattr(keras.layers.BatchNormalization.call, '_tfgpu_fused', False))\n"
    )
    result = py("-m", "tfgpu", "run", "--batchnorm", "fused", "--", sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "PATCHED True" in result.stdout and "through cuDNN's fused kernel" in result.stderr


def test_determinism_seeds_an_unseeded_script_and_keeps_a_seed_the_user_set():
    """TF refuses unseeded random ops under op determinism, and every Keras initializer is one:
    `tfgpu run --deterministic` crashed an unmodified script."""
    script = (
        "import keras, numpy as np\n"
        "m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])\n"
        "m.compile(optimizer='sgd', loss='mse')\n"
        "h = m.fit(np.ones((16, 8)), np.ones((16, 2)), verbose=0)\n"
        "print('LOSS', h.history['loss'][-1])\n"
    )
    runs = [py("-m", "tfgpu", "run", "--deterministic", "--", sys.executable, "-c", script) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr[-3000:]
    assert "random seed 0 (determinism needs one" in runs[0].stderr
    losses = [next(line for line in r.stdout.splitlines() if line.startswith("LOSS")) for r in runs]
    assert losses[0] == losses[1]  # the point of determinism: the same numbers run to run
    own = "import tensorflow as tf, tfgpu\ntf.random.set_seed(5)\ns = tfgpu.setup(deterministic=True, verbose=False)\nprint('APPLIED', s.applied)\nfrom tensorflow.python.eager import context\nprint('SEED', context.global_seed())\n"
    out = py("-c", own).stdout
    assert "SEED 5" in out and "random seed" not in out


FAKE_GPU = (
    "import tensorflow as tf, keras\n"
    "real = tf.config.list_physical_devices\n"
    "gpu = tf.config.PhysicalDevice('/physical_device:GPU:0', 'GPU')\n"
    "tf.config.list_physical_devices = lambda t=None: real(t) + ([gpu] if t in (None, 'GPU') else [])\n"
    "def jit(**kw):\n"
    "    m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])\n"
    "    m.compile(loss='mse', **kw)\n"
    "    return m.jit_compile\n"
)


def test_xla_off_also_turns_off_keras_3s_auto_jit_compile():
    """TF's JIT switch does not govern Keras 3's jit_compile="auto", which picks XLA whenever TF lists a
    GPU: `setup(xla=False)` left every default-compiled model compiling with XLA (Keras's real resolver,
    with a GPU listed by a stand-in for tf.config.list_physical_devices on this CPU machine)."""
    plain = py("-c", FAKE_GPU + "print('AUTO', jit())\n").stdout
    assert "AUTO True" in plain  # what Keras does on a GPU machine
    code = "import tfgpu\ns = tfgpu.setup(xla=False, verbose=False)\nprint('APPLIED', s.applied)\n" + FAKE_GPU
    out = py("-c", code + "print('AUTO', jit(), 'ASKED', jit(jit_compile=True))\n").stdout
    assert "AUTO False ASKED True" in out and "jit_compile='auto' means no XLA" in out


def test_run_says_before_starting_what_its_options_cannot_do_here():
    """`--gpus auto:1` on a machine without a GPU and `--strategy` on an unmodified script were silent."""
    from tests.fakes.cli import mock_environment, run_cli
    from tests.fakes.nvml import FakeNvml

    env = mock_environment(nvml=FakeNvml.no_driver())
    result = run_cli("run", "--gpus", "auto:1", "--", sys.executable, "-c", "print('RAN')", env=env)
    assert result.exit_status == 0 and "RAN" in result.stdout
    assert "tfgpu run: warning: gpus='auto:1': no NVIDIA GPU is visible" in result.stderr
    assert "TensorFlow will use the CPU" in result.stderr
    env = mock_environment(nvml=FakeNvml.single_gpu())
    result = run_cli("run", "--strategy", "mirrored", "--", sys.executable, "-c", "pass", env=env)
    assert "--strategy mirrored: an unmodified script trains on the default strategy" in result.stderr
    assert "tfgpu.setup(strategy='mirrored')" in result.stderr


def test_xla_on_makes_keras_3s_auto_jit_compile_xla_even_on_the_cpu():
    """`tfgpu run --xla on` set only TF's auto-clustering flag, which a Keras 3 model never reads."""
    code = (
        "import keras\n"
        "m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])\n"
        "m.compile(loss='mse')\n"
        "print('AUTO', m.jit_compile)\n"
    )
    plain = py("-c", code)
    assert "AUTO False" in plain.stdout  # Keras's own choice on a CPU
    result = py("-m", "tfgpu", "run", "--xla", "on", "--", sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "AUTO True" in result.stdout and "jit_compile='auto' means XLA" in result.stderr


def test_run_says_what_it_sets_through_the_environment():
    result = py("-m", "tfgpu", "run", "--memory", "growth", "--", sys.executable, "-c", "print('ok')")
    assert result.returncode == 0 and result.stdout == "ok\n"
    assert "tfgpu run: TF_FORCE_GPU_ALLOW_GROWTH=true" in result.stderr


@pytest.mark.timeout(600)
def test_two_tasks_of_a_recorded_slurm_step_train_together_through_tfgpu_run():
    """`srun -N1 -n2 tfgpu run -- python train.py` as Slurm starts it: two tasks, one per SLURM_PROCID."""
    import socket

    with socket.socket() as probe:  # a free base port for the two workers (the next one is used too)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    step = {
        "SLURM_JOB_ID": "81234",
        "SLURM_JOB_NODELIST": "localhost",
        "SLURM_NTASKS": "2",
        "SLURM_STEP_NODELIST": "localhost",
        "SLURM_STEP_NUM_TASKS": "2",
        "SLURM_STEP_TASKS_PER_NODE": "2",
        "TFGPU_SLURM_PORT": str(port),
        "TF_CPP_MIN_LOG_LEVEL": "2",
    }
    command = [sys.executable, "-m", "tfgpu", "run", "--", sys.executable, SCRIPT, "multiworker"]
    tasks = [
        subprocess.Popen(
            command,
            env={**os.environ, **step, "SLURM_PROCID": str(rank)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    outputs = [task.communicate(timeout=540) for task in tasks]
    assert all(task.returncode == 0 for task in tasks), [err[-1500:] for _, err in outputs]
    found = [r for out, _ in outputs for r in results(out)]
    assert sorted(r["worker"] for r in found) == [0, 1] and all(r["replicas"] == 2 for r in found)
    assert all("all 2 workers reached, one cluster" in err for _, err in outputs)


@pytest.mark.timeout(120)
def test_workers_with_different_host_lists_refuse_before_the_script_starts():
    """Two `tfgpu run` on one host list each, one with a third host: both say so and neither trains."""
    import socket

    socks = [socket.socket() for _ in range(3)]
    for sock in socks:
        sock.bind(("127.0.0.1", 0))
    hosts = [f"localhost:{sock.getsockname()[1]}" for sock in socks]
    for sock in socks:
        sock.close()
    lists = [",".join(hosts[:2]), ",".join(hosts)]  # worker 1 was given a third worker
    command = [sys.executable, "-m", "tfgpu", "run", "--", sys.executable, "-c", "print('TRAINED')"]
    tasks = [
        subprocess.Popen(
            command,
            env={
                **os.environ,
                "TFGPU_WORKER_HOSTS": lists[index],
                "TFGPU_TASK_INDEX": str(index),
                "TFGPU_RENDEZVOUS_SECONDS": "8",
            },
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index in (0, 1)
    ]
    outputs = [task.communicate(timeout=100) for task in tasks]
    assert [task.returncode for task in tasks] == [2, 2], [err[-1500:] for _, err in outputs]
    assert not any("TRAINED" in out for out, _ in outputs)
    assert all("hold another cluster or another task index" in err for _, err in outputs), outputs
