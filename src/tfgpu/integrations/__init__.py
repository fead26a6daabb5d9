"""Adapters to training frameworks.

Layer rule: integrations import model, nvml and monitor; keras/tensorflow only inside functions.
"""
