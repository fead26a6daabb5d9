"""TF_CONFIG for MultiWorkerMirroredStrategy from a Slurm allocation (``srun tfgpu run -- ...``).

Each Slurm task becomes one worker: the node list gives the cluster, SLURM_PROCID the task
index, and every worker listens on the same port (TFGPU_SLURM_PORT, default 23456). This is
what tf.distribute.cluster_resolver.SlurmClusterResolver computes in-process; the launcher
needs it before Python starts, for scripts that read TF_CONFIG.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

DEFAULT_PORT = 23456


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


def slurm_tf_config(environ: Mapping[str, str]) -> str | None:
    """The TF_CONFIG of this Slurm task, or None outside a multi-task allocation."""
    if "SLURM_JOB_ID" not in environ or int(environ.get("SLURM_NTASKS", "1")) < 2:
        return None
    nodes = expand_hostlist(environ.get("SLURM_JOB_NODELIST") or environ.get("SLURM_NODELIST", ""))
    tasks = int(environ["SLURM_NTASKS"])
    per_node = max(1, tasks // max(1, len(nodes)))
    port = int(environ.get("TFGPU_SLURM_PORT", DEFAULT_PORT))
    workers = [f"{node}:{port + slot}" for node in nodes for slot in range(per_node)][:tasks]
    return json.dumps(
        {"cluster": {"worker": workers}, "task": {"type": "worker", "index": int(environ.get("SLURM_PROCID", "0"))}}
    )
