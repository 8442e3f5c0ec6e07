"""Typed errors of supervisors."""

from __future__ import annotations

from turnframe.errors import TurnframeError


class SupervisorError(TurnframeError):
    code = "turnframe.supervisor.error"

    def __init__(self, message: str, *, supervisor: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.supervisor = supervisor


class RestartIntensityExceeded(SupervisorError):
    """Too many restarts in too short a time: the supervisor stopped its children and failed."""

    code = "turnframe.supervisor.restart_intensity_exceeded"

    def __init__(
        self,
        *,
        supervisor: str,
        child: str,
        max_restarts: int,
        within_seconds: float,
        last_error: BaseException | None,
    ) -> None:
        cause = f": {type(last_error).__name__}: {last_error}" if last_error else ""
        super().__init__(
            f"supervisor {supervisor!r} gave up: more than {max_restarts} restarts within "
            f"{within_seconds:g}s, the last of child {child!r}{cause}",
            supervisor=supervisor,
            hint="fix the crashing child (see the logs) or raise the restart intensity",
        )
        self.child = child
        self.last_error = last_error
        self.__cause__ = last_error


class ChildStartFailed(SupervisorError):
    """A child's first start failed (its factory or ``on_start`` raised)."""

    code = "turnframe.supervisor.child_start_failed"

    def __init__(self, *, supervisor: str, child: str, cause: BaseException | None) -> None:
        super().__init__(
            f"supervisor {supervisor!r} could not start child {child!r}: "
            f"{type(cause).__name__}: {cause}",
            supervisor=supervisor,
            hint="the child's factory or on_start raised; see the cause",
        )
        self.child = child
        self.__cause__ = cause


class SupervisorNotRunning(SupervisorError):
    code = "turnframe.supervisor.not_running"

    def __init__(self, *, supervisor: str) -> None:
        super().__init__(
            f"supervisor {supervisor!r} is not running",
            supervisor=supervisor,
            hint="start and stop children inside `async with supervisor:` (or its parent's)",
        )


class DuplicateChild(SupervisorError):
    code = "turnframe.supervisor.duplicate_child"

    def __init__(self, *, supervisor: str, child: str) -> None:
        super().__init__(
            f"supervisor {supervisor!r} already has a child {child!r}",
            supervisor=supervisor,
            hint="child ids are unique per supervisor; stop the old child first",
        )
        self.child = child


class UnknownChild(SupervisorError):
    code = "turnframe.supervisor.unknown_child"

    def __init__(self, *, supervisor: str, child: str) -> None:
        super().__init__(
            f"supervisor {supervisor!r} has no live actor child {child!r}",
            supervisor=supervisor,
            hint="the child may have ended (temporary/transient) or never existed",
        )
        self.child = child


class TooManyChildren(SupervisorError):
    code = "turnframe.supervisor.too_many_children"

    def __init__(self, *, supervisor: str, limit: int) -> None:
        super().__init__(
            f"dynamic supervisor {supervisor!r} already runs its maximum of {limit} children",
            supervisor=supervisor,
            hint="stop idle children or raise max_children",
        )
        self.limit = limit
