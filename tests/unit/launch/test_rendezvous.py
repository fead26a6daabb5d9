"""Workers that reach each other and compare clusters before training (threads on localhost stand in for hosts)."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from tfgpu.launch.rendezvous import Agreement, Rendezvous, cluster_digest, rendezvous, rendezvous_seconds


def _ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _config(workers: list[str], index: int) -> str:
    return json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}})


def _together(configs: list[str], seconds: float) -> list[Rendezvous]:
    results: list[Rendezvous | None] = [None] * len(configs)

    def one(i: int) -> None:
        results[i] = rendezvous(configs[i], seconds)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(configs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 10)
    assert all(r is not None for r in results)
    return results  # type: ignore[return-value]


@pytest.mark.timeout(60)
def test_three_workers_with_one_list_agree():
    workers = [f"localhost:{p}" for p in _ports(3)]
    results = _together([_config(workers, i) for i in range(3)], 20)
    assert [r.agreement for r in results] == [Agreement.AGREED] * 3


@pytest.mark.timeout(60)
def test_a_worker_with_another_order_is_named_by_the_others():
    workers = [f"localhost:{p}" for p in _ports(2)]
    swapped = [workers[0], workers[1]][::-1]
    # worker 1 believes the list is reversed: it listens on workers[0]'s port as its own index 1
    results = _together([_config(workers, 0), _config(swapped, 0)], 5)
    assert Agreement.AGREED not in {r.agreement for r in results}


@pytest.mark.timeout(60)
def test_a_peer_that_claims_this_workers_index_is_named():
    """On another host, a worker given a copied TFGPU_TASK_INDEX answers at its own address with our index."""
    ports = _ports(2)
    workers = [f"localhost:{p}" for p in ports]
    digest = cluster_digest({"worker": workers})
    with socket.create_server(("", ports[1])) as peer:

        def answer() -> None:
            conn, _ = peer.accept()
            with conn:
                conn.recv(4096)
                conn.sendall(json.dumps({"index": 0, "cluster": digest}).encode() + b"\n")
                conn.recv(1)

        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        result = rendezvous(_config(workers, 0), 2.0)
    assert result.agreement is Agreement.DISAGREED and result.disagreeing == (workers[1],)


@pytest.mark.timeout(30)
def test_a_worker_that_never_starts_is_named_when_the_time_is_up():
    workers = [f"localhost:{p}" for p in _ports(2)]
    result = rendezvous(_config(workers, 0), 1.5)
    assert result.agreement is Agreement.UNREACHED and result.unreached == (workers[1],)


@pytest.mark.timeout(30)
def test_a_taken_port_is_said():
    with socket.create_server(("", 0)) as taken:
        port = taken.getsockname()[1]
        result = rendezvous(_config([f"localhost:{port}", "localhost:1"], 0), 1.0)
    assert result.agreement is Agreement.PORT_TAKEN


def test_the_digest_and_the_time_setting():
    assert cluster_digest({"worker": ["a:1"]}) != cluster_digest({"worker": ["a:2"]})
    assert rendezvous_seconds({}) == 300.0
    assert rendezvous_seconds({"TFGPU_RENDEZVOUS_SECONDS": "0"}) == 0.0
    assert rendezvous_seconds({"TFGPU_RENDEZVOUS_SECONDS": "soon"}) == 300.0
