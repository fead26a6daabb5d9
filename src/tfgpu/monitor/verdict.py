"""Name the bottleneck of a training run from GPU samples, step times and host CPU use (pure).

Shared by the Keras GpuMonitor, ``tfgpu run`` and ``tfgpu monitor --watch``. The rules and
their thresholds are written down here, each with the evidence it quotes back to the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfgpu.model.findings import Severity
from tfgpu.model.phases import Phase, PhaseTimes
from tfgpu.model.samples import SampleStats, Verdict
from tfgpu.model.xla_cache import CacheUse

BUSY_PERCENT = 80.0
STARVED_PERCENT = 30.0
SHORT_STEP_SECONDS = 0.005
MEMORY_FULL_FRACTION = 0.9

INPUT_ADVICE = (
    "feed fit() a tf.data.Dataset instead of NumPy arrays: ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(B).prefetch(tf.data.AUTOTUNE)",
    "parallelise and cache preprocessing: .map(fn, num_parallel_calls=tf.data.AUTOTUNE).cache()",
    "raise the batch size until the GPU is busy (scale the learning rate with it)",
)
OVERHEAD_ADVICE = (
    "raise the batch size: each step is too short to fill the GPU",
    "run several steps per call: model.compile(..., steps_per_execution=32)",
    "feed a tf.data.Dataset with .prefetch(tf.data.AUTOTUNE) instead of NumPy arrays",
)


@dataclass(frozen=True)
class RunFacts:
    """What the caller knows about the training beyond NVML."""

    wall_seconds: float | None = None
    steps: int | None = None
    host_cpu_seconds: float | None = None
    """CPU time of the training process over the run (all threads)."""
    tf_memory_peak_bytes: float | None = None
    """Peak of TF's own allocator (tf.config.experimental.get_memory_info), not NVML's reservation."""
    epoch_seconds: tuple[float, ...] = ()
    jit_compile: bool | None = None
    """Whether the model was compiled with XLA (Keras resolves jit_compile="auto" to True on a GPU)."""
    unfused_batchnorm_layers: int | None = None
    """Keras 3 BatchNormalization layers on TensorFlow running as separate ops where cuDNN's fused kernel could."""
    xla_cache: CacheUse | None = None
    """What the run compiled into the persistent XLA cache and loaded from it."""
    phases: PhaseTimes | None = None
    """Seconds per phase measured inside the training process; GPU statistics then cover training only."""
    first_program_seconds: float | None = None
    """Without phases: seconds from the start until XLA's first program compiled in this run was written."""
    tracing_seconds: float | None = None
    """All the time tf.function spent building graphs in the process (TensorFlow's own counter)."""
    unattributed: bool = False
    """The judged window is not known to hold only training (``tfgpu run`` saw no fit() and no epoch)."""


