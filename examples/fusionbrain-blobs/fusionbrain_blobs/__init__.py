"""Example Fusion Brain detector plugin: colour blobs (see README)."""
