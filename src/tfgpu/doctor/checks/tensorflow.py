"""The TensorFlow install: present, one distribution, a CUDA build, a matching Keras, a supported Python.

Sources: tensorflow/docs site/en/install/pip.md (and-cuda extra, native Windows ends at 2.10,
tensorflow-gpu removed); source.md tested build configurations (knowledge/data/tf_builds.csv);
the Keras 3 migration notes of TF 2.16.
"""

from __future__ import annotations

import shlex

from tfgpu.doctor.checks.driver import no_nvidia_gpu
from tfgpu.knowledge.compat import major_minor, newest_release, newest_release_for_python, tf_release, version_key
from tfgpu.knowledge.fixes import TF_INSTALL_DOCS, install_tf_for_cpu, install_tf_with_cuda, pip, target_tf_version
from tfgpu.model.facts import Facts, HostFacts, PackageFacts, TensorFlowFacts
from tfgpu.model.findings import Finding, Section, Severity
from tfgpu.model.probe import ProbeOutcome
from tfgpu.model.unavailable import Unavailable
from tfgpu.system.packages import TF_DISTRIBUTIONS

T = Section.TENSORFLOW
WINDOWS_DOCS = "https://www.tensorflow.org/install/pip#windows-native"
KERAS_COMPILE_DOCS = "https://keras.io/api/models/model_training_apis/#compile-method"
KERAS3_DOCS = "https://keras.io/getting_started/#tensorflow--keras-2-backwards-compatibility"
CONDA_FORGE_CUDA_DOCS = (
    "https://conda-forge.org/docs/user/tipsandtricks/#installing-cuda-enabled-packages-like-tensorflow-and-pytorch"
)
JAX_INSTALL_DOCS = "https://docs.jax.dev/en/latest/installation.html#nvidia-gpu"
TORCH_INSTALL_DOCS = "https://pytorch.org/get-started/locally/"
TORCH_CUDA_INDEX = "https://download.pytorch.org/whl/cu126"
"""PyTorch's CUDA 12.6 wheels: a CUDA 12 driver runs them, as it runs TF's CUDA 12.5 build."""


def check_tensorflow(facts: Facts) -> list[Finding]:
    """Is a single CUDA build of TensorFlow installed, with a Keras that fits it?

    Finding ids: ``tensorflow-installed`` (ok), ``tensorflow-not-installed``,
    ``tensorflow-multiple-distributions``, ``tensorflow-gpu-removed``, ``tf-built-without-cuda``,
    ``tf-build-info-unreadable``, ``tf-rocm-build``, ``windows-native-no-gpu``,
    ``keras-version-mismatch``, ``tf-keras-version-mismatch``, ``keras-xla-by-default``,
    ``keras-batchnorm-unfused``, ``tf-keras-missing``, ``keras-backend-without-gpu``,
    ``keras-backend-not-tensorflow``.
    """
    tf, packages, host = facts.tensorflow, facts.packages, facts.host
    out: list[Finding] = []
    if isinstance(host, HostFacts) and host.os_name == "Windows":
        out.extend(_windows(facts, tf))
    if tf is None:
        no_gpu = no_nvidia_gpu(facts)
        out.append(
            Finding(
                "tensorflow-not-installed",
                Severity.ERROR,
                T,
                "TensorFlow is not installed in this Python",
                detail=_python_line(host)
                + (" No NVIDIA GPU here: the CPU build is all it needs." if no_gpu else "")
                + " If you train with another Python (a venv, a conda environment, a Jupyter kernel), diagnose that "
                "one: `tfgpu doctor --python PATH`, where PATH is its python or its environment's directory.",
                hint=install_tf_for_cpu(facts) if no_gpu else install_tf_with_cuda(facts),
                link=TF_INSTALL_DOCS,
            )
        )
        return out
    if isinstance(tf, Unavailable):
        return out
    if isinstance(packages, PackageFacts):
        out.extend(_distributions(facts, tf, packages))
        out.extend(_keras(facts, tf, packages))
    out.extend(_build(facts, tf, host))
    return out


