"""Apply GpuOptions to TensorFlow in this process and build the distribution strategy.

TensorFlow is imported here lazily, on the first call. Device options must be set before TF
initialises its devices; when it already has, TF raises "Physical devices cannot be modified
after being initialized" and we turn that into a DiagnosticError naming the line to move.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from tfgpu.configure.environ import environment_for
from tfgpu.configure.flavour import KerasFlavour, keras_flavour, options_beyond_flavour
from tfgpu.configure.gpus import resolve_gpus
from tfgpu.configure.options import GPU_GUIDE, GpuOptions
from tfgpu.knowledge.archs import mixed_policy
from tfgpu.model.errors import DiagnosticError, NvmlUnavailable
from tfgpu.model.xla_cache import CacheMode
from tfgpu.nvml.client import NvmlClient
from tfgpu.system.runner import CommandRunner
from tfgpu.xlacache.plan import plan_for_interpreter


@dataclass
class Setup:
    """What ``tfgpu.setup()`` applied, and the strategy to build the model under."""

    options: GpuOptions
    strategy: Any
    precision_policy: str
    applied: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def num_replicas(self) -> int:
        """Replicas the strategy trains on in sync."""
        return int(getattr(self.strategy, "num_replicas_in_sync", 1))

    def global_batch_size(self, per_replica: int) -> int:
        """The batch to give ``fit`` so that each replica gets ``per_replica``."""
        return per_replica * self.num_replicas

    def scope(self) -> Any:
        """``with setup.scope():`` build and compile the model in here."""
        return self.strategy.scope()

    def check_model(self, model: Any) -> str | None:
        """Under mixed precision, the warning for an output layer that does not compute in float32."""
        return check_output_layer(model) if self.precision_policy != "float32" else None

    def to_json(self) -> dict[str, Any]:
        """The summary as data."""
        return {
            "options": self.options.to_dict(),
            "strategy": type(self.strategy).__name__,
            "replicas": self.num_replicas,
            "precision_policy": self.precision_policy,
            "applied": self.applied,
            "warnings": self.warnings,
        }

    def summary(self) -> str:
        """One screen: what was applied and why."""
        lines = [
            f"tfgpu.setup: {type(self.strategy).__name__} over {self.num_replicas} replica(s), policy {self.precision_policy}"
        ]
        lines += [f"  - {line}" for line in self.applied]
        lines += [f"  ! {line}" for line in self.warnings]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller() -> str:
    """file:line of the user's tfgpu.setup() call: the innermost frame outside this package."""
    for frame in reversed(traceback.extract_stack()[:-1]):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE + os.sep):
            return f"{frame.filename}:{frame.lineno}"
    return "your script"


@contextlib.contextmanager
def _before_initialisation(where: str) -> Iterator[None]:
    try:
        yield
    except (RuntimeError, ValueError) as exc:
        if "after being initialized" in str(exc):
            raise DiagnosticError(
                "tf-runtime-already-initialized",
                f"TensorFlow had already initialized its devices when tfgpu.setup() ran ({exc})",
                hint=f"move the tfgpu.setup(...) call at {where} up: right after `import tensorflow`, before any model, dataset or tensor is created",
                note="In a notebook, restart the kernel and run the setup cell first.",
                link=GPU_GUIDE,
            ) from None
        raise


def _policy_for(precision: str | None, cc: tuple[int, int] | None, warnings: list[str]) -> str:
    if precision in (None, "float32"):
        return "float32"
    if cc is None:
        if precision == "mixed":  # asked for by name: honoured (issue 23: bf16 matmuls ran 3-4x float32 on an AMX CPU)
            warnings.append(
                "precision='mixed' without a GPU: mixed_bfloat16 on the CPU, faster only where the CPU has "
                "bfloat16 units (AMX, AVX512-BF16); precision='auto' keeps float32 there"
            )
            return "mixed_bfloat16"
        warnings.append(f"precision={precision!r}: no GPU, so float32 (mixed precision is slower on most CPUs)")
        return "float32"
    policy = mixed_policy(cc)
    if policy is None:
        warnings.append(f"precision={precision!r}: compute capability {cc[0]}.{cc[1]} has no Tensor Cores, so float32")
        return "float32"
    return policy


