"""The doctor's versions block: every version a bug report needs, on a few lines.

What ``torch.utils.collect_env`` and ``accelerate env`` print for their frameworks, for
TensorFlow: the TensorFlow build and what it was built for, Keras and tf_keras, NumPy, a
co-installed PyTorch, Python, the OS, the CPU, the driver, the GPUs and the variables that choose
Keras's flavour and the visible GPUs. Read from the collected facts; nothing is imported.
"""

from __future__ import annotations

from tfgpu.model.facts import DriverFacts, Facts, HostFacts, PackageFacts, TensorFlowFacts, TfBuildInfo
from tfgpu.model.unavailable import Unavailable

BACKEND_VARIABLES = ("KERAS_BACKEND", "TF_USE_LEGACY_KERAS", "CUDA_VISIBLE_DEVICES")
"""The variables that decide which Keras trains and which GPUs it sees."""

_PACKAGES = (("Keras", "keras"), ("tf_keras", "tf-keras"), ("NumPy", "numpy"), ("PyTorch", "torch"))


def version_rows(facts: Facts) -> list[tuple[str, str]]:
    """(what, version) rows, in the order a reader checks them; what was not collected says so."""
    rows = [("TensorFlow", _tensorflow(facts.tensorflow))]
    packages = facts.packages
    if isinstance(packages, PackageFacts):
        for label, name in _PACKAGES:
            dist = packages.get(name)
            if dist is not None:
                rows.append((label, dist.version))
    host = facts.host
    if isinstance(host, HostFacts):
        box = (f"a {host.container} container" if host.container else "a container") + (
            f" of the {host.image.value} image" if host.image else ""
        )
        where = ", WSL2" if host.wsl else f", in {box}" if host.container or host.image else ""
        rows += [
            ("Python", f"{host.python_version} ({host.python_executable})"),
            ("OS", f"{host.os_release or host.os_name} ({host.kernel}, {host.machine}{where})"),
            ("CPU", host.cpu or "unknown"),
        ]
    ngc = facts.env("NVIDIA_TENSORFLOW_VERSION")
    if ngc:
        rows.append(
            (
                "Container",
                f"NVIDIA NGC TensorFlow {ngc}"
                + (f" (build {facts.env('NVIDIA_BUILD_ID')})" if facts.env("NVIDIA_BUILD_ID") else ""),
            )
        )
    driver = facts.driver
    rows.append(
        (
            "NVIDIA driver",
            f"{driver.driver_version}, CUDA up to {driver.cuda_driver_version}"
            if isinstance(driver, DriverFacts) and isinstance(driver.cuda_driver_version, str)
            else driver.driver_version
            if isinstance(driver, DriverFacts)
            else "none found",
        )
    )
    if not isinstance(facts.gpus, Unavailable) and facts.gpus:
        rows.append(
            (
                "GPUs",
                ", ".join(
                    f"{g.index}: {g.name}"
                    + (
                        f" (sm_{g.compute_capability.replace('.', '')})"
                        if isinstance(g.compute_capability, str)
                        else ""
                    )
                    for g in facts.gpus
                ),
            )
        )
    chosen = [f"{name}={facts.env(name)}" for name in BACKEND_VARIABLES if facts.env(name) is not None]
    rows.append(("Variables", ", ".join(chosen) if chosen else "none of " + ", ".join(BACKEND_VARIABLES)))
    return rows


def _tensorflow(tf: TensorFlowFacts | Unavailable | None) -> str:
    if tf is None:
        return "not installed"
    if isinstance(tf, Unavailable):
        return f"unknown ({tf.reason})"
    build = tf.build
    if not isinstance(build, TfBuildInfo):
        return f"{tf.distribution} {tf.version}"
    if not build.is_cuda_build:
        return f"{tf.distribution} {tf.version}, CPU-only build"
    return f"{tf.distribution} {tf.version}, built for CUDA {build.cuda_version}, cuDNN {build.cudnn_version}"
