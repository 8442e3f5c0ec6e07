"""``create_app``: the HTTP API over a Runtime, as a FastAPI (ASGI) app.

Run it alone (``turnframe serve``, or any ASGI server) or mount it in an existing service. The
Runtime lives in the app's lifespan; a host that mounts the app enters that lifespan in its own
(Starlette does not run a mounted app's lifespan)::

    agent = create_app(runtime, account=current_account)    # current_account: your auth

    @contextlib.asynccontextmanager
    async def lifespan(app):
        async with agent.router.lifespan_context(agent):
            yield

    app = FastAPI(lifespan=lifespan)
    app.mount("/agent", agent)

The account every request acts for comes from the ``account`` dependency: by default the
``X-Turnframe-Account`` header, which is only fit behind a gateway that sets it; pass your own
FastAPI dependency (reading your session cookie or bearer token) to decide it. Another
account's ids answer exactly like unknown ids. See ``docs/service.md``.
"""

# No ``from __future__ import annotations`` here: FastAPI reads the routes' annotations at
# definition time, and they name dependencies local to create_app.
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from turnframe import __version__
from turnframe._converter import converter
from turnframe._strict import ShapeProblem
from turnframe.errors import TurnframeError
from turnframe.http.bodies import parse_body, read_json
from turnframe.http.errors import (
    BadAccount,
    Forbidden,
    HttpFailure,
    Internal,
    InvalidRequest,
    MethodNotAllowed,
    NoAccount,
    NotFound,
    Unauthorized,
    UnknownTurn,
    error_body,
    status_of,
)
from turnframe.http.schema import body_of, component_schemas, response_model
from turnframe.http.service import HttpService, HttpSettings, OnSessionOpened
from turnframe.http.turns import _unknown_session, check_key, post_turn
from turnframe.http.views import card_view, session_summary, turn_acts
from turnframe.http.wire import (
    ErrorBody,
    Health,
    OpenCard,
    OpenSession,
    PostTurn,
    SessionList,
    SessionOpened,
    TurnActs,
    TurnList,
    WorkflowList,
    WorkflowSummary,
)
from turnframe.pipeline.replay_view import ReplayView, load_replay_view
from turnframe.pipeline.turn_view import TurnView, load_turn_view
from turnframe.runtime import Runtime

logger = logging.getLogger("turnframe.http")

#: A FastAPI dependency that answers the account a request acts for.
AccountDependency = Callable[..., Any]

MAX_ACCOUNT_LENGTH = 128


def account_from_header(
    x_turnframe_account: Annotated[
        str | None,
        Header(
            alias="X-Turnframe-Account",
            description="The account the request acts for. Set it from your own "
            "authentication (a gateway), or replace this dependency: create_app(account=...)."
        ),
    ] = None,
) -> str:
    """The default account dependency: the ``X-Turnframe-Account`` header, as given."""
    if x_turnframe_account is None or not x_turnframe_account.strip():
        raise NoAccount(
            "the request names no account",
            hint="send the X-Turnframe-Account header (or configure your own auth dependency)",
        )
    return x_turnframe_account


def _checked_account(account: object) -> str:
    if (
        not isinstance(account, str)
        or not 0 < len(account) <= MAX_ACCOUNT_LENGTH
        or not account.isprintable()
    ):
        raise BadAccount(
            "the account must be 1 to 128 printable characters",
            hint="the account dependency returns the account id as a string",
        )
    return account


