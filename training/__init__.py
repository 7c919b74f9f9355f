"""Offline tooling, kept out of the runtime core: training the default trunk's joint
projection (``python -m training.trunk``) and the held-out splits every trainer and
benchmark shares (``training.splits``). Nothing here runs during ``run.py``."""
