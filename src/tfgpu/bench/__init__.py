"""tfgpu bench: workloads in a TensorFlow child (probe/bench_worker.py) while the parent samples NVML.

Layer rule: bench imports model, knowledge, nvml, probe and monitor; never tensorflow.
"""
