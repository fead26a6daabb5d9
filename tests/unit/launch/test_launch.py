import json
import os
from types import SimpleNamespace

import pytest

from tfgpu.configure.apply import Setup, check_output_layer
from tfgpu.configure.options import make_options
from tfgpu.launch.run import child_environment, worker_environments
from tfgpu.launch.slurm import expand_hostlist, slurm_tf_config
from tfgpu.model.errors import UsageError


def test_slurm_allocation_gives_each_task_its_worker_index():
    env = {"SLURM_JOB_ID": "7", "SLURM_NTASKS": "4", "SLURM_JOB_NODELIST": "gpu[01-02]", "SLURM_PROCID": "3"}
    doc = json.loads(slurm_tf_config(env))
    assert doc["cluster"]["worker"] == ["gpu01:23456", "gpu01:23457", "gpu02:23456", "gpu02:23457"]
    assert doc["task"] == {"type": "worker", "index": 3}
    assert slurm_tf_config({"SLURM_JOB_ID": "7", "SLURM_NTASKS": "1"}) is None
    assert expand_hostlist("a1,b[8-10]") == ["a1", "b8", "b9", "b10"]


def test_child_environment_carries_options_and_the_bootstrap_only_when_needed():
    plain = child_environment(make_options(memory="growth"), {"PATH": "/bin"}, ["1"])
    assert plain["TF_FORCE_GPU_ALLOW_GROWTH"] == "true" and plain["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID"
    assert "TFGPU_SETUP_JSON" not in plain
    coded = child_environment(make_options(precision="auto"), {"PYTHONPATH": "/x"}, None)
    assert json.loads(coded["TFGPU_SETUP_JSON"])["precision"] == "auto" and coded["PYTHONPATH"].endswith("/x")


def test_child_environment_with_a_phases_file_brings_the_bootstrap_and_no_setup():
    env = child_environment(make_options(), {"PYTHONPATH": "/x"}, None, phases_file="/tmp/r/phases.json")
    assert env["TFGPU_PHASES_FILE"] == "/tmp/r/phases.json" and "TFGPU_SETUP_JSON" not in env
    assert env["PYTHONPATH"].endswith(os.pathsep + "/x") and env["TFGPU_PACKAGE_PARENT"]


def test_workers_get_distinct_ports_and_one_gpu_each():
    envs = worker_environments({}, 2, ["0", "1"])
    configs = [json.loads(e["TF_CONFIG"]) for e in envs]
    assert len(set(configs[0]["cluster"]["worker"])) == 2 and [e["CUDA_VISIBLE_DEVICES"] for e in envs] == ["0", "1"]


def test_output_layer_check_under_mixed_precision():
    layer = SimpleNamespace(name="logits", dtype_policy=SimpleNamespace(compute_dtype="bfloat16"))
    model = SimpleNamespace(layers=[layer])
    assert "dtype='float32'" in check_output_layer(model)
    setup = Setup(make_options(), SimpleNamespace(num_replicas_in_sync=1), "mixed_bfloat16")
    assert setup.check_model(model) and Setup(make_options(), None, "float32").check_model(model) is None


# What `srun -N3 -n8 tfgpu run -- python train.py` sets inside a 4-node allocation (sbatch -N4): the
# step's variables (Slurm's srun manual, OUTPUT ENVIRONMENT VARIABLES) differ from the job's.
SLURM_STEP = {
    "SLURM_JOB_ID": "81234",
    "SLURM_JOB_NODELIST": "gpu[01-04]",
    "SLURM_NTASKS": "16",
    "SLURM_TASKS_PER_NODE": "4(x4)",
    "SLURM_STEP_NODELIST": "gpu[01-03]",
    "SLURM_STEP_NUM_TASKS": "8",
    "SLURM_STEP_TASKS_PER_NODE": "3(x2),2",
    "SLURM_PROCID": "6",
    "CUDA_VISIBLE_DEVICES": "0",
}


def test_a_slurm_step_is_laid_out_from_its_own_variables_node_by_node():
    doc = json.loads(slurm_tf_config(SLURM_STEP))
    assert doc["cluster"]["worker"] == [
        "gpu01:23456", "gpu01:23457", "gpu01:23458",
        "gpu02:23456", "gpu02:23457", "gpu02:23458",
        "gpu03:23456", "gpu03:23457",
    ]  # fmt: skip
    assert doc["task"] == {"type": "worker", "index": 6}
    child = child_environment(make_options(), SLURM_STEP, None)
    assert json.loads(child["TF_CONFIG"]) == doc and child["CUDA_VISIBLE_DEVICES"] == "0"  # the binding is kept


def test_a_garbled_slurm_variable_is_a_usage_error_not_a_traceback():
    with pytest.raises(UsageError, match="tasks-per-node"):
        slurm_tf_config({**SLURM_STEP, "SLURM_STEP_TASKS_PER_NODE": "3(y2)"})
    with pytest.raises(UsageError):
        slurm_tf_config({**SLURM_STEP, "SLURM_PROCID": "six"})


def test_a_worker_port_already_taken_on_this_node_is_said_before_the_start():
    import socket

    from tfgpu.launch.run import slurm_port_warning

    with socket.socket() as busy:
        busy.bind(("", 0))
        busy.listen()
        port = busy.getsockname()[1]
        step = {**SLURM_STEP, "SLURM_PROCID": "0", "TFGPU_SLURM_PORT": str(port)}
        warning = slurm_port_warning(step)
        assert warning is not None and f"port {port}" in warning and "TFGPU_SLURM_PORT" in warning
    assert slurm_port_warning({**step, "TF_CONFIG": "{}"}) is None  # the user's own TF_CONFIG is theirs
    assert slurm_port_warning({"PATH": "/bin"}) is None  # not under Slurm
