"""Example Fusion Brain task plugin (see README)."""