def _first_epoch_cost(run: RunFacts) -> tuple[Verdict, bool] | None:
    """A first epoch far slower than the rest (tracing, autotuning, XLA compilation).

    The flag says whether its extra time over the fastest later epoch outweighs all the later
    epochs together; then it is the headline.
    On the H200 XLA's first epoch of the small MNIST CNN took 55-62 s against ~3 s warm
    (docs/performance.md): a run of one or two epochs then measures the compiler, which is
    how Keras's jit_compile="auto" made that model look 25x slower than it is.
    """
    if len(run.epoch_seconds) < 2:
        return None
    first, rest = run.epoch_seconds[0], sorted(run.epoch_seconds[1:])
    typical = rest[len(rest) // 2]
    extra = first - typical
    if extra < 10.0 or first < 3 * typical:
        return None
    cause, advice = _compile_cause(run, "epoch")
    verdict = Verdict(
        "first-epoch-compile",
        Severity.INFO,
        f"The first epoch cost {extra:.0f} s more than the others ({first:.1f} s vs {typical:.1f} s)",
        f"The extra time is {cause}.",
        advice,
    )
    return verdict, first - rest[0] > sum(rest)


def _compile_cause(run: RunFacts, unit: str) -> tuple[str, tuple[str, ...]]:
    """What a slow first epoch or step is made of, and what to do, from what is known of XLA and its cache."""
    judge_later = f"judge training speed from the second {unit} on"
    if run.xla_cache is not None and run.xla_cache.compiled > 0:
        cause = (
            f"tracing and XLA compilation ({run.xla_cache.compiled} program(s) compiled; "
            "Keras's jit_compile='auto' means XLA on a GPU)"
        )
        return cause, (
            "the compiled programs are now in the XLA cache: the next run of this script loads them instead of "
            "compiling (a new input shape still compiles once)",
            judge_later,
        )
    if run.jit_compile:
        cause = "tracing and XLA compilation (the model is compiled with XLA; Keras's jit_compile='auto' means XLA on a GPU)"
        return cause, (
            "keep the compiled programs for the next run: tfgpu's XLA cache (`tfgpu run` without `--xla-cache off`, "
            "or tfgpu.setup()); on an H200 the seeds' CNN then starts its next run in 3.8 s instead of 58",
            "for a one-off run of a few epochs: model.compile(..., jit_compile=False)",
            judge_later,
        )
    if run.jit_compile is None:
        cause = "tracing, autotuning and, if the model is compiled with XLA (Keras's default on a GPU), compilation"
        return cause, ("for runs of a few epochs: model.compile(..., jit_compile=False) and compare", judge_later)
    return "tracing and autotuning", (judge_later,)


FIRST_STEP_SECONDS = 10.0
"""A first step this long is named: below it, tracing and compiling are not what a user waits for."""


def _first_step_cost(run: RunFacts) -> tuple[Verdict, bool] | None:
    """The first training step measured inside the process (tracing and compilation), against the training after it.

    The flag says whether it took longer than all the training steps after it: then it is the
    headline. On the H200 the seeds' MNIST CNN with Keras's defaults and verbose=0 spent 60 of 84 s
    compiling with XLA, and `tfgpu run` blamed the input ("busy only 1%") from the whole run's mean.
    """
    phases = run.phases
    first = phases.of(Phase.FIRST_STEP) if phases else None
    if phases is None or first is None or first < FIRST_STEP_SECONDS:
        return None
    training = phases.of(Phase.TRAINING) or 0.0
    cause, advice = _compile_cause(run, "step")
    verdict = Verdict(
        "first-step-compile",
        Severity.INFO,
        f"The first training step took {first:.0f} s of the run's {phases.total:.0f} s",
        f"It is {cause}; the {phases.steps} training steps after it took {training:.1f} s.",
        advice,
    )
    return verdict, first > training


def _first_program_cost(run: RunFacts) -> tuple[Verdict, bool] | None:
    """Without phases (a custom loop, ``train_on_batch``): the time before XLA's first compiled program was written.

    The flag says whether it outlasted everything after it. On the H200 a ResNet-50 trained with
    ``train_on_batch`` under XLA wrote its program 47 s into a 64 s run and was then told "the GPU
    waits for input: busy only 15%", judged over the compile.
    """
    ready = run.first_program_seconds
    if run.phases is not None or ready is None or ready < FIRST_STEP_SECONDS:
        return None
    after = run.wall_seconds or 0.0
    _, advice = _compile_cause(run, "step")
    compiled = run.xla_cache.compiled if run.xla_cache else 0
    programs = f"{compiled} program{'s' if compiled != 1 else ''}" if compiled else "its programs"
    verdict = Verdict(
        "first-program-compile",
        Severity.INFO,
        f"XLA's first compiled program was ready {ready:.0f} s after the start",
        f"Start-up, model building, tracing and XLA's compilation of {programs} came before it. No Keras fit() "
        f"was seen, so how those {ready:.0f} s split is not known{_tracing_part(run)}; the GPU is judged over "
        f"the {after:.1f} s after it.",
        advice,
    )
    return verdict, ready > after


def _tracing_part(run: RunFacts) -> str:
    """What TensorFlow's tracing counter adds to a split that is otherwise unknown."""
    if run.tracing_seconds is None:
        return ""
    return f" beyond tf.function's tracing, {run.tracing_seconds:.1f} s in the whole run"


THERMAL_FRACTION = 0.05
"""Share of samples with a thermal clock slowdown that is reported: any sustained slowdown costs
speed, in training as under ``tfgpu burn``."""


def thermal_throttling(stats: SampleStats) -> Verdict | None:
    """Clocks slowed for heat in more than THERMAL_FRACTION of the samples (shared with ``tfgpu burn``)."""
    thermal = stats.thermal_throttle()
    if thermal <= THERMAL_FRACTION:
        return None
    return Verdict(
        "gpu-thermal-throttling",
        Severity.WARNING,
        f"GPU {stats.index} slowed its clocks for heat in {thermal:.0%} of the samples",
        f"Peak temperature {stats.get('temperature_celsius').max or 0:.0f} °C; SM clock mean "
        f"{stats.get('sm_clock_mhz').mean or 0:.0f} of {stats.max_sm_clock_mhz or 0:.0f} MHz.",
        ("improve cooling or airflow", "check the fans and the room temperature"),
    )


def hardware_errors(stats: SampleStats) -> list[Verdict]:
    """Xid events and a rising uncorrected-ECC count in a window: errors whatever else happened.

    Shared by the training verdict and ``tfgpu burn``'s analysis.
    """
    out = []
    if stats.xid_events:
        out.append(
            Verdict(
                "xid-event",
                Severity.ERROR,
                f"GPU {stats.index} reported Xid error(s) {', '.join(map(str, sorted(set(stats.xid_events))))}",
                "The driver logged a critical GPU error during the run.",
                ("look the Xid up in NVIDIA's Xid catalogue; check dmesg",),
            )
        )
    if stats.ecc_errors_added > 0:
        out.append(
            Verdict(
                "ecc-errors-rose",
                Severity.ERROR,
                f"GPU {stats.index}: {stats.ecc_errors_added:.0f} new uncorrected ECC error(s)",
                "GPU memory returned corrupt data; results of this run are suspect.",
                ("reset the GPU (nvidia-smi -r) and run tfgpu burn",),
            )
        )
    return out


def _busiest(stats: Sequence[SampleStats]) -> SampleStats | None:
    measured = [s for s in stats if s.samples]
    return max(measured, key=lambda s: s.get("utilization_percent").mean or 0.0) if measured else None


def judge(stats: Sequence[SampleStats], run: RunFacts | None = None) -> list[Verdict]:
    """The verdicts, most important first; the first one is the headline."""
    run = run or RunFacts()
    gpu = _busiest(stats)
    if gpu is None:
        return [
            Verdict(
                "no-gpu-monitored",
                Severity.INFO,
                "No GPU was monitored",
                "NVML saw no NVIDIA GPU, so there is nothing to judge.",
                (),
            )
        ]
    # Order: a lost GPU, heat, then the bottleneck itself, then memory headroom.
    out: list[Verdict] = []
    if any(s.lost for s in stats):
        out.append(
            Verdict(
                "gpu-lost",
                Severity.ERROR,
                "A GPU stopped answering during the run",
                "NVML reported the GPU lost (Xid 79 class).",
                ("check dmesg, power and cooling",),
            )
        )
    for s in stats:
        out.extend(hardware_errors(s))
    thermal = thermal_throttling(gpu)  # heat is read from the clocks, with or without utilization
    if thermal:
        out.append(thermal)
    if gpu.get("utilization_percent").count == 0:
        out.append(
            Verdict(
                "utilization-unknown",
                Severity.INFO,
                f"GPU {gpu.index} does not report utilization",
                "MIG-enabled GPUs and some vGPUs give NVML no utilization, so the bottleneck cannot be named from it.",
                ("judge by samples/s instead: tfgpu tune compares configurations by throughput",),
            )
        )
        return out
    util = gpu.get("utilization_percent").mean or 0.0
    compile_cost = _first_step_cost(run) if run.phases else (_first_epoch_cost(run) or _first_program_cost(run))
    if compile_cost and compile_cost[1]:
        out.append(compile_cost[0])  # the compiler cost more than all the training after it
    batchnorm = (
        _unfused_batchnorm(run.unfused_batchnorm_layers, util)
        if run.unfused_batchnorm_layers and not run.jit_compile
        else None
    )
    if batchnorm and util >= BUSY_PERCENT:
        out.append(batchnorm)  # a busy GPU: the kernels it is busy with are what to change
    out.append(_utilisation(gpu, util, run))
    if compile_cost and not compile_cost[1]:
        out.append(compile_cost[0])
    if batchnorm and util < BUSY_PERCENT:
        out.append(batchnorm)
    if (
        run.tf_memory_peak_bytes
        and gpu.memory_total_bytes
        and run.tf_memory_peak_bytes >= MEMORY_FULL_FRACTION * gpu.memory_total_bytes
    ):
        out.append(
            Verdict(
                "memory-near-full",
                Severity.WARNING,
                f"TF's allocator peaked at {run.tf_memory_peak_bytes / 2**30:.1f} of {gpu.memory_total_bytes / 2**30:.0f} GiB",
                "A larger batch or model will run out of memory.",
                (
                    "mixed precision halves activation memory: tfgpu.setup(precision='mixed')",
                    "keep the batch size below the OOM point",
                ),
            )
        )
    return out


def _unfused_batchnorm(layers: int, util: float) -> Verdict:
    """Keras 3 normalises with separate elementwise and reduction ops on TensorFlow: a GPU busy with them is not fast.

    On the H200 Keras 3's ResNet-50 kept the GPU 86-92% busy at 871 img/s (float32); the same model
    with cuDNN's fused kernel trained at 1,653 (docs/performance.md §5b). XLA would fuse them too,
    so a model compiled with XLA is not told this.
    """
    return Verdict(
        "keras3-batchnorm-unfused",
        Severity.WARNING,
        f"{layers} BatchNormalization layers run as separate small kernels (Keras 3 on TensorFlow)",
        (f"The GPU was busy {util:.0f}%, but busy is not fast. " if util >= BUSY_PERCENT else "")
        + "Keras 3 computes each layer's moments, subtraction, scaling and shift as separate ops where "
        "tf.keras called cuDNN's fused kernel. "
        "On an H200 the same Keras 3 ResNet-50 trained 1.9x faster with the fused kernel "
        "(871 -> 1,653 img/s in float32, 786 -> 1,463 in mixed_bfloat16).",
        (
            "tfgpu.setup(batchnorm='fused') before building the model (Keras's results, cuDNN's kernel)",
            "or, unchanged: tfgpu run --batchnorm fused -- python train.py",
        ),
    )


def format_verdicts(verdicts: Sequence[Verdict]) -> str:
    """Plain text of the verdicts, for the Keras callback's print and for logs."""
    lines = []
    for number, verdict in enumerate(verdicts):
        lines.append(("tfgpu verdict: " if number == 0 else "also: ") + verdict.summary)
        lines.append("  " + verdict.detail)
        lines.extend(f"  - {advice}" for advice in verdict.advice)
    return "\n".join(lines)


UNATTRIBUTED_ADVICE = (
    "train with Keras fit() under tfgpu run (its phases are measured) or add tfgpu's GpuMonitor callback",
    "in a custom loop, time the steps after the first one: that rate is the one to judge",
)


def _utilisation(gpu: SampleStats, util: float, run: RunFacts) -> Verdict:
    power_capped = gpu.throttle("sw_power_cap")
    idle = gpu.idle_fraction or 0.0
    step = run.wall_seconds / run.steps if run.wall_seconds and run.steps else None
    cores = run.host_cpu_seconds / run.wall_seconds if run.host_cpu_seconds is not None and run.wall_seconds else None
    evidence = f"GPU {gpu.index} busy {util:.0f}% on average, idle (<5%) in {idle:.0%} of {gpu.samples} samples"
    if step is not None:
        evidence += f"; {step * 1000:.1f} ms per step"
    if cores is not None:
        evidence += f"; the training process used {cores:.1f} CPU cores"
    if util >= BUSY_PERCENT:
        capped = (
            f" It sat at its power limit in {power_capped:.0%} of the samples: the GPU itself is the limit."
            if power_capped > 0.3
            else ""
        )
        return Verdict(
            "gpu-busy",
            Severity.OK,
            f"The GPU is busy ({util:.0f}%): the input keeps up",
            evidence + "." + capped,
            (
                "next gains: mixed precision (tfgpu.setup(precision='auto')) and a larger batch",
                "tfgpu tune measures the options",
            ),
        )
    if run.unattributed:
        return Verdict(
            "gpu-idle-unattributed",
            Severity.INFO,
            f"The GPU was busy {util:.0f}%; where its idle time went is not known",
            evidence + ". No Keras fit() was seen, so start-up, compilation, data loading and the end of the "
            "script share this window with the training steps: an input stall cannot be told apart from them.",
            UNATTRIBUTED_ADVICE,
        )
    if step is not None and step < SHORT_STEP_SECONDS and util < STARVED_PERCENT:
        return Verdict(
            "python-overhead-per-step",
            Severity.WARNING,
            f"Steps of {step * 1000:.1f} ms leave the GPU idle: per-step Python and launch overhead dominate",
            evidence + ".",
            OVERHEAD_ADVICE,
        )
    if util < STARVED_PERCENT:
        host = " on the host (one core saturated)" if cores is not None and 0.8 <= cores < 1.5 else ""
        return Verdict(
            "input-bound",
            Severity.WARNING,
            f"The GPU waits for input{host}: busy only {util:.0f}%",
            evidence + ". The GPU is idle between steps while the host prepares the next batch.",
            INPUT_ADVICE,
        )
    return Verdict(
        "gpu-partly-idle",
        Severity.WARNING,
        f"The GPU is busy {util:.0f}%: the batch is small or the input stalls",
        evidence + ".",
        (INPUT_ADVICE[2], INPUT_ADVICE[0], OVERHEAD_ADVICE[1]),
    )