def _python_line(host: HostFacts | Unavailable) -> str:
    if isinstance(host, Unavailable):
        return ""
    return f"Python {host.python_version} at {host.python_executable}."


def _windows(facts: Facts, tf: TensorFlowFacts | Unavailable | None) -> list[Finding]:
    version = tf.version if isinstance(tf, TensorFlowFacts) else None
    if version and version != "unknown" and version_key(version) < (2, 11):
        return []
    return [
        Finding(
            "windows-native-no-gpu",
            Severity.ERROR,
            T,
            "TensorFlow above 2.10 has no GPU support on native Windows",
            detail="TF 2.10 was the last release that supported GPUs on native Windows; newer wheels are CPU-only there.",
            hint='Use WSL2 (then: pip install "tensorflow[and-cuda]"), or TF 2.10 on native Windows: '
            'pip install "tensorflow<2.11" with CUDA 11.2 and cuDNN 8.1 on Python 3.7-3.10.',
            link=WINDOWS_DOCS,
        )
    ]


def _distributions(facts: Facts, tf: TensorFlowFacts, packages: PackageFacts) -> list[Finding]:
    out = []
    installed = [packages.get(n) for n in TF_DISTRIBUTIONS]
    present = [d for d in installed if d is not None]
    if len(present) > 1:
        names = " ".join(d.name for d in present)
        listing = ", ".join(f"{d.name} {d.version}" for d in present)
        out.append(
            Finding(
                "tensorflow-multiple-distributions",
                Severity.ERROR,
                T,
                f"Several TensorFlow distributions are installed: {listing}",
                detail="They all write the same tensorflow/ directory, so the files on disk are a mix of whichever was installed last.",
                hint=install_tf_with_cuda(facts, uninstalling=tuple(names.split())),
            )
        )
    gpu_pkg = packages.get("tensorflow-gpu")
    if gpu_pkg and version_key(gpu_pkg.version) >= (2, 11):
        out.append(
            Finding(
                "tensorflow-gpu-removed",
                Severity.ERROR,
                T,
                f"tensorflow-gpu {gpu_pkg.version} is a removed, empty package",
                detail="tensorflow-gpu is no longer published; GPU support is in `tensorflow` itself (with the and-cuda extra on Linux).",
                hint=install_tf_with_cuda(facts),
                link=TF_INSTALL_DOCS,
            )
        )
    return out


def _build(facts: Facts, tf: TensorFlowFacts, host: HostFacts | Unavailable) -> list[Finding]:
    build = tf.build
    if isinstance(build, Unavailable):
        return [
            Finding(
                "tf-build-info-unreadable",
                Severity.WARNING,
                T,
                f"Cannot read what TF {tf.version} was built for",
                detail=build.reason,
                hint=f"Reinstall TensorFlow: {install_tf_with_cuda(facts)}",
            )
        ]
    if build.is_rocm_build:
        return [
            Finding("tf-rocm-build", Severity.INFO, T, f"{tf.distribution} {tf.version} is a ROCm build (AMD GPUs)")
        ]
    is_macos = isinstance(host, HostFacts) and host.os_name == "Darwin"
    if not build.is_cuda_build:
        if is_macos:
            return []
        if no_nvidia_gpu(facts):
            return [
                Finding(
                    "tf-built-without-cuda",
                    Severity.INFO,
                    T,
                    f"{tf.distribution} {tf.version} is a CPU-only build: the right one without an NVIDIA GPU",
                    detail="Its build_info says is_cuda_build=False; the CUDA build would add about 3 GB of "
                    "libraries that nothing here could load.",
                )
            ]
        if _installed_by_conda(facts, tf):
            return [
                Finding(
                    "tf-built-without-cuda",
                    Severity.ERROR,
                    T,
                    f"{tf.distribution} {tf.version} from conda is conda-forge's CPU-only variant",
                    detail="Its build_info says is_cuda_build=False. conda-forge builds TensorFlow twice (build strings "
                    "cuda… and cpu_…) under one name; the solver takes the CPU one when it sees no CUDA driver, as "
                    "in an environment solved in a container build.",
                    hint=_conda_cuda_variant(facts, tf),
                    link=CONDA_FORGE_CUDA_DOCS,
                )
            ]
        return [
            Finding(
                "tf-built-without-cuda",
                Severity.ERROR,
                T,
                f"{tf.distribution} {tf.version} is a CPU-only build",
                detail="Its build_info says is_cuda_build=False: this TensorFlow can never use a GPU.",
                hint=install_tf_with_cuda(facts, uninstalling=(tf.distribution,)),
                link=TF_INSTALL_DOCS,
            )
        ]
    caps = ", ".join(build.compute_capabilities)
    return [
        Finding(
            "tensorflow-installed",
            Severity.OK,
            T,
            f"{tf.distribution} {tf.version}, built for CUDA {build.cuda_version} / cuDNN {build.cudnn_version} ({caps})",
            detail=tf.package_dir,
        )
    ]


