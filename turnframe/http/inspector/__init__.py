"""The local inspector page: plain HTML, a small script and a style sheet, no build step."""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response

_ASSETS = files(__name__)


def _asset(name: str) -> str:
    return (_ASSETS / name).read_text(encoding="utf-8")


def add_inspector(app: FastAPI) -> None:
    """Serve the inspector at ``/`` (its script and style beside it)."""

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(_asset("index.html"))

    @app.get("/inspector.js", include_in_schema=False)
    async def script() -> Response:
        return Response(_asset("inspector.js"), media_type="text/javascript")

    @app.get("/inspector.css", include_in_schema=False)
    async def style() -> Response:
        return Response(_asset("inspector.css"), media_type="text/css")


__all__ = ["add_inspector"]
