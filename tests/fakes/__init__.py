"""Test doubles at the seams named in DESIGN.md, built from recorded real outputs."""