def _errors(status: int, *more: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": response_model(ErrorBody)} for code in (status, *more)}


def create_app(
    runtime: Runtime,
    *,
    account: AccountDependency = account_from_header,
    settings: HttpSettings | None = None,
    on_session_opened: OnSessionOpened | None = None,
    title: str = "turnframe",
) -> FastAPI:
    """The HTTP API (and, with ``HttpSettings(inspector=True)``, the inspector page at ``/``)
    over ``runtime``, which the app's lifespan starts and drains (unless it already runs)."""
    service = HttpService(runtime, settings or HttpSettings(), on_session_opened)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with service.lifespan():
            yield

    app = FastAPI(
        title=title,
        version=__version__,
        description="Conversational turns over a turnframe Runtime (docs/service.md).",
        lifespan=lifespan,
    )
    app.state.turnframe = service

    async def account_id(value: Annotated[Any, Depends(account)]) -> str:
        return _checked_account(value)

    Account = Annotated[str, Depends(account_id)]
    limit = service.settings.max_body_bytes

    # -- the service ------------------------------------------------------------------------
    @app.get("/v1/health", response_model=response_model(Health), tags=["service"])
    async def health() -> JSONResponse:
        service.check_running()
        return _json(Health(status="draining" if service.draining else "ok"))

    @app.get("/v1/workflows", response_model=response_model(WorkflowList), tags=["service"])
    async def workflows() -> JSONResponse:
        rt = service.check_running()
        names = sorted(rt.workflows)
        return _json(WorkflowList(workflows=tuple(WorkflowSummary(name=n) for n in names)))

    # -- sessions ---------------------------------------------------------------------------
    @app.post(
        "/v1/sessions",
        status_code=201,
        response_model=response_model(SessionOpened),
        responses=_errors(400, 401, 413, 415, 422, 503),
        openapi_extra=body_of(OpenSession),
        tags=["sessions"],
    )
    async def open_session(request: Request, account_id: Account) -> JSONResponse:
        with service.admitted() as rt:
            body = parse_body(await read_json(request, limit=limit), OpenSession)
            session = await rt.open_session(account_id=account_id, workflow=body.workflow)
            if service.on_session_opened is not None:
                await service.on_session_opened(rt, session)
        return _json(SessionOpened(session_id=session.session_id), status=201)

    @app.get(
        "/v1/sessions",
        response_model=response_model(SessionList),
        responses=_errors(401, 503),
        tags=["sessions"],
    )
    async def list_sessions(account_id: Account) -> JSONResponse:
        rt = service.check_running()
        sessions = await rt.store.list_sessions(account_id)
        return _json(SessionList(sessions=tuple(session_summary(s) for s in sessions)))

    @app.get(
        "/v1/sessions/{session_id}/turns",
        response_model=response_model(TurnList),
        responses=_errors(401, 404, 503),
        tags=["sessions"],
    )
    async def list_turns(session_id: str, account_id: Account) -> JSONResponse:
        rt = service.check_running()
        if await rt.store.get_session(account_id, session_id) is None:
            raise _unknown_session(session_id)
        views = []
        for turn in await rt.store.list_session_turns(account_id, session_id):
            view = await load_turn_view(rt.store, account_id=account_id, turn_id=turn.turn_id)
            if view is not None:
                views.append(view)
        return _json(TurnList(turns=tuple(views)))

    @app.post(
        "/v1/sessions/{session_id}/turns",
        response_model=response_model(TurnView),
        responses=_errors(400, 401, 404, 409, 413, 415, 422, 503),
        openapi_extra=body_of(PostTurn),
        tags=["turns"],
    )
    async def post(
        session_id: str,
        request: Request,
        account_id: Account,
        idempotency_key: Annotated[
            str | None,
            Header(
                alias="Idempotency-Key",
                description="Your key for this turn (e.g. a UUID): a re-post with the same key "
                "returns the same turn and executes nothing again."
            ),
        ] = None,
    ) -> JSONResponse:
        with service.admitted() as rt:
            key = check_key(idempotency_key)
            body = parse_body(await read_json(request, limit=limit), PostTurn)
            posted = await post_turn(
                rt, account_id=account_id, session_id=session_id, body=body, key=key
            )
        headers = {"Idempotent-Replayed": "true"} if posted.replayed else None
        return _json(posted.view, headers=headers)

    @app.get(
        "/v1/sessions/{session_id}/card",
        response_model=response_model(OpenCard),
        responses=_errors(401, 404, 503),
        tags=["sessions"],
    )
    async def open_card(session_id: str, account_id: Account) -> JSONResponse:
        rt = service.check_running()
        if await rt.store.get_session(account_id, session_id) is None:
            raise _unknown_session(session_id)
        cards = await rt.store.list_open_interactions(account_id, session_id=session_id)
        newest = max(cards, key=lambda c: c.created_at) if cards else None
        card = None if newest is None else card_view(newest)
        return _json(OpenCard(session_id=session_id, card=card))

    @app.get(
        "/v1/sessions/{session_id}/stream",
        response_class=StreamingResponse,
        responses={
            200: {
                "description": "Server-sent events: one `turn` event per delivered turn, its "
                "`data` a TurnView, its `id` the turn id (send it back as Last-Event-ID).",
                "content": {"text/event-stream": {}},
            },
            **_errors(401, 404, 503),
        },
        tags=["sessions"],
    )
    async def stream(
        session_id: str,
        account_id: Account,
        last_event_id: Annotated[
            str | None,
            Header(
                alias="Last-Event-ID",
                description="A reconnecting client's last turn id: later turns are sent first.",
            ),
        ] = None,
    ) -> StreamingResponse:
        rt = service.check_running()
        if await rt.store.get_session(account_id, session_id) is None:
            raise _unknown_session(session_id)
        return StreamingResponse(
            service.events(account_id, session_id, after=last_event_id),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    # -- turns ------------------------------------------------------------------------------
    @app.get(
        "/v1/turns/{turn_id}",
        response_model=response_model(TurnView),
        responses=_errors(401, 404, 503),
        tags=["turns"],
    )
    async def get_turn(turn_id: str, account_id: Account) -> JSONResponse:
        rt = service.check_running()
        view = await load_turn_view(rt.store, account_id=account_id, turn_id=turn_id)
        if view is None:
            raise _unknown_turn(turn_id)
        return _json(view)

    @app.get(
        "/v1/turns/{turn_id}/replay",
        response_model=response_model(ReplayView),
        responses=_errors(401, 404, 503),
        tags=["turns"],
    )
    async def replay(turn_id: str, account_id: Account) -> JSONResponse:
        rt = service.check_running()
        view = await load_replay_view(rt.store, account_id=account_id, turn_id=turn_id)
        if view is None:
            raise _unknown_turn(turn_id)
        return JSONResponse(view.to_json())

    @app.get(
        "/v1/turns/{turn_id}/acts",
        response_model=response_model(TurnActs),
        responses=_errors(401, 404, 503),
        tags=["turns"],
    )
    async def acts(turn_id: str, account_id: Account) -> JSONResponse:
        rt = service.check_running()
        view = await load_replay_view(rt.store, account_id=account_id, turn_id=turn_id)
        if view is None:
            raise _unknown_turn(turn_id)
        return _json(turn_acts(view))

    if service.settings.inspector:
        from turnframe.http.inspector import add_inspector

        add_inspector(app)

    _add_error_handlers(app)
    _add_openapi(app)
    return app


def _json(value: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(converter.unstructure(value), status_code=status, headers=headers)


def _unknown_turn(turn_id: str) -> UnknownTurn:
    # The same words whether the id is unknown or another account's.
    return UnknownTurn(f"there is no turn {turn_id!r}", hint="list a session's turns first")


def _error_response(error: TurnframeError) -> JSONResponse:
    status = status_of(error)
    headers = {"Retry-After": "5"} if status == 503 else None
    return JSONResponse(error_body(error), status_code=status, headers=headers)


def _add_error_handlers(app: FastAPI) -> None:
    async def typed(_: Request, error: Exception) -> Response:
        assert isinstance(error, TurnframeError)
        return _error_response(error)

    async def http(_: Request, error: Exception) -> Response:
        # Starlette's own refusals, and an HTTPException from the host's auth dependency.
        assert isinstance(error, StarletteHTTPException)
        detail = str(error.detail)
        known: dict[int, TurnframeError] = {
            401: Unauthorized(detail, hint="authenticate as the service expects"),
            403: Forbidden(detail, hint="this account may not do that"),
            404: NotFound("no such path", hint="the API lives under /v1"),
            405: MethodNotAllowed("this path does not take that method", hint="see /docs"),
        }
        response = _error_response(known.get(error.status_code) or HttpFailure(detail))
        response.status_code = error.status_code
        if error.headers:
            response.headers.update(error.headers)
        return response

    async def invalid(_: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        problems = [
            ShapeProblem(path=tuple(e.get("loc", ())), message=str(e.get("msg", "invalid")))
            for e in error.errors()
        ]
        return _error_response(
            InvalidRequest(
                "a path, query or header parameter is invalid", hint="see /docs", problems=problems
            )
        )

    async def internal(_: Request, error: Exception) -> Response:
        logger.error("unexpected error in the HTTP API", exc_info=error)
        return _error_response(
            Internal("an unexpected error happened", hint="see the server's log")
        )

    app.add_exception_handler(TurnframeError, typed)
    app.add_exception_handler(StarletteHTTPException, http)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, internal)


def _add_openapi(app: FastAPI) -> None:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(component_schemas(OpenSession, PostTurn, request=True))
            _errors_are_error_bodies(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _errors_are_error_bodies(schema: dict[str, Any]) -> None:
    """FastAPI documents its own validation error (422) on every route with parameters; here
    every error, a parameter's included, is an ErrorBody."""
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    for path in schema.get("paths", {}).values():
        for operation in path.values():
            for status, response in operation.get("responses", {}).items():
                if status.startswith(("4", "5")):
                    response["content"] = error
                    response["description"] = response.get("description") or "An error"
    components = schema.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)


__all__ = ["AccountDependency", "account_from_header", "create_app"]
