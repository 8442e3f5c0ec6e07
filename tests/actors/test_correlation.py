"""The correlation id outside handlers: log filter and defaults."""

from __future__ import annotations

import logging

import attrs
import pytest

from turnframe.actors import Actor, CorrelationIdFilter, current_correlation_id, handler
from turnframe.supervisors import ChildSpec, Supervisor

logger = logging.getLogger("tests.correlation")


@attrs.frozen(kw_only=True)
class Log:
    text: str


class Chatty(Actor):
    @handler
    def log(self, message: Log) -> None:
        logger.warning(message.text)


def test_outside_any_handler_there_is_no_correlation_id() -> None:
    assert current_correlation_id() is None


@pytest.mark.anyio
async def test_the_log_filter_stamps_records_with_the_current_correlation_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stamp = CorrelationIdFilter()
    logger.addFilter(stamp)
    try:
        async with Supervisor(name="root", children=[ChildSpec(id="c", factory=Chatty)]) as sup:
            await sup.ref("c").ask(Log(text="inside"), correlation_id="turn-11")
        logger.warning("outside")
    finally:
        logger.removeFilter(stamp)
    stamped = [(r.getMessage(), getattr(r, "correlation_id", "?")) for r in caplog.records]
    assert stamped == [("inside", "turn-11"), ("outside", None)]


def test_an_actor_not_yet_running_has_no_ref() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = Chatty().ref
