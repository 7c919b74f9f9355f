"""``serve.py``: the tasks behind an HTTP API and a web page (issue 26).

- ``upload``: the multipart body of one request, parsed and checked (sizes, fields, UTF-8, JSON shape);
- ``service``: every task set up once over one trunk; each request written as a one-item input folder in
  the task's own layout (``TaskInfo.form``), discovered by the task itself, and micro-batched per task
  through ``core.runner``'s policy;
- ``app``: the FastAPI app (``/v1/tasks``, ``/health``, the page at ``/``), answering only the allowed hosts;
- ``hosts``: which ``Host:`` names are answered (DNS rebinding refused);
- ``connection``: the deadline for each request's head on uvicorn's connections;
- ``cli``: the command line of ``serve.py`` and uvicorn's configuration.

Nothing here knows a task by name; a task is served when its ``TaskInfo`` declares a ``form``.
Only ``app``, ``connection`` and ``cli`` import FastAPI / uvicorn, and only when called.
"""
