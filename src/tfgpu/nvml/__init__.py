"""NVIDIA Management Library access.

Layer rule: nvml is the only package that imports pynvml (nvidia-ml-py); it imports only
model from tfgpu. Everything above talks to the ``NvmlClient`` protocol.
"""
