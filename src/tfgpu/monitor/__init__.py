"""GPU sampling on a background thread, statistics, the bottleneck verdict, and sinks.

Layer rule: monitor imports model and nvml (through the NvmlClient protocol); never tensorflow.
"""