def _import_tf() -> ModuleType:
    import tensorflow as tf

    module: ModuleType = tf
    return module


def _strategy(tf: Any, options: GpuOptions, environ: Any) -> tuple[Any, str]:
    """The strategy and why; a multi-worker one is made before anything lists logical devices.

    Listing logical devices starts TF's runtime, and MultiWorkerMirroredStrategy must configure
    its collective ops before that ("Collective ops must be configured at program startup").
    """
    choice = options.strategy or "auto"
    if choice == "multiworker" or (choice == "auto" and environ.get("TF_CONFIG")):
        return tf.distribute.MultiWorkerMirroredStrategy(), "TF_CONFIG names a cluster: MultiWorkerMirroredStrategy"
    if choice == "auto" and environ.get("SLURM_JOB_ID") and int(environ.get("SLURM_NTASKS", "1")) > 1:
        resolver = tf.distribute.cluster_resolver.SlurmClusterResolver()
        return tf.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=resolver
        ), "a Slurm allocation of several tasks: MultiWorkerMirroredStrategy"
    gpus = tf.config.list_logical_devices("GPU")
    cpus = tf.config.list_logical_devices("CPU")
    if choice == "mirrored" or (choice == "auto" and len(gpus) > 1):
        devices = [d.name for d in gpus] or [d.name for d in cpus]
        return tf.distribute.MirroredStrategy(devices=devices), f"{len(devices)} local devices: MirroredStrategy"
    if choice == "auto" and not gpus and len(cpus) > 1:
        return tf.distribute.MirroredStrategy(
            devices=[d.name for d in cpus]
        ), f"{len(cpus)} logical CPUs: MirroredStrategy"
    if choice == "one" or (choice == "auto" and len(gpus) == 1):
        device = gpus[0].name if gpus else cpus[0].name
        return tf.distribute.OneDeviceStrategy(device), f"one device ({device}): OneDeviceStrategy"
    return tf.distribute.get_strategy(), "no GPU: the default strategy"


def apply_xla_cache(options: GpuOptions, nvml: NvmlClient | None, env: Any, runner: CommandRunner) -> list[str]:
    """Point TF's persistent XLA cache at tfgpu's cache for this interpreter; the lines say what was done.

    XLA reads its flags at its first compilation, so this works after ``import tensorflow`` too.
    """
    plan = plan_for_interpreter(
        options.xla_cache,
        python=sys.executable,
        environ=env,
        nvml=nvml,
        runner=runner,
        levers=keras_flavour(env).on_tensorflow,
    )
    for name, value in plan.variables:
        env[name] = value
    lines = (
        [f"XLA cache {plan.mode.value}: {plan.directory} (compiled programs are kept for the next run)"]
        if plan.variables
        else []
    )
    return lines + list(plan.notes)


