"""GpuMonitor: a Keras callback that samples the GPUs on its own thread while ``fit`` runs.

Per epoch it adds ``gpu{i}/utilization_mean_percent``, ``gpu{i}/memory_used_max_bytes``,
``gpu{i}/temperature_max_celsius``, ``gpu{i}/power_mean_watts`` and ``gpu{i}/sm_clock_mean_mhz``
to ``logs``, so History, CSVLogger and TensorBoard record them: list GpuMonitor *before* those
callbacks. At the end it prints the bottleneck verdict. It overrides no batch hook (Keras runs
batch hooks inline in the training loop), so it costs no step time.

The class is created on first access, so importing this module imports neither Keras nor
TensorFlow: ``from tfgpu.integrations.keras import GpuMonitor`` does, as the user asked.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import time
from collections.abc import Sequence
from typing import Any

from tfgpu.configure.flavour import KerasFlavour, keras_flavour
from tfgpu.model.errors import DiagnosticError, NvmlUnavailable
from tfgpu.model.samples import EpochFigures, JudgedFrom, SampleStats, Verdict
from tfgpu.monitor.gauges import METRICS_INSTALL, metrics_available
from tfgpu.monitor.judging import judge_window
from tfgpu.monitor.sampler import DEFAULT_INTERVAL_SECONDS, Sampler
from tfgpu.monitor.verdict import RunFacts, format_verdicts
from tfgpu.nvml.client import NvmlClient

EPOCH_METRICS = (
    ("utilization_percent", "mean", "utilization_mean_percent"),
    ("memory_used_bytes", "max", "memory_used_max_bytes"),
    ("temperature_celsius", "max", "temperature_max_celsius"),
    ("power_draw_watts", "mean", "power_mean_watts"),
    ("sm_clock_mhz", "mean", "sm_clock_mean_mhz"),
)


def _callback_base() -> type:
    """The Callback of the Keras that trains: tf_keras under TF_USE_LEGACY_KERAS, else Keras 3.

    Each flavour's CallbackList calls hooks only its own Callback has (tf_keras asks every
    callback for ``_implements_train_batch_hooks``), so a Keras 3 subclass crashes a tf_keras fit.
    """
    if keras_flavour(os.environ) is KerasFlavour.TF_KERAS:
        import tf_keras

        return tf_keras.callbacks.Callback  # type: ignore[no-any-return]
    try:
        import keras

        return keras.callbacks.Callback  # type: ignore[no-any-return]
    except ImportError:
        from tensorflow import keras as tf_keras

        return tf_keras.callbacks.Callback  # type: ignore[no-any-return]


def _tf_memory_peak(indices: Sequence[int]) -> float | None:
    try:
        import tensorflow as tf

        return float(max(tf.config.experimental.get_memory_info(f"GPU:{i}")["peak"] for i in range(len(indices))))
    except Exception:  # noqa: BLE001 - a CPU build or an old TF has no such counter
        return None


def _tensorboard_scalar_metadata() -> Any:
    """The tag TensorBoard's scalar dashboard reads, from TF's own proto.

    TF 2.21 no longer installs tensorboard, and tf.summary.scalar is tensorboard's: without it the call
    raises TBNotInstalledError at the first epoch's end, inside the user's fit. tf.summary.write with this
    metadata is the same record, and TensorBoard reads it wherever it is installed.
    """
    from tensorflow.core.framework import summary_pb2

    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"),
        data_class=summary_pb2.DATA_CLASS_SCALAR,
    )


def _make_class() -> type:
    base = _callback_base()

    class GpuMonitor(base):  # type: ignore[valid-type, misc]
        """Sample GPUs during ``fit`` and name the bottleneck at the end.

        Args:
            gpus: NVML indices to watch (default: all).
            interval_seconds: sampling period (0.1 = 10 Hz).
            log_dir: also write the per-epoch GPU metrics as TensorBoard scalars there.
            plot: write a PNG of utilization, memory, temperature and clocks (needs matplotlib).
            verbose: print the verdict at the end of training.
            nvml: an NvmlClient (tests pass a fake); default the real NVML.
            prometheus_port: serve the GPUs' readings and the training's epoch and step seconds for
                Prometheus on this port, under DCGM exporter's names (needs tfgpu[metrics]).
            textfile: keep the same in a node-exporter textfile (replaced at every reading).
            batch_size: the batch fit() trains with, for ``tfgpu_training_samples_per_second`` (a Keras
                callback is not told it; the last partial batch of an epoch counts whole).
        """

        def __init__(
            self,
            gpus: Sequence[int] | None = None,
            interval_seconds: float = DEFAULT_INTERVAL_SECONDS,
            log_dir: str | None = None,
            plot: str | None = None,
            verbose: bool = True,
            nvml: NvmlClient | None = None,
            prometheus_port: int | None = None,
            textfile: str | None = None,
            batch_size: int | None = None,
        ) -> None:
            super().__init__()
            if batch_size is not None and (
                isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1
            ):
                raise DiagnosticError(
                    "gpumonitor-batch-size",
                    f"GpuMonitor(batch_size={batch_size!r}): give the batch fit() uses, a positive integer",
                )
            self.batch_size = batch_size
            if (prometheus_port is not None or textfile) and not metrics_available():
                raise DiagnosticError(
                    "gpumonitor-metrics-missing",
                    "GpuMonitor(prometheus_port=…, textfile=…) exposes metrics through prometheus_client",
                    hint=METRICS_INSTALL,
                )
            self.prometheus_port, self.textfile = prometheus_port, textfile
            self.exporter: Any = None
            self._xla_cache: Any = None
            self.gpus = gpus
            self.interval_seconds = interval_seconds
            self.log_dir = log_dir
            self.plot = plot
            self.verbose = verbose
            if plot and importlib.util.find_spec("matplotlib") is None:
                # Said now, not after an hour of training that ends with no picture.
                print(
                    f"GpuMonitor: plot={plot!r} needs matplotlib (pip install 'tfgpu[plot]'); no plot will be written"
                )
                self.plot = None
            self._nvml = nvml
            self.sampler: Sampler | None = None
            self.unavailable_reason: str | None = None
            self.verdicts: list[Verdict] = []
            self.epoch_marks: list[float] = []
            self._epoch_cpu: list[float] = []
            self._epoch_mark = 0.0
            self.epoch_seconds: list[float] = []
            self._epoch_start = 0.0
            self._start_wall = 0.0
            self._start_cpu = 0.0
            self._writer: Any = None
            self._scalar: Any = None  # the scalar tag TensorBoard reads, made with the writer

        def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
            client = self._nvml
            if client is None:
                from tfgpu.nvml.client import PynvmlClient

                client = PynvmlClient()
            try:
                indices = list(self.gpus) if self.gpus is not None else list(range(client.device_count()))
            except NvmlUnavailable as exc:
                indices, self.unavailable_reason = [], exc.reason
            if not indices:
                self.unavailable_reason = self.unavailable_reason or "NVML sees no GPU"
                if self.verbose:
                    print(
                        f"tfgpu GpuMonitor: no GPU is monitored ({self.unavailable_reason}); training goes on without it."
                    )
                return
            if self.prometheus_port is not None or self.textfile:
                from tfgpu.monitor.exposition import PrometheusSink, job_labels

                self.exporter = PrometheusSink(
                    socket.gethostname(),
                    client,
                    indices,
                    port=self.prometheus_port,
                    textfile=self.textfile,
                    job=job_labels(os.environ),
                )
                from tfgpu.xlacache.session import LiveUse

                self._xla_cache = LiveUse.of(os.environ)
                if self._xla_cache is not None:
                    self._xla_cache.__enter__()
            self.sampler = Sampler(client, indices, self.interval_seconds, on_sample=self.exporter)
            self._start_wall = time.monotonic()
            self._start_cpu = time.process_time()
            self.sampler.start()
            if self.log_dir:
                import tensorflow as tf

                self._writer = tf.summary.create_file_writer(os.path.join(self.log_dir, "gpu"))
                self._scalar = _tensorboard_scalar_metadata()

        def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
            self._epoch_start = time.monotonic()
            if self.sampler:
                self._epoch_mark = self.sampler.mark()
                self.epoch_marks.append(self._epoch_mark)
                self._epoch_cpu.append(time.process_time())

        def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
            self.epoch_seconds.append(time.monotonic() - self._epoch_start)
            epoch_stats = self.sampler.stats(since=self._epoch_mark) if self.sampler else []
            if self.exporter is not None:
                self.exporter.epoch(self._epoch_figures(epoch + 1, epoch_stats))
            if not self.sampler or logs is None:
                return
            for stats in epoch_stats:
                for metric, kind, name in EPOCH_METRICS:
                    value = getattr(stats.get(metric), kind)
                    if value is not None:
                        logs[f"gpu{stats.index}/{name}"] = float(value)
            if self._writer is not None:
                import tensorflow as tf

                with self._writer.as_default():
                    for key, value in logs.items():
                        if key.startswith("gpu"):
                            tf.summary.write(key, tf.constant(value, tf.float32), step=epoch, metadata=self._scalar)
                self._writer.flush()

        def _epoch_figures(self, number: int, epoch_stats: list[SampleStats]) -> EpochFigures:
            """The epoch that just ended, for the exposition: pace, GPU idle share, verdict, XLA cache use."""
            given = (getattr(self, "params", None) or {}).get("steps")
            steps = int(given) if given else None
            seconds = self.epoch_seconds[-1]
            busy = tuple(
                (s.index, float(mean)) for s in epoch_stats if (mean := s.get("utilization_percent").mean) is not None
            )
            verdict = None
            if self.sampler and number >= 2:  # the first epoch holds tracing and compilation: no verdict from it
                run = RunFacts(
                    wall_seconds=seconds,
                    steps=steps,
                    host_cpu_seconds=time.process_time() - self._epoch_cpu[-1],
                    jit_compile=_jit_compile(getattr(self, "model", None)),
                )
                judged = judge_window(self.sampler, run, JudgedFrom.WHOLE_RUN, self._epoch_mark).verdicts
                verdict = judged[0].id if judged else None
            xla = self._xla_cache
            return EpochFigures(
                number=number,
                seconds=seconds,
                first_seconds=self.epoch_seconds[0],
                steps=steps,
                samples=steps * self.batch_size if steps and self.batch_size else None,
                gpu_busy_percent=busy,
                verdict=verdict,
                xla_compiled=xla.compiled() if xla else None,
                xla_loaded=xla.loaded() if xla else None,
            )

        def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
            if self._xla_cache is not None:
                self._xla_cache.__exit__(None, None, None)
                self._xla_cache = None
            if not self.sampler:
                self.verdicts = list(judge_window(None, RunFacts(), JudgedFrom.WHOLE_RUN).verdicts)
                return
            self.sampler.stop()
            # Judged from the second epoch on when there is one: the first holds tracing and XLA's
            # compilation, which _first_epoch_cost names apart from the epoch times, and would drag the
            # GPU's use down (the MNIST CNN's 56 s compile against 2 s epochs on the H200 read as idle).
            since = self.epoch_marks[1] if len(self.epoch_marks) >= 2 else None
            judged_epochs = len(self.epoch_marks) - (1 if since is not None else 0)
            params = getattr(self, "params", None) or {}
            steps = int(params["steps"]) * judged_epochs if params.get("steps") and judged_epochs else None
            run = RunFacts(
                wall_seconds=time.monotonic() - (since if since is not None else self._start_wall),
                steps=steps,
                host_cpu_seconds=time.process_time() - (self._epoch_cpu[1] if since is not None else self._start_cpu),
                tf_memory_peak_bytes=_tf_memory_peak(self.sampler.gpu_indices),
                epoch_seconds=tuple(self.epoch_seconds),
                jit_compile=_jit_compile(getattr(self, "model", None)),
                unfused_batchnorm_layers=_unfused_batchnorm_layers(getattr(self, "model", None)),
            )
            judged_from = JudgedFrom.SECOND_EPOCH if since is not None else JudgedFrom.WHOLE_RUN
            self.verdicts = list(judge_window(self.sampler, run, judged_from, since).verdicts)
            if self.plot:
                from tfgpu.monitor.plot import plot_samples

                plot_samples(self.sampler.samples(), self.plot, epoch_marks=self.epoch_marks)
            if self.verbose:
                print(format_verdicts(self.verdicts))

    return GpuMonitor


def _jit_compile(model: Any) -> bool | None:
    """Whether Keras compiled the model with XLA (its ``jit_compile`` after "auto" was resolved)."""
    try:
        value = getattr(model, "jit_compile", None)
    except Exception:  # noqa: BLE001 - a model that cannot say is judged without it
        return None
    return value if isinstance(value, bool) else None


def _unfused_batchnorm_layers(model: Any) -> int | None:
    """Keras 3 BatchNormalization layers that run unfused on TensorFlow (configure/batchnorm.py counts them)."""
    from tfgpu.configure.batchnorm import unfused_batchnorm_layers

    try:
        return unfused_batchnorm_layers(model) if model is not None else None
    except Exception:  # noqa: BLE001 - a model that cannot say is judged without it
        return None


def __getattr__(name: str) -> Any:
    if name == "GpuMonitor":
        cls = _make_class()
        globals()["GpuMonitor"] = cls
        return cls
    raise AttributeError(name)


__all__ = ["GpuMonitor"]  # noqa: F822 - created on first access by __getattr__