def _keras(facts: Facts, tf: TensorFlowFacts, packages: PackageFacts) -> list[Finding]:
    out = []
    tf_key = version_key(tf.version)
    keras = packages.get("keras")
    if keras and tf_key >= (2, 16) and version_key(keras.version) < (3,):
        out.append(
            Finding(
                "keras-version-mismatch",
                Severity.ERROR,
                T,
                f"keras {keras.version} with TF {tf.version}, which needs Keras 3",
                detail="From TF 2.16 tf.keras is Keras 3; Keras 2 code needs the tf-keras package and TF_USE_LEGACY_KERAS=1.",
                hint=pip(facts, "install", "--upgrade", "keras>=3"),
                link=KERAS3_DOCS,
            )
        )
    if keras and tf_key < (2, 16) and version_key(keras.version) >= (3,):
        out.append(
            Finding(
                "keras-version-mismatch",
                Severity.ERROR,
                T,
                f"keras {keras.version} (Keras 3) with TF {tf.version}, which ships Keras 2",
                detail="TF before 2.16 imports its own Keras 2; Keras 3 breaks `import tensorflow`'s keras module.",
                hint=pip(facts, "install", f"keras~={tf_key[0]}.{tf_key[1]}.0"),
                link=KERAS3_DOCS,
            )
        )
    if keras and tf_key >= (2, 16) and version_key(keras.version) >= (3,):
        out.extend(_keras_xla_default(facts, tf))
        out.extend(_keras_batchnorm(facts, tf))
    out.extend(_keras_backend(facts, packages))
    tf_keras = packages.get("tf-keras")
    if facts.env("TF_USE_LEGACY_KERAS") == "1" and tf_keras is None and tf_key >= (2, 16):
        out.append(
            Finding(
                "tf-keras-missing",
                Severity.ERROR,
                T,
                "TF_USE_LEGACY_KERAS=1 asks for tf_keras, which is not installed",
                detail="tf.keras then fails at its first use: TF looks for the tf_keras package instead of Keras 3.",
                hint=pip(facts, "install", f"tf-keras=={major_minor(tf.version)}.*"),
                link=KERAS3_DOCS,
            )
        )
    if tf_keras and major_minor(tf_keras.version) != major_minor(tf.version):
        out.append(
            Finding(
                "tf-keras-version-mismatch",
                Severity.WARNING,
                T,
                f"tf-keras {tf_keras.version} does not match TF {tf.version}",
                detail="tf-keras is released in lockstep with TensorFlow; another minor version may fail at import.",
                hint=pip(facts, "install", f"tf-keras=={major_minor(tf.version)}.*"),
            )
        )
    return out


def _installed_by_conda(facts: Facts, tf: TensorFlowFacts) -> bool:
    packages = facts.packages
    dist = packages.get(tf.distribution) if isinstance(packages, PackageFacts) else None
    return dist is not None and dist.installer == "conda"


