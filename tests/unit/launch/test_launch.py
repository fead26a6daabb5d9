import json
import os
from types import SimpleNamespace

import pytest

from tfgpu.configure.apply import Setup, check_output_layer
from tfgpu.configure.options import make_options
from tfgpu.launch.cluster import cluster_config
from tfgpu.launch.run import child_environment, worker_environments
from tfgpu.launch.slurm import expand_hostlist, slurm_tf_config
from tfgpu.model.errors import UsageError


def _tf_config(environ):
    found = cluster_config(environ)
    return found.tf_config if found else None


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
    child = child_environment(make_options(), SLURM_STEP, None, cluster=cluster_config(SLURM_STEP))
    assert json.loads(child["TF_CONFIG"]) == doc and child["CUDA_VISIBLE_DEVICES"] == "0"  # the binding is kept


def test_a_garbled_slurm_variable_is_a_usage_error_not_a_traceback():
    with pytest.raises(UsageError, match="tasks-per-node"):
        slurm_tf_config({**SLURM_STEP, "SLURM_STEP_TASKS_PER_NODE": "3(y2)"})
    with pytest.raises(UsageError):
        slurm_tf_config({**SLURM_STEP, "SLURM_PROCID": "six"})


def test_a_worker_port_already_taken_on_this_node_is_said_before_the_start():
    import socket

    from tfgpu.launch.run import cluster_warnings

    with socket.socket() as busy:
        busy.bind(("", 0))
        busy.listen()
        port = busy.getsockname()[1]
        step = {**SLURM_STEP, "SLURM_PROCID": "0", "TFGPU_SLURM_PORT": str(port)}
        warnings = cluster_warnings(cluster_config(step))
        assert any(f"port {port}" in w and "TFGPU_SLURM_PORT" in w for w in warnings)
    assert cluster_warnings(cluster_config({**step, "TF_CONFIG": "{}"})) == []  # the user's own TF_CONFIG is theirs
    assert cluster_warnings(cluster_config({"PATH": "/bin"})) == []  # not under Slurm, no host list


def test_a_host_list_gives_each_kubernetes_indexed_pod_its_worker():

    pods = {"TFGPU_WORKER_HOSTS": "train-workers-0-[0-2].train, 10.0.0.9:2222", "JOB_COMPLETION_INDEX": "1"}
    doc = json.loads(_tf_config(pods))
    assert doc["cluster"]["worker"] == [
        "train-workers-0-0.train:23456",
        "train-workers-0-1.train:23456",
        "train-workers-0-2.train:23456",
        "10.0.0.9:2222",
    ]
    assert doc["task"] == {"type": "worker", "index": 1}
    mine = json.loads(_tf_config({**pods, "TFGPU_TASK_INDEX": "3", "TFGPU_WORKER_PORT": "2000"}))
    assert mine["task"]["index"] == 3 and mine["cluster"]["worker"][0].endswith(":2000")
    assert _tf_config({**pods, "TF_CONFIG": "{}"}) is None  # the user's own stays
    assert json.loads(_tf_config({**pods, **SLURM_STEP}))["task"]["index"] == 6  # Slurm's first
    child = child_environment(make_options(), pods, None, cluster=cluster_config(pods))
    assert json.loads(child["TF_CONFIG"]) == doc


@pytest.mark.parametrize(
    ("variables", "said"),
    [
        ({"TFGPU_WORKER_HOSTS": "a,b"}, "not which one this is"),
        ({"TFGPU_WORKER_HOSTS": "a,b", "JOB_COMPLETION_INDEX": "2"}, "0 to 1"),
        ({"TFGPU_WORKER_HOSTS": "a,b", "TFGPU_TASK_INDEX": "-1"}, "not a worker index"),
        ({"TFGPU_WORKER_HOSTS": "a;rm -rf /", "TFGPU_TASK_INDEX": "0"}, "not a host name"),
        ({"TFGPU_WORKER_HOSTS": "a:99999", "TFGPU_TASK_INDEX": "0"}, "not a TCP port"),
        ({"TFGPU_WORKER_HOSTS": "w[0-99999]", "TFGPU_TASK_INDEX": "0"}, "too long"),
        ({"TFGPU_WORKER_HOSTS": " , ", "TFGPU_TASK_INDEX": "0"}, "no host"),
    ],
)
def test_a_host_list_that_cannot_give_a_tf_config_is_a_usage_error(variables, said):

    with pytest.raises(UsageError, match=said):
        _tf_config(variables)


@pytest.mark.timeout(30)
def test_workers_whose_names_do_not_resolve_are_named_before_the_start():
    from tfgpu.launch.cluster import unresolved_workers

    config = json.dumps(
        {"cluster": {"worker": ["localhost:1", "127.0.0.1:2", "nowhere.invalid:3"]}, "task": {"index": 0}}
    )
    assert unresolved_workers(config, timeout_seconds=10) == ["nowhere.invalid"]  # RFC 6761: never resolves
    assert unresolved_workers("not json") == []


def test_a_host_list_workers_port_taken_names_the_host_lists_port_variable():
    import socket

    from tfgpu.launch.run import cluster_warnings

    with socket.socket() as busy:
        busy.bind(("", 0))
        busy.listen()
        port = busy.getsockname()[1]
        pods = {"TFGPU_WORKER_HOSTS": f"localhost:{port},127.0.0.1", "TFGPU_TASK_INDEX": "0", "SLURM_JOB_ID": "9"}
        (warning,) = cluster_warnings(cluster_config(pods))  # a one-task Slurm job: the host list gives the TF_CONFIG
    assert f"port {port}" in warning and "TFGPU_WORKER_PORT=" in warning
