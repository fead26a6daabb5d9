"""TF_CONFIG for MultiWorkerMirroredStrategy from where the job runs: Slurm, or a list of hosts.

Kubernetes runs multi-worker TensorFlow as an Indexed Job (alone, or as a JobSet's replicated
job; the Kubeflow operator's TFJob is being dropped, kubeflow/trainer#2699): every pod gets
JOB_COMPLETION_INDEX and a stable DNS name through a headless Service
(https://kubernetes.io/docs/tasks/job/job-with-pod-to-pod-communication/; a JobSet names its pods
``<jobset>-<replicated job>-<job index>-<pod index>.<subdomain>``). The manifest then sets one
variable the same in every pod, and ``tfgpu run`` writes each pod's TF_CONFIG:

    TFGPU_WORKER_HOSTS   the workers in index order, comma-separated, each ``host`` or ``host:port``
                         (port TFGPU_WORKER_PORT, default 23456); one ``[a-b]`` range per entry is
                         expanded: ``train-workers-0-[0-3].train`` is four hosts
    TFGPU_TASK_INDEX     this worker's index; default JOB_COMPLETION_INDEX (Kubernetes)

A TF_CONFIG the user set is theirs: nothing here replaces it. Slurm comes first (launch/slurm.py).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tfgpu.launch.slurm import DEFAULT_PORT, slurm_tf_config
from tfgpu.launch.slurm import PORT_VARIABLE as SLURM_PORT_VARIABLE
from tfgpu.model.errors import UsageError

HOSTS_VARIABLE = "TFGPU_WORKER_HOSTS"
INDEX_VARIABLES = ("TFGPU_TASK_INDEX", "JOB_COMPLETION_INDEX")
PORT_VARIABLE = "TFGPU_WORKER_PORT"
MAX_WORKERS = 4096
"""More workers than this in one list is a typo in a range (``[0-40000]``), not a cluster."""
RESOLVED_AT_MOST = 64
"""Other workers' names looked up before the start: enough to catch a missing Service or a typo, not a thread per worker of a large job."""
RESOLVE_SECONDS = 5.0
"""How long the whole DNS check may take before the training starts: a name the cluster's DNS does
not know yet (a headless Service not created, a pod not scheduled) is said, not waited for."""

_RANGE = re.compile(r"^([^\[\]]*)\[([0-9]+)-([0-9]+)\]([^\[\]]*)$")
_HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$")


@dataclass(frozen=True)
class ClusterConfig:
    """A worker's TF_CONFIG and the variable that moves its ports (said when this worker's port is taken)."""

    tf_config: str
    port_variable: str


def cluster_config(environ: Mapping[str, str]) -> ClusterConfig | None:
    """This worker's TF_CONFIG: the user's own stays (None), then Slurm's, then the host list's.

    Raises:
        UsageError: a scheduler or host-list variable that cannot give a TF_CONFIG.
    """
    if "TF_CONFIG" in environ:
        return None
    slurm = slurm_tf_config(environ)
    if slurm:
        return ClusterConfig(slurm, SLURM_PORT_VARIABLE)
    hosts = host_list_tf_config(environ)
    return ClusterConfig(hosts, PORT_VARIABLE) if hosts else None


def host_list_tf_config(environ: Mapping[str, str]) -> str | None:
    """TF_CONFIG from TFGPU_WORKER_HOSTS and this worker's index, or None when no host list is given.

    Raises:
        UsageError: a malformed list, a missing or out-of-range index, or a bad port.
    """
    spec = environ.get(HOSTS_VARIABLE, "").strip()
    if not spec:
        return None
    try:
        port = int(environ.get(PORT_VARIABLE) or DEFAULT_PORT)
        if not 1 <= port <= 65535:
            raise ValueError(f"{PORT_VARIABLE}={port} is not a TCP port")
        workers = expand_hosts(spec, port)
    except ValueError as exc:
        raise UsageError(f"{HOSTS_VARIABLE} cannot give a TF_CONFIG: {exc}") from None
    named = next(((name, environ[name]) for name in INDEX_VARIABLES if environ.get(name, "").strip()), None)
    if named is None:
        raise UsageError(
            f"{HOSTS_VARIABLE} lists {len(workers)} workers but not which one this is: set TFGPU_TASK_INDEX "
            "(Kubernetes Indexed Jobs set JOB_COMPLETION_INDEX themselves)"
        )
    name, value = named
    if not value.strip().isdigit() or int(value) >= len(workers):
        raise UsageError(f"{name}={value!r} is not a worker index of {HOSTS_VARIABLE} (0 to {len(workers) - 1})")
    return json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": int(value)}})


def expand_hosts(spec: str, port: int) -> list[str]:
    """``host[:port]`` entries, each with at most one ``[a-b]`` range, as ``host:port`` addresses in order.

    Examples:
        >>> expand_hosts("train-0-[0-2].train,10.0.0.9:2222", 23456)
        ['train-0-0.train:23456', 'train-0-1.train:23456', 'train-0-2.train:23456', '10.0.0.9:2222']

    Raises:
        ValueError: an entry that is not a host name, an address or a range of them.
    """
    out: list[str] = []
    for entry in (e.strip() for e in spec.split(",")):
        if not entry:
            continue
        host, own_port = _split_port(entry)
        match = _RANGE.match(host)
        names = [host]
        if match:
            prefix, low, high, suffix = match.groups()
            if int(high) < int(low) or int(high) - int(low) >= MAX_WORKERS:
                raise ValueError(f"{entry!r}: the range {low}-{high} is empty or too long")
            names = [f"{prefix}{n:0{len(low)}d}{suffix}" for n in range(int(low), int(high) + 1)]
        for name in names:
            if not _HOST.match(name) or len(name) > 253:
                raise ValueError(f"{entry!r} is not a host name or address")
            out.append(f"{name}:{own_port or port}")
        if len(out) > MAX_WORKERS:
            raise ValueError(f"more than {MAX_WORKERS} workers")
    if not out:
        raise ValueError("no host in the list")
    return out


def _split_port(entry: str) -> tuple[str, int | None]:
    host, sep, port = entry.rpartition(":")
    if not sep or "]" in port or (":" in host and not host.startswith("[")):  # no port, or a bare IPv6 address
        return entry, None
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{entry!r}: {port!r} is not a TCP port")
    return host, int(port)


def unresolved_workers(tf_config: str, timeout_seconds: float = RESOLVE_SECONDS) -> list[str]:
    """The other workers' host names that DNS does not resolve, checked together within ``timeout_seconds``.

    The other workers' ports cannot be tried yet (each opens its port when its script creates the
    strategy), but a name that does not resolve fails every worker minutes later, inside gRPC. A name
    still being looked up when the time is up is reported as unresolved too.
    """
    try:
        doc = json.loads(tf_config)
        workers: Sequence[str] = doc["cluster"]["worker"]
        me = int(doc["task"]["index"])
    except (ValueError, KeyError, TypeError):
        return []
    hosts = list(dict.fromkeys(str(w).rsplit(":", 1)[0].strip("[]") for i, w in enumerate(workers) if i != me))
    hosts = hosts[:RESOLVED_AT_MOST]
    found: set[str] = set()

    def resolve(host: str) -> None:
        try:
            socket.getaddrinfo(host, None)
            found.add(host)
        except (OSError, UnicodeError):
            pass

    threads = [threading.Thread(target=resolve, args=(h,), daemon=True) for h in hosts]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_seconds
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    return [h for h in hosts if h not in found]
