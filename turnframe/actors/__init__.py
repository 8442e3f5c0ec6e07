"""The actor runtime: actors, refs, bounded mailboxes, ask/tell, dead letters.

Stage actors of the turn pipeline live next to the runtime in this package; the runtime's
public names are exported here.
"""

from turnframe.actors.actor import Actor, handler, handles
from turnframe.actors.correlation import CorrelationIdFilter, current_correlation_id
from turnframe.actors.dead_letters import DeadLetter, DeadLetters
from turnframe.actors.errors import (
    ActorCrashed,
    ActorError,
    ActorStopped,
    AskTimeout,
    InvalidHandler,
    MailboxFull,
    UnhandledMessage,
)
from turnframe.actors.ref import DEFAULT_ASK_TIMEOUT, ActorRef

__all__ = [
    "DEFAULT_ASK_TIMEOUT",
    "Actor",
    "ActorCrashed",
    "ActorError",
    "ActorRef",
    "ActorStopped",
    "AskTimeout",
    "CorrelationIdFilter",
    "DeadLetter",
    "DeadLetters",
    "InvalidHandler",
    "MailboxFull",
    "UnhandledMessage",
    "current_correlation_id",
    "handler",
    "handles",
]
