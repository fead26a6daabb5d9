"""Run the user's command with the options applied (``tfgpu run``).

It samples the GPUs while the command runs, forwards signals and returns its exit status;
``workers=N`` starts N local workers with TF_CONFIG for MultiWorkerMirroredStrategy over loopback.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import IO, TextIO

from tfgpu.configure.environ import environment_for, needs_code
from tfgpu.configure.flavour import KerasFlavour, keras_flavour, options_beyond_flavour
from tfgpu.configure.gpus import resolve_gpus
from tfgpu.configure.options import GpuOptions
from tfgpu.explain.explain import explain_scanner
from tfgpu.launch.cluster import ClusterConfig, cluster_config, unresolved_workers
from tfgpu.launch.output import MAX_EXCEPTION_CHARS, OutputWatch, pump
from tfgpu.launch.phase_recorder import VARIABLE as PHASES_VARIABLE
from tfgpu.launch.rendezvous import SECONDS_VARIABLE, Agreement, rendezvous, rendezvous_seconds
from tfgpu.launch.slurm import own_port_taken
from tfgpu.model.errors import NvmlUnavailable, UsageError
from tfgpu.model.facts import Facts
from tfgpu.model.findings import Severity
from tfgpu.model.phases import PhaseTimes
from tfgpu.model.run import RunReport
from tfgpu.model.samples import JudgedFrom, Verdict
from tfgpu.model.xla_cache import CachePlan
from tfgpu.monitor.judging import judge_window
from tfgpu.monitor.phases import MAX_RECORD_BYTES, parse_record, phase_times, tracing_seconds
from tfgpu.monitor.sampler import Sampler
from tfgpu.monitor.verdict import RunFacts
from tfgpu.nvml.client import NvmlClient
from tfgpu.system.files import read_regular_or_none
from tfgpu.system.procs import become_subreaper, children
from tfgpu.system.runner import CommandRunner
from tfgpu.xlacache.plan import plan_for_interpreter, training_python
from tfgpu.xlacache.session import Observation, conclude, observe

BOOTSTRAP_DIR = str(Path(__file__).parent / "bootstrap")
PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])


MAX_PROBLEMS_SHOWN = 2


def child_environment(
    options: GpuOptions,
    environ: Mapping[str, str],
    visible: Sequence[str] | None,
    cache: CachePlan | None = None,
    phases_file: str | None = None,
    cluster: ClusterConfig | None = None,
) -> dict[str, str]:
    """The child's environment: the caller's, the option and XLA cache variables, the cluster's TF_CONFIG, the bootstrap.

    The bootstrap enters when the options need code or the phases are recorded (``phases_file``).
    """
    env = dict(environ)
    env.update(environment_for(options, visible))
    env.update(dict(cache.variables) if cache else {})
    if cluster:
        env["TF_CONFIG"] = cluster.tf_config
    if visible is not None:
        env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
    if phases_file:
        env[PHASES_VARIABLE] = phases_file
    if needs_code(options):
        env["TFGPU_SETUP_JSON"] = json.dumps(options.to_dict())
    if needs_code(options) or phases_file:
        env["TFGPU_PACKAGE_PARENT"] = PACKAGE_PARENT  # found by the bootstrap's finder, never put on sys.path
        env["PYTHONPATH"] = os.pathsep.join(p for p in (BOOTSTRAP_DIR, env.get("PYTHONPATH", "")) if p)
    return env


def free_ports(count: int) -> list[int]:
    """Ports on 127.0.0.1 that were free a moment ago (the workers bind them right after)."""
    sockets, ports = [], []
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sockets.append(sock)
        ports.append(sock.getsockname()[1])
    for sock in sockets:
        sock.close()
    return ports


def worker_environments(base: Mapping[str, str], workers: int, gpus: Sequence[str] | None) -> list[dict[str, str]]:
    """TF_CONFIG (and one GPU each when there are enough) for N local workers.

    Examples:
        >>> envs = worker_environments({}, 2, None)
        >>> [json.loads(e["TF_CONFIG"])["task"] for e in envs]
        [{'type': 'worker', 'index': 0}, {'type': 'worker', 'index': 1}]
    """
    cluster = [f"127.0.0.1:{port}" for port in free_ports(workers)]
    out = []
    for index in range(workers):
        env = dict(base)
        env["TF_CONFIG"] = json.dumps({"cluster": {"worker": cluster}, "task": {"type": "worker", "index": index}})
        if gpus is not None and len(gpus) >= workers:
            env["CUDA_VISIBLE_DEVICES"] = gpus[index]
        out.append(env)
    return out


TRAINED_SECONDS = 60.0


def trained(watch: OutputWatch, since: float | None, busy_seconds: float) -> bool:
    """Whether a failed run trained long enough for the GPU figures to mean something.

    Keras's output says it (an epoch finished); without Keras epochs, a minute of GPU activity.
    On the H200 the guide's CNN without libnvrtc crashed 24 s in, in its first step, after a
    few busy samples: "the GPU waits for input" would have been the verdict.
    """
    if watch.finished_epochs():
        return True
    return not watch.epoch_seconds and since is not None and busy_seconds >= TRAINED_SECONDS


def failure_verdict(
    exit_status: int,
    signal_number: int | None,
    watch: OutputWatch,
    no_gpu: bool | None = None,
    facts: Callable[[], Facts | None] = lambda: None,
) -> Verdict | None:
    """A "the script failed" verdict with explain's top problems from its output, or None when it did not.

    A traceback counts even with exit status 0 (a script that catches and prints the error).
    ``no_gpu``: NVML saw no NVIDIA GPU here, so TF's "no CUDA" notices are not the cause. ``facts``,
    asked only when the script failed, make the fix this machine's exact line (the directory an
    unreachable library is in), as ``tfgpu explain`` gives it.
    """
    if exit_status == 0 and signal_number is None and not watch.traceback_seen:
        return None
    how = f"killed by signal {signal_number}" if signal_number else f"exit status {exit_status}"
    explanation = explain_scanner(watch.scanner, facts(), no_gpu=no_gpu)
    problems = explanation.problems[:MAX_PROBLEMS_SHOWN]
    if not problems:
        return Verdict(
            "script-failed",
            Severity.ERROR,
            f"The script failed ({how})",
            "Nothing in its output names the cause."
            if not watch.traceback_seen
            else "It ended with a traceback tfgpu could not match.",
            ("run `tfgpu doctor`", "tfgpu explain --run -- <the same command> keeps the whole log"),
        )
    top = problems[0]
    exception = watch.exception_text()
    if exception and top.id in _SCRIPT_OWN_ERROR:
        first, _, rest = exception.partition("\n")
        return Verdict(
            "script-failed",
            Severity.ERROR,
            f"The script failed ({how}): {first[:300]}",
            (rest or first)[:MAX_EXCEPTION_CHARS],
            ("nothing in the output points at the GPU, CUDA or TensorFlow's setup: this is the script's own error",),
        )
    quoted = "; ".join(f"line {q.line_number}: {q.text[:160]}" for q in top.lines[:2])
    also = "".join(f" Also: {p.title}." for p in problems[1:])
    return Verdict(
        "script-failed",
        Severity.ERROR,
        f"The script failed ({how}): {top.title}",
        f"{top.cause} ({quoted}).{also}",
        (top.fix,),
    )


INTERRUPTED = Verdict(
    "run-interrupted",
    Severity.INFO,
    "Stopped with Ctrl-C",
    "The command ended because it was interrupted; its output says nothing about a failure of its own.",
    (),
)


_SCRIPT_OWN_ERROR = frozenset({"unrecognised-python-exception", "unrecognised-tf-exception"})
"""Explain's fallbacks for an exception it has no entry for: the script's exception is then told whole."""


ORPHAN_GRACE_SECONDS = 5.0
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Passed on to the command: a SIGHUP (the terminal closed, or kill -HUP) ended tfgpu and left the command running."""


