"""Host facts from the standard library only.

Layer rule: system MUST NOT import tensorflow, pynvml or any tfgpu layer above model.
Every external command goes through ``runner.CommandRunner`` so that it has a timeout.
"""
