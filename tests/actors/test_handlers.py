"""Declaring handlers: what is accepted and what is refused with a clear error."""

from __future__ import annotations

import attrs
import pytest

from turnframe.actors import Actor, InvalidHandler, handler, handles


@attrs.frozen(kw_only=True)
class Ping:
    pass


@attrs.frozen(kw_only=True)
class Pong:
    pass


def test_a_handler_table_maps_each_annotated_message_type_to_its_method() -> None:
    class Player(Actor):
        @handler
        async def ping(self, message: Ping) -> str:
            return "pong"

        @handles(Pong)
        def pong(self, message: object) -> str:
            return "ping"

    table = Player.handler_table()
    assert set(table) == {Ping, Pong}
    assert table[Ping].is_async and not table[Pong].is_async


def test_a_subclass_overriding_a_handler_method_replaces_it() -> None:
    class Base(Actor):
        @handler
        def ping(self, message: Ping) -> str:
            return "base"

    class Child(Base):
        @handler
        def ping(self, message: Ping) -> str:
            return "child"

    assert Child.handler_table()[Ping].function(Child(), Ping()) == "child"
    assert Base.handler_table()[Ping].function(Base(), Ping()) == "base"


def test_two_handlers_for_one_message_type_in_one_class_are_refused() -> None:
    class Twice(Actor):
        @handler
        def first(self, message: Ping) -> None: ...

        @handles(Ping)
        def second(self, message: Ping) -> None: ...

    with pytest.raises(InvalidHandler, match="Ping is handled by both"):
        Twice.handler_table()


def test_a_handler_without_a_message_annotation_is_refused_with_a_hint() -> None:
    class Bare(Actor):
        @handler
        def anything(self, message) -> None:  # type: ignore[no-untyped-def]
            ...

    with pytest.raises(InvalidHandler, match="no type annotation") as caught:
        Bare.handler_table()
    assert caught.value.code == "turnframe.actor.invalid_handler"


def test_handles_requires_message_classes() -> None:
    with pytest.raises(InvalidHandler):
        handles()
