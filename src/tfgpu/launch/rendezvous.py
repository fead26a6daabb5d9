"""Before a multi-worker job trains, its workers reach each other and check that they hold one cluster.

A worker whose TF_CONFIG lists other hosts, ports or order than its peers', or claims another's
index, does not fail: MultiWorkerMirroredStrategy waits for peers that never come, and the job
hangs until the scheduler kills it. So each ``tfgpu run`` that wrote TF_CONFIG (Slurm or a host
list) first listens on its own worker address (the port TF's server takes once the script creates
the strategy) while it connects to every other worker's. One exchange is a line of JSON each way,
``{"index": i, "cluster": digest}``; a worker stops listening once every peer has exchanged with it
and it with every peer, so no one closes a door another still has to pass. The client closes each
connection first, leaving no TIME_WAIT on the port TF binds next.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

SECONDS_VARIABLE = "TFGPU_RENDEZVOUS_SECONDS"
DEFAULT_SECONDS = 300.0
"""How long a worker waits for the others: pods and Slurm tasks start minutes apart; 0 turns the check off."""
LINE_BYTES = 4096
CONNECT_SECONDS = 2.0
RETRY_SECONDS = 0.5


class Agreement(Enum):
    """How the exchange ended."""

    AGREED = "agreed"
    DISAGREED = "disagreed"
    UNREACHED = "unreached"
    PORT_TAKEN = "port taken"


@dataclass(frozen=True)
class Rendezvous:
    """The exchange's outcome: the peers that hold another cluster or another index, and those never heard from."""

    agreement: Agreement
    disagreeing: tuple[str, ...] = ()
    unreached: tuple[str, ...] = ()
    seconds: float = 0.0


def rendezvous_seconds(environ: Mapping[str, str]) -> float:
    """TFGPU_RENDEZVOUS_SECONDS, else the default; a value that is not a number >= 0 is the default."""
    try:
        value = float(environ.get(SECONDS_VARIABLE, DEFAULT_SECONDS))
    except ValueError:
        return DEFAULT_SECONDS
    return value if value >= 0 else DEFAULT_SECONDS


def cluster_digest(cluster: Mapping[str, object]) -> str:
    """The cluster spec's fingerprint: the same hosts, ports and order give the same digest.

    Examples:
        >>> cluster_digest({"worker": ["a:1", "b:1"]}) == cluster_digest({"worker": ["a:1", "b:1"]})
        True
        >>> cluster_digest({"worker": ["a:1", "b:1"]}) == cluster_digest({"worker": ["b:1", "a:1"]})
        False
    """
    return hashlib.sha256(json.dumps(cluster, sort_keys=True).encode()).hexdigest()[:16]


def _address(entry: str) -> tuple[str, int]:
    host, _, port = entry.rpartition(":")
    return host.strip("[]"), int(port)


@dataclass
class _Exchange:
    """What one worker heard, from its clients (served) and as a client (reached)."""

    me: int
    digest: str
    served: dict[int, str] = field(default_factory=dict)
    reached: dict[int, str] = field(default_factory=dict)
    wrong_index: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def line(self) -> bytes:
        return json.dumps({"index": self.me, "cluster": self.digest}).encode() + b"\n"


def _read_line(conn: socket.socket) -> dict[str, object] | None:
    data = b""
    while b"\n" not in data and len(data) < LINE_BYTES:
        chunk = conn.recv(LINE_BYTES - len(data))
        if not chunk:
            break
        data += chunk
    try:
        doc = json.loads(data.split(b"\n", 1)[0].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("index"), int) else None


def _serve(listener: socket.socket, exchange: _Exchange, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            continue
        except OSError:
            return
        with conn:
            conn.settimeout(CONNECT_SECONDS)
            with contextlib.suppress(OSError):
                peer = _read_line(conn)
                if peer is None:
                    continue
                conn.sendall(exchange.line())
                with exchange.lock:
                    exchange.served[int(str(peer["index"]))] = str(peer.get("cluster"))
                conn.recv(1)  # the client closes first


def _reach(index: int, entry: str, exchange: _Exchange, deadline: float) -> None:
    host, port = _address(entry)
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=CONNECT_SECONDS) as conn:
                conn.settimeout(CONNECT_SECONDS)
                conn.sendall(exchange.line())
                peer = _read_line(conn)
            if peer is not None:
                with exchange.lock:
                    exchange.reached[index] = str(peer.get("cluster"))
                    if peer["index"] != index:
                        exchange.wrong_index.add(index)
                return
        except OSError:
            pass
        time.sleep(RETRY_SECONDS)


def rendezvous(tf_config: str, timeout_seconds: float) -> Rendezvous:
    """Reach every other worker of ``tf_config`` within ``timeout_seconds`` and compare clusters.

    Raises:
        ValueError: ``tf_config`` is not a worker's TF_CONFIG.
    """
    start = time.monotonic()
    doc = json.loads(tf_config)
    workers = [str(w) for w in doc["cluster"]["worker"]]
    me = int(doc["task"]["index"])
    exchange = _Exchange(me, cluster_digest(doc["cluster"]))
    peers = {i: w for i, w in enumerate(workers) if i != me}
    try:
        listener = socket.create_server(("", _address(workers[me])[1]), reuse_port=False)
    except OSError:
        return Rendezvous(Agreement.PORT_TAKEN, seconds=time.monotonic() - start)
    listener.settimeout(0.2)
    stop = threading.Event()
    server = threading.Thread(target=_serve, args=(listener, exchange, stop), name="tfgpu-rendezvous", daemon=True)
    server.start()
    deadline = start + timeout_seconds
    clients = [
        threading.Thread(target=_reach, args=(i, w, exchange, deadline), name=f"tfgpu-reach-{i}", daemon=True)
        for i, w in peers.items()
    ]
    for client in clients:
        client.start()
    for client in clients:
        client.join(max(0.0, deadline - time.monotonic()))
    while time.monotonic() < deadline:
        with exchange.lock:
            if set(exchange.served) >= set(peers):
                break
        time.sleep(0.1)
    stop.set()
    server.join(timeout=1.0)
    listener.close()
    with exchange.lock:
        heard = {**exchange.served, **exchange.reached}
        disagreeing = sorted(i for i, digest in heard.items() if digest != exchange.digest or i in exchange.wrong_index)
        unreached = sorted(i for i in peers if i not in exchange.reached or i not in exchange.served)
    seconds = time.monotonic() - start
    if disagreeing:
        return Rendezvous(Agreement.DISAGREED, tuple(peers.get(i, str(i)) for i in disagreeing), seconds=seconds)
    if unreached:
        return Rendezvous(Agreement.UNREACHED, unreached=tuple(peers[i] for i in unreached), seconds=seconds)
    return Rendezvous(Agreement.AGREED, seconds=seconds)