def apply_options(
    options: GpuOptions,
    *,
    nvml: NvmlClient | None = None,
    tf: Any = None,
    environ: Any = None,
    runner: CommandRunner | None = None,
) -> Setup:
    """Apply ``options``; ``tf`` and ``nvml`` are injected by tests.

    ``runner`` starts the child that checks the XLA cache's flags against this TensorFlow;
    without one the cache is not set up (``tfgpu run``'s bootstrap: the parent did it).

    Raises:
        DiagnosticError: TF was initialized too early, or an option cannot apply here.
    """
    env = os.environ if environ is None else environ
    where = _caller()
    applied: list[str] = []
    warnings: list[str] = []
    visible = resolve_gpus(options.gpus, nvml, warnings)
    tf_started = tf is not None or "tensorflow" in sys.modules
    flavour = keras_flavour(env)
    warnings.extend(options_beyond_flavour(options, flavour))
    if not tf_started:
        for name, value in environment_for(options, visible).items():
            env[name] = value
            applied.append(f"{name}={value} (set before TensorFlow starts)")
        if visible is not None:
            env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # so CUDA's indices are nvidia-smi's
    if runner is not None:
        applied.extend(apply_xla_cache(options, nvml, env, runner))
    tf = tf or _import_tf()
    with _before_initialisation(where):
        physical = _apply_visible(tf, visible, tf_started, applied)
        _apply_memory(tf, options, nvml, visible, physical, env, tf_started, applied, warnings)
        _apply_switches(tf, options, flavour, applied)
        cc = _compute_capability(tf, physical)
        policy = _policy_for(options.precision, cc, warnings)
        if policy != "float32":
            tf.keras.mixed_precision.set_global_policy(policy)
            applied.append(
                f"Keras policy {policy} (compute capability {cc[0]}.{cc[1]}); keep the output layer float32: Dense(..., dtype='float32')"
                if cc
                else policy
            )
        if options.batchnorm == "fused":
            from tfgpu.configure.batchnorm import use_fused_batch_normalization

            if use_fused_batch_normalization():
                applied.append("Keras BatchNormalization through cuDNN's fused kernel (1.9x ResNet-50 on an H200)")
            else:
                warnings.append("batchnorm='fused' applies to Keras 3 on TensorFlow; tf.keras fuses already")
        strategy, why = _strategy(tf, options, env)
        applied.append(why)
    return Setup(options, strategy, policy, applied, warnings)


def _apply_visible(tf: Any, visible: list[str] | None, tf_started: bool, applied: list[str]) -> list[Any]:
    """The physical GPUs TF will use: narrowed in TF itself when it started before setup() (else the environment did it)."""
    physical = list(tf.config.list_physical_devices("GPU"))
    if tf_started and visible is not None and physical:
        chosen = [physical[int(v)] for v in visible if v.isdigit() and int(v) < len(physical)]
        tf.config.set_visible_devices(chosen, "GPU")
        applied.append(f"visible GPUs: {', '.join(visible)} (tf.config.set_visible_devices)")
        return chosen
    return physical


def _apply_memory(
    tf: Any,
    options: GpuOptions,
    nvml: NvmlClient | None,
    visible: list[str] | None,
    physical: list[Any],
    env: Any,
    tf_started: bool,
    applied: list[str],
    warnings: list[str],
) -> None:
    """Memory growth, the async allocator, a limit and the split into logical devices."""
    if options.memory == "growth" and physical:  # without a GPU the warning below says so, once
        for gpu in physical:
            tf.config.experimental.set_memory_growth(gpu, True)
        applied.append("memory growth on every visible GPU: TF takes memory as it needs it")
    elif options.memory == "async" and tf_started:
        env["TF_GPU_ALLOCATOR"] = "cuda_malloc_async"
        applied.append("TF_GPU_ALLOCATOR=cuda_malloc_async")
    limit_mib = _limit_mib(options, nvml, visible, warnings)
    split = options.split or 1
    if physical and (limit_mib or split > 1):
        per = limit_mib or _even_share_mib(nvml, visible, split)
        configs = [tf.config.LogicalDeviceConfiguration(memory_limit=per) for _ in range(split)]
        tf.config.set_logical_device_configuration(physical[0], configs)
        applied.append(f"GPU 0 as {split} logical GPU(s) of {per} MiB each")
    elif split > 1:
        cpus = tf.config.list_physical_devices("CPU")
        tf.config.set_logical_device_configuration(
            cpus[0], [tf.config.LogicalDeviceConfiguration() for _ in range(split)]
        )
        applied.append(f"no GPU: the CPU split into {split} logical CPUs (to test multi-device code)")
    if (options.memory in ("growth", "async") or limit_mib) and not physical:
        warnings.append(f"memory={options.memory!r}: there is no GPU for it to apply to")


