"""What a runtime is told (settings) and what it reports (recovery), and its typed errors."""

from __future__ import annotations

import attrs

from turnframe.errors import TurnframeError
from turnframe.recall.settings import RecallSettings
from turnframe.supervisors import RestartIntensity


class UnknownSession(TurnframeError):
    code = "turnframe.runtime.unknown_session"


class UnknownWorkflow(TurnframeError):
    code = "turnframe.runtime.unknown_workflow"


@attrs.frozen(kw_only=True)
class RuntimeSettings:
    """Sizes and deadlines; every default is conservative."""

    pool_size: int = 4
    ask_timeout: float = 60.0
    resume_attempts: int = 2
    anaphora: bool = False
    include_shipped_corpora: bool = True
    #: Messages longer than this many characters are not interpreted; the turn ends with a
    #: ``turnframe.notice.input_too_long`` notice and nothing is done.
    max_turn_chars: int = 4_000
    mailbox_size: int = 1000
    #: A session actor idle this long (seconds) is stopped; its state is in the store, so the
    #: next turn starts it again. ``None`` keeps every session actor until the runtime stops.
    session_idle_seconds: float | None = 600.0
    #: With several workers on one database: each session is leased to one worker for this
    #: long (renewed while it serves turns; taken over when it expires). ``None``: one process
    #: serves every session (the embedded default). ``worker_id`` names this worker's leases.
    session_lease_seconds: float | None = None
    worker_id: str | None = None
    #: With leases: the runtime itself takes over orphaned sessions (on start and every half
    #: lease). ``turnframe worker`` turns it off: its claim loop does that (ADR 0018).
    serve_orphans: bool = True
    #: A turn whose case another turn moved before its seal is reduced again from the same
    #: plan up to this many times (0: never); then the commit reports the conflict (ADR 0018).
    hot_case_attempts: int = 3
    #: The recall protocol: its budget, how resume handles name the store (docs/recall.md).
    recall: RecallSettings = attrs.field(factory=RecallSettings)
    #: Restarts allowed per supervisor before it gives up and escalates (OTP intensity).
    intensity: RestartIntensity = attrs.field(
        factory=lambda: RestartIntensity(max_restarts=10, within_seconds=10.0)
    )
    #: Each session actor's own restart budget: one that crashes more often is stopped (its
    #: next turn starts it afresh from the store); it never counts against other sessions.
    session_intensity: RestartIntensity = attrs.field(
        factory=lambda: RestartIntensity(max_restarts=3, within_seconds=10.0)
    )
    #: A turn whose handling gave up this many times in a row the same transient way (store
    #: timeouts, say) is parked as ``failed`` with the reason instead of recovered forever.
    park_after: int = attrs.field(default=3, validator=attrs.validators.ge(1))
    #: Group commit of the SQLite store the runtime opens from a path (a store passed in keeps
    #: its own): at most this many write transactions share one commit (1: a commit each) ...
    group_commit_size: int = attrs.field(default=32, validator=attrs.validators.ge(1))
    #: ... and the first of a group waits this many seconds for more before it commits (0: it
    #: commits what is queued at once; the transactions arriving meanwhile form the next group).
    group_commit_window: float = attrs.field(
        default=0.0, validator=[attrs.validators.ge(0.0), attrs.validators.lt(1.0)]
    )


@attrs.frozen(kw_only=True)
class RecoveryReport:
    resumed: tuple[str, ...] = ()
    incomplete: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()  # turns of workflows this runtime does not serve
