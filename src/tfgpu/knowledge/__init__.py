"""Packaged knowledge: compatibility tables and pure matchers over them.

Layer rule: knowledge imports only model from tfgpu and the standard library plus
``packaging``; it never does I/O beyond reading its own data files.
The CSV files in ``data/`` are copies of shared/data/compat; every row keeps its source URL.
"""
