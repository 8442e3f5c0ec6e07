"""The HTTP API over a Runtime (extra ``http``: FastAPI and uvicorn); see ``docs/service.md``.

::

    from turnframe.http import create_app

    app = create_app(runtime)           # an ASGI app; its lifespan runs the runtime

``turnframe serve`` runs it alone, with the local inspector page at ``/``.
"""

from __future__ import annotations

from turnframe.http.app import AccountDependency, account_from_header, create_app
from turnframe.http.service import HttpService, HttpSettings, OnSessionOpened

__all__ = [
    "AccountDependency",
    "HttpService",
    "HttpSettings",
    "OnSessionOpened",
    "account_from_header",
    "create_app",
]
