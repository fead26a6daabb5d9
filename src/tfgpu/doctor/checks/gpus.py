"""Each GPU: can TF's build run on it, is it free, is it cool.

Sources: TF pip.md "Hardware requirements" and knowledge/data/tf_archs.csv for architectures;
NVML clocks-event reasons (nvml.h) for throttling.
"""

from __future__ import annotations

from tfgpu.knowledge.archs import ARCH_SOURCE, KernelSupport, classify, parse_build_capabilities, parse_cc
from tfgpu.knowledge.compat import arch_row, gpu_model, tf_releases, version_key
from tfgpu.knowledge.fixes import install_tf_with_cuda
from tfgpu.knowledge.gpu_memory import GIB, memory_in_use
from tfgpu.model.facts import Facts, GpuFacts, TensorFlowFacts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.samples import THERMAL_REASONS
from tfgpu.model.unavailable import Unavailable

H = Section.HARDWARE

PTX_JIT_SOURCE = "https://github.com/tensorflow/tensorflow/issues/62320"
BLACKWELL_SOURCE = "https://github.com/tensorflow/tensorflow/issues/89272"
"""TF on an RTX 5090 (and #99592, #101746: CUDA_ERROR_INVALID_PTX / INVALID_HANDLE on RTX 50xx; the NGC container worked)."""
BLACKWELL_MAJOR = 10


def _cc(gpu: GpuFacts) -> str | None:
    if isinstance(gpu.compute_capability, str):
        return gpu.compute_capability
    model = gpu_model(gpu.name)
    return model.compute_capability if model else None


def check_gpus(facts: Facts) -> list[Finding]:
    """Per GPU: present, usable by TF's build, not lost, not busy, not throttling.

    Finding ids: ``gpu-present`` (ok), ``gpu-lost``, ``gpu-compute-capability-too-low``,
    ``gpu-needs-ptx-jit``, ``gpu-blackwell-unsupported``, ``gpu-no-compatible-kernel``, ``gpu-memory-in-use``, ``gpu-throttling``,
    ``gpu-hot``, ``gpu-mig-enabled``, ``gpus-linked-across-cpus``.
    """
    if isinstance(facts.gpus, Unavailable):
        return []
    out: list[Finding] = []
    for gpu in facts.gpus:
        out.extend(_one_gpu(facts, gpu))
    out.extend(_topology(facts.gpus))
    return out


def _topology(gpus: tuple[GpuFacts, ...]) -> list[Finding]:
    """GPU pairs that reach each other only across the CPU sockets' interconnect (nvidia-smi's SYS).

    Replicas on such a pair send every all-reduce through both CPUs' memory; keeping a job on
    GPUs of one socket (or NVLink) is the fix. Source: nvmlGpuTopologyLevel_t in nvml.h.
    """
    via = {
        (min(g.index, link.peer), max(g.index, link.peer)): link.via
        for g in gpus
        if not isinstance(g.links, Unavailable)
        for link in g.links
    }
    far = sorted(pair for pair, how in via.items() if how == "system")
    if not far:
        return []
    near = sorted(pair for pair, how in via.items() if how != "system")
    pairs = ", ".join(f"GPU {a}-{b}" for a, b in far)
    hint = (
        f"For multi-GPU training pick GPUs that share a socket, e.g. tfgpu.setup(gpus='{near[0][0]},{near[0][1]}')."
        if near
        else "Every pair crosses the sockets: expect all-reduce to cost more than on an NVLink machine."
    )
    return [
        Finding(
            "gpus-linked-across-cpus",
            Severity.INFO,
            H,
            f"{pairs} reach each other only across the CPUs' interconnect (nvidia-smi topo: SYS)",
            detail="No NVLink and no shared PCIe host bridge between them: gradients cross host memory.",
            hint=hint,
        )
    ]


def _one_gpu(facts: Facts, gpu: GpuFacts) -> list[Finding]:
    label = f"GPU {gpu.index} ({gpu.name})"
    if isinstance(gpu.memory_total_bytes, Unavailable) and "fallen off the bus" in gpu.memory_total_bytes.reason:
        return [
            Finding(
                "gpu-lost",
                Severity.ERROR,
                H,
                f"{label} has fallen off the bus",
                detail=gpu.memory_total_bytes.reason,
                hint="Check `dmesg` for Xid 79, power and cooling; the machine needs a reboot.",
            )
        ]
    cc = _cc(gpu)
    memory = "" if isinstance(gpu.memory_total_bytes, Unavailable) else f", {gpu.memory_total_bytes / GIB:.0f} GiB"
    out = [Finding("gpu-present", Severity.OK, H, f"{label}, compute capability {cc or '?'}{memory}")]
    if cc:
        out.extend(_architecture(facts, label, cc))
    out.extend(_busy(label, gpu))
    out.extend(_thermal(label, gpu))
    if gpu.mig_mode is True:
        out.append(
            Finding(
                "gpu-mig-enabled",
                Severity.INFO,
                H,
                f"{label} is in MIG mode",
                detail="TF sees MIG instances, not the whole GPU, and one process can use one instance.",
                hint="Select an instance with CUDA_VISIBLE_DEVICES=MIG-<uuid> (see `nvidia-smi -L`).",
            )
        )
    return out


