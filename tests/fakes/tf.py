"""fake_tf(): a tf namespace whose config calls are recorded (DESIGN 8.10, configure.apply)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.fail_with: str | None = None

    def fn(self, name: str, result: Any = None):
        def call(*args: Any, **kwargs: Any) -> Any:
            if self.fail_with and name.startswith(("set_", "experimental.set")):
                raise RuntimeError(self.fail_with)
            self.calls.append((name, args))
            return result

        return call


def fake_tf(
    gpus: int = 1, cc: tuple[int, int] = (9, 0), recorder: Recorder | None = None
) -> tuple[SimpleNamespace, Recorder]:
    rec = recorder or Recorder()
    physical = [SimpleNamespace(name=f"/physical_device:GPU:{i}", device_type="GPU") for i in range(gpus)]
    cpu = [SimpleNamespace(name="/physical_device:CPU:0", device_type="CPU")]
    logical = {
        "GPU": [SimpleNamespace(name=f"/device:GPU:{i}") for i in range(gpus)],
        "CPU": [SimpleNamespace(name="/device:CPU:0")],
    }
    strategies = SimpleNamespace(
        MirroredStrategy=lambda devices=None: SimpleNamespace(
            kind="Mirrored", devices=devices, num_replicas_in_sync=len(devices or [])
        ),
        OneDeviceStrategy=lambda device: SimpleNamespace(kind="OneDevice", num_replicas_in_sync=1),
        MultiWorkerMirroredStrategy=lambda cluster_resolver=None: SimpleNamespace(
            kind="MultiWorker", num_replicas_in_sync=1
        ),
        get_strategy=lambda: SimpleNamespace(kind="Default", num_replicas_in_sync=1),
    )
    tf = SimpleNamespace(
        config=SimpleNamespace(
            list_physical_devices=lambda kind: physical if kind == "GPU" else cpu,
            list_logical_devices=lambda kind: logical[kind],
            set_visible_devices=rec.fn("set_visible_devices"),
            set_logical_device_configuration=rec.fn("set_logical_device_configuration"),
            LogicalDeviceConfiguration=lambda memory_limit=None: ("logical", memory_limit),
            experimental=SimpleNamespace(
                set_memory_growth=rec.fn("experimental.set_memory_growth"),
                enable_tensor_float_32_execution=rec.fn("experimental.enable_tensor_float_32_execution"),
                enable_op_determinism=rec.fn("experimental.enable_op_determinism"),
                get_device_details=lambda d: {"compute_capability": cc, "device_name": "NVIDIA H200"},
            ),
            optimizer=SimpleNamespace(set_jit=rec.fn("optimizer.set_jit")),
        ),
        debugging=SimpleNamespace(set_log_device_placement=rec.fn("debugging.set_log_device_placement")),
        keras=SimpleNamespace(mixed_precision=SimpleNamespace(set_global_policy=rec.fn("keras.set_global_policy"))),
        distribute=strategies,
    )
    return tf, rec
