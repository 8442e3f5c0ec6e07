"""The Actor base class: handlers chosen by message type, and lifecycle hooks.

An actor is a plain class. Methods marked ``@handler`` receive the messages whose type their
second parameter is annotated with (a union registers several types); ``@handles(T, ...)`` names
the types explicitly. A handler may be ``async`` or not; its return value is the reply to
``ask``. The runtime calls ``on_start`` before the first message of each instance (a restart
makes a fresh instance, so it runs again) and ``on_stop`` when the instance ends normally or by
its own crash; an instance cancelled at its shutdown deadline skips ``on_stop``.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, TypeVar

from turnframe.actors.errors import InvalidHandler
from turnframe.actors.ref import ActorRef

F = TypeVar("F", bound=Callable[..., Any])

_HANDLES = "__turnframe_handles__"
_TABLE = "_turnframe_handlers"


def handler(fn: F) -> F:
    """Mark a method as the handler of the message type its parameter is annotated with."""
    setattr(fn, _HANDLES, None)
    return fn


def handles(*message_types: type[Any]) -> Callable[[F], F]:
    """Mark a method as the handler of the given message types."""
    if not message_types or not all(isinstance(t, type) for t in message_types):
        raise InvalidHandler("@handles(...) takes one or more message classes")

    def mark(fn: F) -> F:
        setattr(fn, _HANDLES, message_types)
        return fn

    return mark


class HandlerEntry(NamedTuple):
    function: Callable[[Any, Any], Any]
    is_async: bool


class Actor:
    """Base class of every actor. Subclass it and add ``@handler`` methods.

    ``expected_errors`` lists exception types a handler may raise as an answer: such an error
    is given to the asker as-is and the actor keeps running. Any other exception is a crash.
    """

    expected_errors: ClassVar[tuple[type[BaseException], ...]] = ()
    #: An actor whose instance keeps nothing between messages (its state is configuration)
    #: sets this: a handler that raises answers its asker with ``ActorCrashed`` as always,
    #: but the instance goes on serving. A restart would change nothing, and one poison
    #: message must not use up its supervisor's restart intensity.
    stateless: ClassVar[bool] = False

    _turnframe_ref: ActorRef | None = None
    _turnframe_stop_requested: bool = False

    async def on_start(self) -> None:
        """Runs before the first message of this instance (load state here)."""

    async def on_stop(self) -> None:
        """Runs when this instance stops normally or after its own crash."""

    @property
    def ref(self) -> ActorRef:
        """This actor's own ref (available from ``on_start`` on)."""
        if self._turnframe_ref is None:
            raise RuntimeError(f"{type(self).__name__} is not running under a supervisor yet")
        return self._turnframe_ref

    @property
    def name(self) -> str:
        return self.ref.name

    def stop(self) -> None:
        """Stop this actor after the current message: a normal exit, not a crash.

        A ``permanent`` child is restarted anyway; a ``transient`` or ``temporary`` one ends and
        its remaining messages go to dead letters.
        """
        self._turnframe_stop_requested = True

    @classmethod
    def handler_table(cls) -> dict[type[Any], HandlerEntry]:
        """Message type → handler, built once per class from the ``@handler`` marks."""
        table: dict[type[Any], HandlerEntry] | None = cls.__dict__.get(_TABLE)
        if table is None:
            table = _build_table(cls)
            setattr(cls, _TABLE, table)
        return table


def find_handler(
    table: dict[type[Any], HandlerEntry], message_type: type[Any]
) -> HandlerEntry | None:
    """The handler for ``message_type`` or its nearest registered base class (cached)."""
    entry = table.get(message_type)
    if entry is not None:
        return entry
    for base in message_type.__mro__[1:]:
        entry = table.get(base)
        if entry is not None:
            table[message_type] = entry
            return entry
    return None


def _build_table(cls: type[Actor]) -> dict[type[Any], HandlerEntry]:
    names: dict[type[Any], str] = {}
    for klass in reversed(cls.__mro__):
        declared_here: dict[type[Any], str] = {}
        for name, attr in vars(klass).items():
            if not hasattr(attr, _HANDLES):
                continue
            marked: tuple[type[Any], ...] | None = getattr(attr, _HANDLES)
            message_types = marked if marked is not None else _annotated_types(klass, name, attr)
            for message_type in message_types:
                if message_type in declared_here:
                    raise InvalidHandler(
                        f"{klass.__qualname__}: {message_type.__name__} is handled by both "
                        f"{declared_here[message_type]} and {name}"
                    )
                declared_here[message_type] = name
        names.update(declared_here)
    table: dict[type[Any], HandlerEntry] = {}
    for message_type, name in names.items():
        function = getattr(cls, name)
        table[message_type] = HandlerEntry(function, inspect.iscoroutinefunction(function))
    return table


def _annotated_types(owner: type, name: str, function: Any) -> tuple[type[Any], ...]:
    where = f"{owner.__qualname__}.{name}"
    parameters = list(inspect.signature(function).parameters.values())
    if len(parameters) != 2:
        raise InvalidHandler(
            f"{where}: a handler takes (self, message), got {len(parameters)} parameters"
        )
    try:
        hints = typing.get_type_hints(function)
    except NameError as err:
        raise InvalidHandler(
            f"{where}: cannot resolve the message type annotation ({err})",
            hint="define the message class at module level or use @handles(MessageType)",
        ) from err
    annotation = hints.get(parameters[1].name)
    if annotation is None:
        raise InvalidHandler(
            f"{where}: the message parameter has no type annotation",
            hint="annotate it with the message class or use @handles(MessageType)",
        )
    return _as_types(where, annotation)


def _as_types(where: str, annotation: Any) -> tuple[type[Any], ...]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return tuple(t for arg in typing.get_args(annotation) for t in _as_types(where, arg))
    if isinstance(annotation, type):
        return (annotation,)
    raise InvalidHandler(f"{where}: the message annotation {annotation!r} is not a class")
