"""The doctor: collect facts, run pure checks over them, return a Diagnosis.

Layer rule: doctor imports model, knowledge, system, nvml and probe; never tensorflow, never
report or cli. Its only I/O goes through the collectors it is given.
"""
