"""The shared progress bar: drawn on a terminal once work runs long enough, invisible elsewhere."""

from __future__ import annotations

import io

from turnframe.cli.progress import progress, progress_enabled


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_long_work_shows_a_bar_with_its_description_and_count() -> None:
    screen = Terminal()
    with progress("checking corpora", total=3, stream=screen, show_after=0) as bar:
        bar.advance()
        bar.update(description="checking packs")
        bar.advance(2)
    assert progress_enabled(screen)
    assert "checking" in screen.getvalue()


def test_work_that_ends_before_the_bar_is_due_draws_nothing() -> None:
    screen = Terminal()
    with progress("quick", total=1, stream=screen, show_after=3600) as bar:
        bar.advance()
    assert screen.getvalue() == ""


def test_a_stream_that_is_not_a_terminal_gets_no_bar() -> None:
    piped = io.StringIO()
    assert not progress_enabled(piped)
    with progress("checking", total=2, stream=piped, show_after=0) as bar:
        bar.advance()
        bar.update(total=5, completed=4)
    assert piped.getvalue() == ""


def test_a_bar_can_be_turned_off_even_on_a_terminal() -> None:
    screen = Terminal()
    with progress("checking", stream=screen, enabled=False, show_after=0) as bar:
        bar.advance()
    assert screen.getvalue() == ""
