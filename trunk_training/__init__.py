"""The trunk's offline trainer, kept out of the library: training the default trunk's joint
projection (``python -m trunk_training.trunk``). Nothing here runs during ``run.py``; the
held-out splits it shares with the task trainers are ``core.splits``."""
