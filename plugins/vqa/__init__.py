"""VQA plugin: bilingual answer retrieval and generation on the shared trunk."""

from __future__ import annotations

from core import hookimpl


@hookimpl
def add_train_options(parser):
    """The VQA trainer's flags (``plugins.vqa.train``); None leaves the trainer's default."""
    group = parser.add_argument_group("vqa training")
    group.add_argument("--vqa-cache-dir", default=None, metavar="DIR", help="embedding cache (default HEAD/cache)")
    group.add_argument(
        "--vqa-synthetic-per-image", type=int, default=None, help="caption-made yes/no questions per image (default 4)"
    )


@hookimpl
def register_tasks(register, config):
    """Register the VQA task (constructed cheaply; weights load in ``setup``)."""
    from core.heads import search_dirs
    from plugins.vqa.task import VqaTask

    register(VqaTask(search=search_dirs(config)))
