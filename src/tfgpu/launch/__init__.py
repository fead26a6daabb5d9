"""``tfgpu run -- CMD``: run an unmodified training command with the options applied.

Layer rule: launch imports model, nvml, system, monitor and configure (options and environ
only, never apply); it is one of the places that may start processes (DESIGN amendment).
"""
