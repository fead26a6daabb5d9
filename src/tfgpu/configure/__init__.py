"""Act on the user's TensorFlow in the user's process: ``tfgpu.setup()``.

Layer rule: configure imports model, knowledge, nvml and system; TensorFlow only inside
``apply.py``'s functions, lazily. Siblings (doctor, explain, bench) are not imported.
"""
