"""Trunk backends: ``default`` (EfficientNet-Lite + multilingual USE, ``default.py``) and
``openclip`` (``openclip.py``). ``core.trunk.load_trunk`` imports them lazily, so importing
this package costs nothing."""
