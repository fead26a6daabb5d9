"""Frozen dataclasses and enums shared by every layer.

Layer rule: model imports nothing from tfgpu and nothing outside the standard library.
It holds data only: no I/O and no rendering.
"""