def _apply_switches(tf: Any, options: GpuOptions, flavour: KerasFlavour, applied: list[str]) -> None:
    """TF32, op determinism (with a seed when none is set), placement logging and XLA."""
    if options.tf32 is not None:
        tf.config.experimental.enable_tensor_float_32_execution(options.tf32)
        applied.append(f"TensorFloat-32 {'on' if options.tf32 else 'off'} for float32 matmuls and convolutions")
    if options.deterministic:
        tf.config.experimental.enable_op_determinism()
        applied.append("op determinism on (slower; same results run to run)")
        if _global_seed() is None:
            # TF refuses unseeded random ops under determinism ("Random ops require a seed to be
            # set"), which every Keras initializer is: an unmodified script would crash.
            tf.keras.utils.set_random_seed(DETERMINISTIC_SEED)
            applied.append(
                f"random seed {DETERMINISTIC_SEED} (determinism needs one; "
                "keras.utils.set_random_seed(N) in the script picks another)"
            )
    if options.log_placement:
        tf.debugging.set_log_device_placement(True)
        applied.append("device placement logging on")
    if options.xla is not None:
        tf.config.optimizer.set_jit("autoclustering" if options.xla == "auto" else bool(options.xla))
        applied.append(f"XLA JIT {options.xla}")
    if options.xla in (True, False) and flavour is KerasFlavour.TENSORFLOW:  # JAX's own jit stays as it is
        from tfgpu.configure.keras_jit import keras_auto_jit

        if keras_auto_jit(bool(options.xla)):
            applied.append(
                f"Keras's jit_compile='auto' means {'XLA' if options.xla else 'no XLA'} "
                "(a model compiled with an explicit jit_compile keeps it)"
            )


DETERMINISTIC_SEED = 0


def _global_seed() -> int | None:
    """TF's global random seed, None when unset (or when this TF cannot say: then one is set, harmlessly)."""
    try:
        from tensorflow.python.eager import context

        return context.global_seed()  # type: ignore[no-any-return]
    except (ImportError, AttributeError):
        return None


def _compute_capability(tf: Any, physical: list[Any]) -> tuple[int, int] | None:
    if not physical:
        return None
    details = tf.config.experimental.get_device_details(physical[0])
    cc = details.get("compute_capability")
    return (int(cc[0]), int(cc[1])) if cc else None


def _totals(nvml: NvmlClient | None, visible: list[str] | None) -> list[int]:
    if nvml is None:
        return []
    try:
        indices = [int(v) for v in visible if v.isdigit()] if visible else list(range(nvml.device_count()))
        return [nvml.memory_info(i).total_bytes for i in indices]
    except NvmlUnavailable:
        return []


def _limit_mib(
    options: GpuOptions, nvml: NvmlClient | None, visible: list[str] | None, warnings: list[str]
) -> int | None:
    if options.memory_limit_bytes:
        return options.memory_limit_bytes // 2**20
    if options.memory_limit_fraction:
        totals = _totals(nvml, visible)
        if not totals:
            raise DiagnosticError(
                "setup-memory-share-needs-nvml",
                f"memory={options.memory!r} needs the GPU's size from NVML",
                hint="give an absolute limit such as '6GiB'",
            )
        return int(min(totals) * options.memory_limit_fraction) // 2**20
    return None


def _even_share_mib(nvml: NvmlClient | None, visible: list[str] | None, split: int) -> int:
    totals = _totals(nvml, visible)
    # Leave ~10 % for CUDA's context and cuDNN/cuBLAS workspaces.
    return int(min(totals) * 0.9 / split) // 2**20 if totals else 1024


def check_output_layer(model: Any) -> str | None:
    """A warning when mixed precision is on and the last layer does not compute in float32."""
    layer = model.layers[-1]
    policy = getattr(layer, "dtype_policy", None)
    compute = getattr(policy, "compute_dtype", None) or getattr(layer, "compute_dtype", None)
    if compute and compute != "float32":
        return f"the output layer {layer.name!r} computes in {compute}: make it Dense(..., dtype='float32') (or add an Activation('linear', dtype='float32'))"
    return None


def options_from_environment(environ: Any) -> GpuOptions | None:
    """The options ``tfgpu run`` passed to its bootstrap (TFGPU_SETUP_JSON), if any."""
    raw = environ.get("TFGPU_SETUP_JSON")
    if not raw:
        return None
    data = json.loads(raw)
    data["gpus"] = tuple(data["gpus"]) if data.get("gpus") else None
    data["xla_cache"] = CacheMode(data["xla_cache"]) if data.get("xla_cache") else None
    return GpuOptions(**data)
