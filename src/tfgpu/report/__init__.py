"""Presentation only: Diagnosis → text, JSON or Markdown.

Layer rule: report imports only model from tfgpu (plus rich); it renders and never collects.
"""