def end_adopted_orphans() -> None:
    """After a SIGTERM, end what the command left behind (re-parented here by become_subreaper)."""
    orphans = children(os.getpid())
    for pid in orphans:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + ORPHAN_GRACE_SECONDS
    while orphans and time.monotonic() < deadline:
        orphans = [pid for pid in orphans if _reap(pid)]
        time.sleep(0.1)
    for pid in orphans:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        _reap(pid)


def _reap(pid: int) -> bool:
    """Collect an adopted child if it has ended; True while it still runs."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == 0


def keras_multiworker_warning(workers: int, environ: Mapping[str, str], cluster: ClusterConfig | None) -> str | None:
    """Keras 3's ``fit`` under MultiWorkerMirroredStrategy fails in every worker (PerReplica values).

    Said before the workers start, for ``--workers N`` and for a Slurm step or host list alike, with
    what works (keras-team/keras#20585 is open upstream); a script with its own training loop is
    fine, so this is a warning, not a refusal.
    """
    several = workers > 1 or cluster is not None
    if not several or keras_flavour(environ) is not KerasFlavour.TENSORFLOW:
        return None
    try:
        major = int(importlib.metadata.version("keras").split(".")[0])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None
    if major < 3:
        return None
    return (
        f"Keras {importlib.metadata.version('keras')}'s model.fit() does not run under MultiWorkerMirroredStrategy "
        "(each worker fails on PerReplica values; keras-team/keras#20585). What works: tf_keras (pip install "
        "tf-keras, then export TF_USE_LEGACY_KERAS=1), or a custom training loop with strategy.run()."
    )


def cluster_warnings(found: ClusterConfig | None) -> list[str]:
    """What would fail every worker minutes into a Slurm or host-list job, said before it starts.

    This worker's own port already taken on this host (another job's worker?), and the other
    workers' names that DNS does not resolve (a headless Service not created, a typo in the list).
    """
    if not found:
        return []
    out = []
    taken = own_port_taken(found.tf_config)
    if taken is not None:
        out.append(
            f"port {taken}, this worker's address in TF_CONFIG, is already in use on this host (another job's "
            f"worker?): TensorFlow's server would fail to start; give this job other ports with {found.port_variable}=<free port>"
        )
    missing = unresolved_workers(found.tf_config)
    if missing:
        names = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        out.append(
            f"DNS does not resolve {names} (workers of this job's TF_CONFIG): TensorFlow would fail to reach "
            "them. On Kubernetes, pods are named through a headless Service whose name is the pod template's "
            "subdomain; check the names in the list"
        )
    return out


def agree_on_cluster(
    cluster: ClusterConfig | None, environ: Mapping[str, str], inform: Callable[[str], None] | None = None
) -> None:
    """Every worker of the TF_CONFIG tfgpu writes (Slurm, host list) reached, holding the same cluster, or no start.

    A worker that cannot reach the others, or holds another list, would make the whole job wait
    for a peer that never comes (launch/rendezvous.py). TFGPU_RENDEZVOUS_SECONDS=0 skips the check.

    Raises:
        UsageError: a worker disagrees, does not answer in time, or this worker's port is taken.
    """
    seconds = rendezvous_seconds(environ)
    if cluster is None or seconds == 0:
        return
    workers = len(json.loads(cluster.tf_config)["cluster"]["worker"])
    if workers < 2:
        return
    if inform:
        inform(
            f"checking the cluster with the other {workers - 1} worker(s), up to {seconds:.0f} s ({SECONDS_VARIABLE}=0 skips it)"
        )
    result = rendezvous(cluster.tf_config, seconds)
    if result.agreement is Agreement.DISAGREED:
        raise UsageError(
            f"worker(s) {', '.join(result.disagreeing)} hold another cluster or another task index than this one: "
            "every worker must get the same host list in the same order and its own index (TFGPU_WORKER_HOSTS, "
            "TFGPU_TASK_INDEX or JOB_COMPLETION_INDEX, or Slurm's step); training would wait for peers that never come"
        )
    if result.agreement is Agreement.UNREACHED:
        raise UsageError(
            f"worker(s) {', '.join(result.unreached)} did not answer within {seconds:.0f} s: not started, another "
            f"host or port than the list says, or a firewall between them; training would wait for them "
            f"(raise {SECONDS_VARIABLE} when workers start minutes apart)"
        )
    if result.agreement is Agreement.PORT_TAKEN:
        raise UsageError("this worker's port in TF_CONFIG is in use on this host: TensorFlow's server could not start")
    if inform:
        inform(f"all {workers} workers reached, one cluster ({result.seconds:.1f} s)")


def strategy_note(options: GpuOptions) -> str | None:
    """``--strategy`` asks for what an unmodified script cannot use: it never enters the strategy's scope.

    ``--split`` says the same from the bootstrap, with the replica count it made.
    """
    if options.strategy not in ("one", "mirrored", "multiworker") or options.split:
        return None
    return (
        f"--strategy {options.strategy}: an unmodified script trains on the default strategy (it never enters "
        f"another's scope). To use it: s = tfgpu.setup(strategy={options.strategy!r}) in the script and build "
        "the model inside `with s.scope():`."
    )


def run_command(
    argv: Sequence[str],
    options: GpuOptions,
    *,
    nvml: NvmlClient,
    environ: Mapping[str, str],
    workers: int = 1,
    interval_seconds: float = 0.5,
    stdout: TextIO = sys.stdout,
    stderr: TextIO = sys.stderr,
    warn: Callable[[str], None] | None = None,
    inform: Callable[[str], None] | None = None,
    runner: CommandRunner | None = None,
    facts: Callable[[], Facts | None] = lambda: None,
) -> RunReport:
    """Run ``argv`` (N copies with ``workers``); Ctrl-C and SIGTERM are passed on to the children.

    The command's stdout and stderr reach ``stdout`` and ``stderr`` apart and unchanged, both read
    for the verdict (Keras prints its progress on stdout, TensorFlow logs on stderr).

    ``warn`` hears, before the command starts, what the options cannot do here (``--gpus`` on a
    machine where NVML sees no GPU: the command runs on the CPU; a strategy an unmodified script
    never enters) and what would fail a multi-worker job (Keras 3's fit, a taken port, a worker
    name DNS does not know); ``inform``, what is set through the environment and how the XLA cache
    is used. ``runner`` starts the child that checks the cache's flags against the command's
    TensorFlow (once per install); without one the cache is left off. ``facts`` (this machine's, read
    only when the command failed) make the failure's fix the exact line ``tfgpu explain`` gives.

    Raises:
        UsageError: the command cannot be started (not found, not executable).
    """
    cluster = cluster_config(environ)  # the TF_CONFIG tfgpu writes for this worker (Slurm, host list), once
    become_subreaper()
    visible, cache = _announce(argv, options, nvml, environ, workers, cluster, runner, warn or _quiet, inform or _quiet)
    with tempfile.TemporaryDirectory(prefix="tfgpu-run-") as record_dir:
        phases_file = os.path.join(record_dir, "phases.json") if workers == 1 else None
        env = child_environment(options, environ, visible, cache, phases_file, cluster)
        indices = _sampled_gpus(nvml, visible)
        envs = worker_environments(env, workers, visible or [str(i) for i in indices]) if workers > 1 else [env]
        sampler = Sampler(nvml, indices, interval_seconds) if indices else None
        ran = _Children(argv, workers, stdout, stderr).run(envs, sampler, cache)
        phases, tracing = _read_phases(phases_file, ran.start)
    return _report(argv, environ, ran, sampler, phases, tracing, cache, no_gpu=not indices, facts=facts)


def _quiet(text: str) -> None:
    """Where notes go that no one asked to hear."""


def _announce(
    argv: Sequence[str],
    options: GpuOptions,
    nvml: NvmlClient,
    environ: Mapping[str, str],
    workers: int,
    cluster: ClusterConfig | None,
    runner: CommandRunner | None,
    warn: Callable[[str], None],
    inform: Callable[[str], None],
) -> tuple[list[str] | None, CachePlan | None]:
    """Before the start: the GPUs the command sees and the XLA cache, with what is warned and told about them.

    The workers of a cluster meet here too, so none starts training with a cluster the others disagree on.
    """
    notes: list[str] = options_beyond_flavour(options, keras_flavour(environ))
    visible = resolve_gpus(options.gpus, nvml, notes)
    notes += [
        w
        for w in (
            keras_multiworker_warning(workers, environ, cluster),
            *cluster_warnings(cluster),
            strategy_note(options),
        )
        if w
    ]
    for note in notes:
        warn(note)
    cache = _plan_cache(argv, options, nvml, environ, runner)
    told = list(cache.notes) if cache else []
    if not needs_code(options):  # the bootstrap prints what it applies; these take effect through the environment
        told += [f"{name}={value}" for name, value in environment_for(options, visible).items()]
    for line in told:
        inform(line)
    agree_on_cluster(cluster, environ, inform)
    return visible, cache


def _sampled_gpus(nvml: NvmlClient, visible: Sequence[str] | None) -> list[int]:
    """The GPUs to sample: the visible ones NVML has (``--gpus 0`` without a GPU must not put a GPU 0 in the verdict)."""
    try:
        count = nvml.device_count()
    except NvmlUnavailable:
        count = 0
    return [int(v) for v in visible if v.isdigit() and int(v) < count] if visible else list(range(count))


@dataclass(frozen=True)
class _Ran:
    """What the children did: when they started and for how long, their statuses and memory, what they printed."""

    start: float
    seconds: float
    codes: tuple[int, ...]
    host_memory_peak_bytes: int | None
    stopped: tuple[int, ...]
    """The signals forwarded to them."""
    watch: OutputWatch
    observation: Observation | None


class _Children:
    """The command's processes: started with signals forwarded, their output pumped, waited for."""

    def __init__(self, argv: Sequence[str], workers: int, stdout: TextIO, stderr: TextIO) -> None:
        self.argv, self.workers, self.stdout, self.stderr = list(argv), workers, stdout, stderr
        self.procs: list[subprocess.Popen[bytes]] = []
        self.pumps: list[tuple[threading.Thread, IO[bytes]]] = []
        self.watch = OutputWatch()
        self.stopped: list[int] = []

    def forward(self, signum: int, frame: FrameType | None) -> None:
        """Pass a signal tfgpu received on to every child still running."""
        self.stopped.append(signum)
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signum)

    def run(self, envs: Sequence[Mapping[str, str]], sampler: Sampler | None, cache: CachePlan | None) -> _Ran:
        """Start one child per environment, sample while they run, and wait for all of them."""
        # Installed before the first child starts: a SIGTERM that came between the start and the handler
        # would end tfgpu alone and leave the command running.
        previous = {sig: signal.signal(sig, self.forward) for sig in FORWARDED}
        start = time.monotonic()
        try:
            with observe(cache) if cache else contextlib.nullcontext() as observation:
                for index, env in enumerate(envs):
                    self._start(index, env)
                if sampler:
                    sampler.start()
                ended = [_wait_with_usage(proc) for proc in self.procs]
                if {signal.SIGTERM, signal.SIGHUP} & set(self.stopped):
                    end_adopted_orphans()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if sampler:
                sampler.stop()
            self._close_pumps()
        peak = max((rss for _, rss in ended if rss), default=None)
        codes = tuple(code for code, _ in ended)
        return _Ran(start, time.monotonic() - start, codes, peak, tuple(self.stopped), self.watch, observation)

    def _start(self, index: int, env: Mapping[str, str]) -> None:
        try:
            proc = subprocess.Popen(self.argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:  # not found, not executable, a directory: the others already started are stopped
            for started in self.procs:
                started.kill()
            missing = isinstance(exc, FileNotFoundError)
            why = "program not found" if missing else f"{exc.strerror or exc} (is it an executable?)"
            raise UsageError(f"cannot run {self.argv[0]}: {why}") from None
        self.procs.append(proc)
        if self.stopped:
            proc.send_signal(self.stopped[-1])
        assert proc.stdout is not None and proc.stderr is not None
        prefix = f"[worker {index}] " if self.workers > 1 else ""
        for pipe, out in ((proc.stdout, self.stdout), (proc.stderr, self.stderr)):
            thread = threading.Thread(target=pump, args=(pipe, out, self.watch, prefix), daemon=True)
            thread.start()
            self.pumps.append((thread, pipe))

    def _close_pumps(self) -> None:
        for thread, _ in self.pumps:
            thread.join(timeout=5)
        for thread, pipe in self.pumps:
            if not thread.is_alive():  # a grandchild may still hold the pipe
                pipe.close()


def _report(
    argv: Sequence[str],
    environ: Mapping[str, str],
    ran: _Ran,
    sampler: Sampler | None,
    phases: PhaseTimes | None,
    tracing: float | None,
    cache: CachePlan | None,
    *,
    no_gpu: bool,
    facts: Callable[[], Facts | None],
) -> RunReport:
    """The exit status as a shell gives it, the verdict over the training's window, and what the cache did."""
    status = next((c for c in ran.codes if c != 0), 0)
    exit_status = status if status >= 0 else 128 - status
    since, until, busy_seconds, judged_from, compiled_at = _window(ran, sampler, phases)
    epochs = phases.epoch_seconds if phases and phases.epoch_seconds else ran.watch.finished_epochs()
    cache_use = (
        conclude(ran.observation, environ, shlex.join(argv), epochs[0] if epochs else None)
        if ran.observation is not None
        else None
    )
    run = RunFacts(
        wall_seconds=busy_seconds,
        epoch_seconds=epochs,
        steps=phases.steps if judged_from is JudgedFrom.TRAINING and phases else None,
        jit_compile=True if ran.watch.xla_seen else None,
        xla_cache=cache_use,
        phases=phases,
        first_program_seconds=compiled_at - ran.start if compiled_at is not None else None,
        tracing_seconds=tracing,
        unattributed=phases is None and not epochs,
    )
    failed = (
        INTERRUPTED
        if signal.SIGINT in ran.stopped and exit_status != 0
        else failure_verdict(exit_status, -status if status < 0 else None, ran.watch, no_gpu=no_gpu, facts=facts)
    )
    judgement = judge_window(sampler, run, judged_from, since, until)
    if failed is None:
        verdicts = judgement.verdicts
    elif trained(ran.watch, since, busy_seconds):
        verdicts = (failed, *judgement.verdicts)
    else:
        verdicts = (failed,)  # it never trained: an idle GPU says nothing about the input pipeline
    return RunReport(
        exit_status,
        ran.seconds,
        verdicts,
        judgement.peak_memory_bytes,
        judgement.mean_utilization_percent,
        cache.directory if cache else None,
        cache_use,
        phases,
        peak_utilization_percent=judgement.peak_utilization_percent,
        host_memory_peak_bytes=ran.host_memory_peak_bytes,
        judged_from=judged_from,
        tracing_seconds=tracing,
    )


def _window(
    ran: _Ran, sampler: Sampler | None, phases: PhaseTimes | None
) -> tuple[float | None, float | None, float, JudgedFrom, float | None]:
    """Where the verdict looks (from, until), the busy seconds in it, why there, and when XLA's first program was written.

    The training steps the process measured; without them, from when XLA's first program was written,
    else from the first GPU activity on (importing TF and compiling are not training).
    """
    window = phases.training_window if phases else None
    if window:
        return window[0], window[1], window[1] - window[0], JudgedFrom.TRAINING, None
    compiled_at = _first_program_at(ran.observation, ran.start, ran.seconds)
    if compiled_at is not None:  # no fit() seen: the GPU idles while XLA compiles, which is not the input's fault
        return compiled_at, None, ran.start + ran.seconds - compiled_at, JudgedFrom.FIRST_PROGRAM, compiled_at
    kept = sampler.samples() if sampler else []
    since = sampler.first_busy() if sampler else None
    busy = kept[-1].time_seconds - since if since is not None and kept else ran.seconds
    return since, None, busy, JudgedFrom.FIRST_ACTIVITY, None


def _first_program_at(observation: Observation | None, start: float, seconds: float) -> float | None:
    """When (on the monotonic clock) the run's first newly compiled XLA program was written, if inside the run."""
    written = observation.first_compiled_unix if observation is not None else None
    if written is None:
        return None
    at = written - (time.time() - time.monotonic())
    return at if start <= at <= start + seconds else None


def _wait_with_usage(proc: subprocess.Popen[bytes]) -> tuple[int, int | None]:
    """The command's exit status (as ``Popen.wait`` gives it) and its peak resident memory in bytes.

    ``os.wait4`` reports the resources of this one child (and what it waited for), not of every child
    tfgpu ever had (the XLA flag check's TensorFlow would count under RUSAGE_CHILDREN).
    """
    if proc.returncode is not None:
        return proc.returncode, None
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except ChildProcessError:  # reaped elsewhere: the status is Popen's to find
        return proc.wait(), None
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024  # kilobytes on Linux


def _read_phases(path: str | None, started: float) -> tuple[PhaseTimes | None, float | None]:
    """The phases the child recorded (launch/phase_recorder.py) and its tf.function tracing seconds.

    None for what it did not write or wrote unusably.
    """
    data = read_regular_or_none(Path(path), MAX_RECORD_BYTES) if path else None
    record = parse_record(data) if data is not None else None
    if record is None:
        return None, None
    return phase_times(record, started), tracing_seconds(record)


def _plan_cache(
    argv: Sequence[str], options: GpuOptions, nvml: NvmlClient, environ: Mapping[str, str], runner: CommandRunner | None
) -> CachePlan | None:
    """The XLA cache for the command's interpreter; None without a runner to check its flags with."""
    if runner is None:
        return None
    return plan_for_interpreter(
        options.xla_cache,
        python=training_python(argv, environ),
        environ=environ,
        nvml=nvml,
        runner=runner,
        levers=keras_flavour(environ).on_tensorflow,  # XLA_FLAGS reaches JAX's XLA too
    )
