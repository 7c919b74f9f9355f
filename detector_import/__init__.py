"""Offline imports of pretrained detectors into ``core/detector/weights/`` (never imported by run.py)."""