def _architecture(facts: Facts, label: str, cc_text: str) -> list[Finding]:
    tf = facts.tensorflow
    if not isinstance(tf, TensorFlowFacts) or isinstance(tf.build, Unavailable) or not tf.build.is_cuda_build:
        return []
    archs = parse_build_capabilities(tf.build.compute_capabilities)
    cc = parse_cc(cc_text)
    support = classify(cc, archs)
    built = ", ".join(tf.build.compute_capabilities)
    if support is KernelSupport.BELOW_MINIMUM:
        older = _newest_tf_for_cc(cc)
        fix = install_tf_with_cuda(facts, older) if older else "Use a newer GPU."
        return [
            Finding(
                "gpu-compute-capability-too-low",
                Severity.ERROR,
                H,
                f"{label} (compute capability {cc_text}) is older than TF {tf.version} supports",
                detail=f"TF {tf.version} was built for {built}; it ignores GPUs below {archs.minimum[0]}.{archs.minimum[1]}"
                if archs.minimum
                else f"TF {tf.version} was built for {built}.",
                hint=f"{fix}  (the newest TF built for compute capability {cc_text})" if older else fix,
                link=ARCH_SOURCE,
            )
        ]
    if support is KernelSupport.PTX_JIT and cc[0] >= BLACKWELL_MAJOR:
        return [
            Finding(
                "gpu-blackwell-unsupported",
                Severity.ERROR,
                H,
                f"TF {tf.version} does not train on {label} (compute capability {cc_text}): no official wheel targets it",
                detail=(
                    f"TF {tf.version} has machine code for {built} only. On Blackwell GPUs the driver's JIT of its PTX "
                    "fails for the MLIR-generated kernels: elementwise ops end with CUDA_ERROR_INVALID_PTX and "
                    "CUDA_ERROR_INVALID_HANDLE (tf_gpu_runtime_wrappers.cc), reported with TF 2.16-2.20 on RTX 50xx "
                    "cards; users got it to train in NVIDIA's NGC TensorFlow container, with a TF built from source "
                    "for this architecture, or with community wheels built for compute_120."
                ),
                hint=f"use an NGC TensorFlow container (nvcr.io/nvidia/tensorflow) whose release notes list compute "
                f"capability {cc_text}, or build TF from source with TF_CUDA_COMPUTE_CAPABILITIES={cc_text} "
                "(community wheels: github.com/mypapit/tensorflowRTX50)",
                link=BLACKWELL_SOURCE,
            )
        ]
    if support is KernelSupport.PTX_JIT:
        return [
            Finding(
                "gpu-needs-ptx-jit",
                Severity.WARNING,
                H,
                f"{label} (compute capability {cc_text}) is newer than every architecture TF {tf.version} ships",
                detail=(
                    f"TF {tf.version} has machine code for {built}; the driver must JIT-compile PTX for this GPU at "
                    "start-up, which can take 30 minutes or longer the first time, and some kernels fail "
                    "(CUDA_ERROR_INVALID_HANDLE / INVALID_PTX seen on Blackwell)."
                ),
                hint="export CUDA_CACHE_MAXSIZE=4294967296  (keeps the JIT result between runs); for full support "
                "build TensorFlow from source for this architecture or use a newer release.",
                link=PTX_JIT_SOURCE,
            )
        ]
    if support is KernelSupport.NO_KERNEL:
        return [
            Finding(
                "gpu-no-compatible-kernel",
                Severity.ERROR,
                H,
                f"TF {tf.version} has no kernel code that runs on {label} (compute capability {cc_text})",
                detail=f"Built for {built}: no SASS of this major and no older PTX ('device kernel image is invalid').",
                hint="Install a TensorFlow release built for this architecture.",
                link=ARCH_SOURCE,
            )
        ]
    return []


def _newest_tf_for_cc(cc: tuple[int, int]) -> str | None:
    for release in tf_releases("linux-gpu"):
        row = arch_row(release.version)
        if row and row["min_supported_cc"] and parse_cc(row["min_supported_cc"]) <= cc:
            return ".".join(str(p) for p in version_key(release.version)[:2])
    return None


def _busy(label: str, gpu: GpuFacts) -> list[Finding]:
    held = memory_in_use(gpu)
    if held is None:
        return []
    return [
        Finding(
            "gpu-memory-in-use",
            Severity.WARNING,
            H,
            f"{label}: {held.used_gib:.1f} of {held.total_gib:.1f} GiB already in use",
            detail=f"Other processes hold GPU memory{': ' + held.holders if held.holders else ''}. "
            "TF by default takes almost all free memory and may OOM.",
            hint="Stop them, pick a free GPU with CUDA_VISIBLE_DEVICES, or set TF_FORCE_GPU_ALLOW_GROWTH=true.",
        )
    ]


def _thermal(label: str, gpu: GpuFacts) -> list[Finding]:
    out = []
    reasons = () if isinstance(gpu.throttle_reasons, Unavailable) else gpu.throttle_reasons
    slowing = sorted(set(THERMAL_REASONS).intersection(reasons))
    if slowing:
        out.append(
            Finding(
                "gpu-throttling",
                Severity.WARNING,
                H,
                f"{label} is slowing its clocks now: {', '.join(slowing)}",
                detail="Thermal or hardware slowdown lowers every step's speed.",
                hint="Check cooling, airflow and power delivery (`nvidia-smi -q -d PERFORMANCE,TEMPERATURE`).",
            )
        )
    temp, limit = gpu.temperature_celsius, gpu.slowdown_temperature_celsius
    if isinstance(temp, int) and isinstance(limit, int) and temp >= limit - 5:
        out.append(
            Finding(
                "gpu-hot",
                Severity.WARNING,
                H,
                f"{label} is at {temp} °C, within 5 °C of its slowdown point ({limit} °C)",
                hint="Improve cooling before long training runs.",
            )
        )
    return out
