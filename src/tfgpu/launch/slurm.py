"""TF_CONFIG for MultiWorkerMirroredStrategy from a Slurm allocation (``srun tfgpu run -- ...``).

Each Slurm task becomes one worker: the step's node list and tasks per node give the cluster,
SLURM_PROCID the task index, and the tasks of one node listen on consecutive ports from
TFGPU_SLURM_PORT (default 23456). tf.distribute.cluster_resolver.SlurmClusterResolver computes
the same in-process from the step variables (and sets CUDA_VISIBLE_DEVICES itself, which undoes
``srun --gpu-bind``); the launcher needs it before Python starts, for scripts that read TF_CONFIG.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Mapping

from tfgpu.model.errors import UsageError

DEFAULT_PORT = 23456
PORT_VARIABLE = "TFGPU_SLURM_PORT"


def expand_hostlist(hostlist: str) -> list[str]:
    """Expand Slurm's compressed host list.

    Examples:
        >>> expand_hostlist("gpu[01-03,07],login1")
        ['gpu01', 'gpu02', 'gpu03', 'gpu07', 'login1']
    """
    hosts: list[str] = []
    for match in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?(?:,|$)", hostlist):
        prefix, ranges = match.group(1), match.group(2)
        if not prefix and not ranges:
            continue
        if ranges is None:
            hosts.append(prefix)
            continue
        for part in ranges.split(","):
            low, _, high = part.partition("-")
            width = len(low)
            for number in range(int(low), int(high or low) + 1):
                hosts.append(f"{prefix}{number:0{width}d}")
    return hosts


def tasks_per_node(spec: str) -> list[int]:
    """Expand Slurm's tasks-per-node list (SLURM_STEP_TASKS_PER_NODE, SLURM_TASKS_PER_NODE).

    Examples:
        >>> tasks_per_node("3(x2),2")
        [3, 3, 2]

    Raises:
        ValueError: not in Slurm's format.
    """
    counts: list[int] = []
    for part in spec.split(","):
        match = _TASKS.fullmatch(part.strip())
        if not match:
            raise ValueError(f"{spec!r} is not a Slurm tasks-per-node list")
        counts += [int(match.group(1))] * int(match.group(2) or 1)
    return counts


_TASKS = re.compile(r"([0-9]+)(?:\(x([0-9]+)\))?")


def slurm_tf_config(environ: Mapping[str, str]) -> str | None:
    """The TF_CONFIG of this Slurm task, or None outside a multi-task step or where TF_CONFIG is set already.

    The step's own variables come first (``srun`` inside an allocation sets SLURM_STEP_NODELIST,
    SLURM_STEP_NUM_TASKS and SLURM_STEP_TASKS_PER_NODE, which may differ from the job's), then the
    job's; workers are laid out node by node with each node's own task count (``3(x2),2``: three
    on each of the first two nodes, two on the third), as Slurm's default block distribution numbers
    them. CUDA_VISIBLE_DEVICES is left as the scheduler bound it.

    Raises:
        UsageError: a Slurm variable that is not in Slurm's format.
    """
    if "SLURM_JOB_ID" not in environ or "TF_CONFIG" in environ:  # the user's own TF_CONFIG is theirs
        return None
    get = environ.get
    try:
        tasks = int(get("SLURM_STEP_NUM_TASKS") or get("SLURM_NTASKS") or "1")
        if tasks < 2:
            return None
        nodes = expand_hostlist(get("SLURM_STEP_NODELIST") or get("SLURM_JOB_NODELIST") or get("SLURM_NODELIST", ""))
        per_node_spec = get("SLURM_STEP_TASKS_PER_NODE") or get("SLURM_TASKS_PER_NODE")
        per_node = (
            tasks_per_node(per_node_spec) if per_node_spec else [max(1, tasks // max(1, len(nodes)))] * len(nodes)
        )
        port = int(get(PORT_VARIABLE, DEFAULT_PORT))
        index = int(get("SLURM_PROCID", "0"))
    except ValueError as exc:
        raise UsageError(f"the Slurm environment cannot give a TF_CONFIG: {exc}") from None
    workers = [f"{node}:{port + slot}" for node, count in zip(nodes, per_node, strict=False) for slot in range(count)]
    return json.dumps({"cluster": {"worker": workers[:tasks]}, "task": {"type": "worker", "index": index}})


def own_port_taken(tf_config: str) -> int | None:
    """This task's TF_CONFIG port when something on this host already listens there, else None.

    Checked before the training starts: a second job on the same node with the same base port
    makes TensorFlow's gRPC server fail to bind minutes later, in every worker, with a message
    that does not say why.
    """
    try:
        doc = json.loads(tf_config)
        address = doc["cluster"]["worker"][int(doc["task"]["index"])]
        port = int(str(address).rsplit(":", 1)[1])
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    with socket.socket() as probe:
        try:
            probe.bind(("", port))
        except OSError:
            return port
    return None