def _conda_cuda_variant(facts: Facts, tf: TensorFlowFacts) -> str:
    """``conda install`` of conda-forge's CUDA variant of this TF, with the CUDA the solver must assume.

    CONDA_OVERRIDE_CUDA stands in for the ``__cuda`` virtual package a driver provides (conda-forge's
    documentation); ``-p`` names the environment the facts came from.
    """
    host = facts.host
    prefix = host.conda_prefix if isinstance(host, HostFacts) else None
    where = f" -p {shlex.quote(prefix)}" if prefix else ""
    spec = f"tensorflow={major_minor(tf.version)}=cuda*"
    return f"CONDA_OVERRIDE_CUDA=12.0 conda install{where} -c conda-forge {shlex.quote(spec)}"


def _keras_backend(facts: Facts, packages: PackageFacts) -> list[Finding]:
    """KERAS_BACKEND makes JAX or PyTorch the framework that trains a Keras 3 model: its GPU package is what counts.

    TensorFlow's GPU, tfgpu.setup() and the TF_* variables then do not reach the model
    (configure/flavour.py says the same to `tfgpu run`).
    """
    backend = (facts.env("KERAS_BACKEND") or "").strip().lower()
    if backend in ("", "tensorflow") or facts.env("TF_USE_LEGACY_KERAS") == "1":
        return []
    note = (
        f"KERAS_BACKEND={backend}: Keras 3 trains with {backend}, not TensorFlow; TensorFlow's GPU, tfgpu.setup() "
        "and the TF_* variables do not reach the model."
    )
    if backend == "jax":
        plugin = packages.get("jax-cuda12-plugin") or packages.get("jax-cuda13-plugin")
        if packages.get("jax") is None or plugin is None:
            return [
                Finding(
                    "keras-backend-without-gpu",
                    Severity.WARNING,
                    T,
                    "Keras trains with JAX here, and JAX has no CUDA plugin: it runs on the CPU",
                    detail=note + " JAX finds a GPU only through its jax-cuda12-plugin (the cuda12 extra).",
                    hint=pip(facts, "install", "--upgrade", "jax[cuda12]"),
                    link=JAX_INSTALL_DOCS,
                )
            ]
    if backend == "torch":
        torch = packages.get("torch")
        if torch is None or torch.version.endswith("+cpu"):
            return [
                Finding(
                    "keras-backend-without-gpu",
                    Severity.WARNING,
                    T,
                    "Keras trains with PyTorch here, and "
                    + ("PyTorch is not installed" if torch is None else f"torch {torch.version} is a CPU-only build"),
                    detail=note,
                    hint=pip(facts, "install", "--upgrade", "torch", "--index-url", TORCH_CUDA_INDEX),
                    link=TORCH_INSTALL_DOCS,
                )
            ]
    return [
        Finding("keras-backend-not-tensorflow", Severity.INFO, T, f"Keras 3 trains with {backend} here", detail=note)
    ]


def _keras_xla_default(facts: Facts, tf: TensorFlowFacts) -> list[Finding]:
    """Keras 3 resolves jit_compile="auto" to XLA whenever TensorFlow sees a GPU.

    Measured on the H200 (docs/performance.md): the MNIST CNN's first epoch took 55-62 s with
    XLA against 0.3-2.5 s without, which made a one-epoch run look 25x slower than it is.
    """
    if not _trains_on_gpu_with_keras3(facts, tf):
        return []  # TensorFlow will not use the GPU (or Keras 3 is not the one training), so Keras will not pick XLA
    if facts.probe is not None and any(t.jit_compile == "auto" for t in facts.probe.training):
        return []  # the probe measured what XLA does here; its own findings say it
    return [
        Finding(
            "keras-xla-by-default",
            Severity.INFO,
            T,
            'Keras 3 compiles models with XLA on this GPU unless told otherwise (jit_compile="auto")',
            detail=(
                "The first epoch pays XLA's compilation, again for every new input shape (55-62 s for a small "
                "CNN on an H200): a short run or a one-epoch benchmark measures the compiler, not training."
            ),
            hint=(
                "Train under `tfgpu run` (or call tfgpu.setup()): its XLA cache keeps the compiled programs and, on "
                "sm_90 and newer, skips the rewrite that made the compile slow (on an H200: that CNN's first epoch "
                "13 s, the next run's 3.8 s, ResNet-50 under XLA 4x faster than without); for a one-off short run, "
                "model.compile(..., jit_compile=False) or `tfgpu run --xla off`; `tfgpu tune` measures both."
            ),
            link=KERAS_COMPILE_DOCS,
        )
    ]


