"""tfgpu tune (the package is `tuning` so that `tfgpu.tune()` can be the function): measured trials in TensorFlow children to find the fastest training configuration.

Layer rule: tune imports model, knowledge, nvml, probe and monitor; never tensorflow.
"""
