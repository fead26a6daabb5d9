"""The version, kept in one file so that importing tfgpu reads no package metadata."""

__version__ = "0.1.0"
