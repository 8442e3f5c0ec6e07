"""Leaving the root supervisor's task group with the error a caller can match on."""

from __future__ import annotations

import anyio
from anyio.abc import TaskGroup


async def leave_task_group(task_group: TaskGroup, exc: BaseException | None) -> bool | None:
    """Exit ``task_group``; a group holding a single real error is raised as that error."""
    sole: BaseException | None = None
    try:
        if exc is None:
            return await task_group.__aexit__(None, None, None)
        return await task_group.__aexit__(type(exc), exc, exc.__traceback__)
    except BaseExceptionGroup as group:
        sole = sole_error(group)
        if sole is None:
            raise
    assert sole is not None
    raise sole


def sole_error(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    _, rest = group.split(anyio.get_cancelled_exc_class())
    if rest is None:
        return None
    leaves: list[BaseException] = []
    pending: list[BaseException] = [rest]
    while pending:
        current = pending.pop()
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        else:
            leaves.append(current)
    return leaves[0] if len(leaves) == 1 else None
