"""tfgpu burn: sustained load with result checking while the parent watches NVML.

Layer rule: stress imports model, knowledge, nvml, probe and monitor; never tensorflow.
"""
