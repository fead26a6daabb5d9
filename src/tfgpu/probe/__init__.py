"""Facts that need TensorFlow, always gathered in a child process that is timed and thrown away.

Layer rule: probe imports model, knowledge and system; never tensorflow (only ``worker.py``,
which runs by file path in the child and imports nothing from tfgpu).
"""
