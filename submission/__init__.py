"""Build the organisers' archive and prove it by running it as they do.

``python -m submission build`` writes ``dist/submission.zip``: ``metadata.json``,
``run.py``, ``registry.py`` and the modules and shipped files ``run.py`` reaches for
the selected plugins (found by walking the imports, never by listing folders), plus
third-party plugin distributions and user heads when asked. ``python -m submission
check`` unpacks an archive into a fresh read-only folder, runs its entrypoint offline
from there with ``HOME`` unset, traces every file the run opens and compares the
predictions with an in-tree run. Nothing here is shipped in the archive.
"""
