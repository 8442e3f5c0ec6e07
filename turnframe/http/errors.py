"""The HTTP API's typed errors and how every error becomes a response.

Every error answers with one JSON body, ``{"error": {"code", "message", "hint", "problems"}}``,
and a status that says whose move it is: 4xx the client's (the code says what to fix), 503 try
again (the code says when). Codes are stable; clients match on them, never on the message.
Errors the runtime already names keep the runtime's code (``turnframe.runtime.unknown_workflow``,
``turnframe.turn.incomplete``, …).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import ClassVar

from turnframe._converter import converter
from turnframe._strict import ShapeProblem
from turnframe.actors.session import TurnIncomplete
from turnframe.errors import TurnframeError
from turnframe.http.wire import ErrorBody, ErrorDetail, Problem
from turnframe.runtime import UnknownSession as RuntimeUnknownSession
from turnframe.runtime import UnknownWorkflow
from turnframe.runtime.leasing import SessionLeasedElsewhere
from turnframe.stores.errors import StoreError

logger = logging.getLogger("turnframe.http")


class HttpError(TurnframeError):
    code = "turnframe.http.error"
    status: ClassVar[int] = 400

    def __init__(
        self, message: str, *, hint: str | None = None, problems: Sequence[ShapeProblem] = ()
    ) -> None:
        super().__init__(message, hint=hint)
        self.problems = tuple(problems)


class NoAccount(HttpError):
    """The request names no account (the default dependency reads ``X-Turnframe-Account``)."""

    code = "turnframe.http.no_account"
    status = 401


class BadAccount(HttpError):
    code = "turnframe.http.bad_account"
    status = 400


class UnknownSession(HttpError):
    code = "turnframe.http.unknown_session"
    status = 404


class UnknownTurn(HttpError):
    code = "turnframe.http.unknown_turn"
    status = 404


class UnknownCard(HttpError):
    code = "turnframe.http.unknown_card"
    status = 404


class NotFound(HttpError):
    """No such path."""

    code = "turnframe.http.not_found"
    status = 404


class MethodNotAllowed(HttpError):
    code = "turnframe.http.method_not_allowed"
    status = 405


class NoOpenCard(HttpError):
    code = "turnframe.http.no_open_card"
    status = 409


class UnknownOption(HttpError):
    code = "turnframe.http.unknown_option"
    status = 422


class IdempotencyKeyReused(HttpError):
    """The key already names another request's turn in this session."""

    code = "turnframe.http.idempotency_key_reused"
    status = 409


class BadIdempotencyKey(HttpError):
    code = "turnframe.http.bad_idempotency_key"
    status = 400


class BodyTooLarge(HttpError):
    code = "turnframe.http.body_too_large"
    status = 413


class UnsupportedMediaType(HttpError):
    code = "turnframe.http.unsupported_media_type"
    status = 415


class MalformedBody(HttpError):
    """The body is not one JSON value (not UTF-8, not JSON, or a non-finite number)."""

    code = "turnframe.http.malformed_body"
    status = 400


class InvalidBody(HttpError):
    """The body is JSON of the wrong shape; ``problems`` names every field that is wrong."""

    code = "turnframe.http.invalid_body"
    status = 422


class InvalidRequest(HttpError):
    """A path parameter, query parameter or header of the wrong shape."""

    code = "turnframe.http.invalid_request"
    status = 422


class NotRunning(HttpError):
    code = "turnframe.http.not_running"
    status = 503


class ShuttingDown(HttpError):
    code = "turnframe.http.shutting_down"
    status = 503


class Unauthorized(HttpError):
    """The host's own auth dependency refused the request (it raised HTTPException 401)."""

    code = "turnframe.http.unauthorized"
    status = 401


class Forbidden(HttpError):
    code = "turnframe.http.forbidden"
    status = 403


class HttpFailure(HttpError):
    """Any other refusal of the HTTP layer (its status says which)."""

    code = "turnframe.http.refused"


class Internal(HttpError):
    code = "turnframe.http.internal"
    status = 500


#: Errors raised below the HTTP layer, by the status they answer with.
_STATUS_OF: tuple[tuple[type[TurnframeError], int], ...] = (
    (UnknownWorkflow, 422),
    (RuntimeUnknownSession, 404),
    (SessionLeasedElsewhere, 409),
    (TurnIncomplete, 503),
    (StoreError, 503),
)


def status_of(error: TurnframeError) -> int:
    if isinstance(error, HttpError):
        return error.status
    for kind, status in _STATUS_OF:
        if isinstance(error, kind):
            return status
    return 400


def error_body(error: TurnframeError) -> dict[str, object]:
    problems: Sequence[ShapeProblem] = getattr(error, "problems", ())
    body = ErrorBody(
        error=ErrorDetail(
            code=error.code,
            message=error.message,
            hint=error.hint,
            problems=tuple(Problem(path=p.path, message=p.message) for p in problems),
        )
    )
    data: dict[str, object] = converter.unstructure(body)
    return data


__all__ = [
    "BadAccount",
    "BadIdempotencyKey",
    "BodyTooLarge",
    "Forbidden",
    "HttpError",
    "HttpFailure",
    "IdempotencyKeyReused",
    "Internal",
    "InvalidBody",
    "InvalidRequest",
    "MalformedBody",
    "MethodNotAllowed",
    "NoAccount",
    "NoOpenCard",
    "NotFound",
    "NotRunning",
    "ShuttingDown",
    "Unauthorized",
    "UnknownCard",
    "UnknownOption",
    "UnknownSession",
    "UnknownTurn",
    "UnsupportedMediaType",
    "error_body",
    "status_of",
]