def _trains_on_gpu_with_keras3(facts: Facts, tf: TensorFlowFacts) -> bool:
    """Keras 3 on the TensorFlow backend, with a CUDA build that will use the GPU NVML sees."""
    gpus = facts.gpus
    cuda = not isinstance(tf.build, Unavailable) and tf.build.is_cuda_build
    if not cuda or isinstance(gpus, Unavailable) or not gpus or facts.env("TF_USE_LEGACY_KERAS") == "1":
        return False
    if facts.env("KERAS_BACKEND") not in (None, "", "tensorflow"):
        return False
    hidden = facts.env("CUDA_VISIBLE_DEVICES") in ("", "-1")
    return not (hidden or (facts.probe is not None and facts.probe.outcome is ProbeOutcome.OK and not facts.probe.gpus))


def _keras_batchnorm(facts: Facts, tf: TensorFlowFacts) -> list[Finding]:
    """Keras 3 runs BatchNormalization as separate ops on TensorFlow, where tf.keras called cuDNN's fused kernel.

    Measured on the H200 (docs/performance.md §5b): Keras 3's ResNet-50 trained at 871 img/s
    float32 and 1,653 with the fused kernel, the GPU busy either way.
    """
    if not _trains_on_gpu_with_keras3(facts, tf):
        return []
    return [
        Finding(
            "keras-batchnorm-unfused",
            Severity.INFO,
            T,
            "Keras 3 runs BatchNormalization as separate small ops on TensorFlow (tf.keras used cuDNN's fused kernel)",
            detail=(
                "Models built of convolutions and batch norm (ResNet, EfficientNet, MobileNet...) train slower than "
                "the GPU allows, with the GPU busy: Keras 3's ResNet-50 trained 1.9x faster on an H200 through "
                "the fused kernel, with Keras's results."
            ),
            hint='tfgpu.setup(batchnorm="fused") before building the model, or `tfgpu run --batchnorm fused -- python train.py`',
        )
    ]


def check_python(facts: Facts) -> list[Finding]:
    """Is this Python inside the range TF releases are built and tested for?

    Finding ids: ``python-supported`` (ok), ``python-unsupported-by-tensorflow``, ``python-too-new-for-tensorflow``.
    """
    host, tf = facts.host, facts.tensorflow
    if isinstance(host, Unavailable):
        return []
    py = host.python_version
    newest = newest_release()
    if isinstance(tf, TensorFlowFacts) and tf.version != "unknown":
        release = tf_release(tf.version)
        if release and not release.supports_python(py):
            best = newest_release_for_python(py)
            return [
                Finding(
                    "python-unsupported-by-tensorflow",
                    Severity.WARNING,
                    T,
                    f"Python {py} is outside TF {tf.version}'s tested range {release.python_min}-{release.python_max}",
                    hint=install_tf_with_cuda(facts, major_minor(best.version)) if best else "",
                    link=release.source_url,
                )
            ]
        return [Finding("python-supported", Severity.OK, T, f"Python {py} ({host.python_executable})")]
    if newest_release_for_python(py) is None and version_key(py) > version_key(newest.python_max):
        return [
            Finding(
                "python-too-new-for-tensorflow",
                Severity.ERROR,
                T,
                f"No TensorFlow release supports Python {py} yet",
                detail=f"The newest, TF {newest.version}, supports Python {newest.python_min}-{newest.python_max}.",
                hint=f"Create a Python {newest.python_max} environment: python{newest.python_max} -m venv .venv && "
                f'.venv/bin/pip install "tensorflow[and-cuda]=={target_tf_version(facts)}.*"',
                link=newest.source_url,
            )
        ]
    return []
