"""Command policy: how risky a command is, whether it needs the user's confirmation, and how its
commits group.

Every policy has a safe ``conservative()`` default; an adopter relaxes it deliberately, per field
or operation.
"""

from __future__ import annotations

import enum

import attrs


class AtomicityScope(enum.StrEnum):
    """How ready commands group into batches that commit whole or not at all.

    ``per_case`` (the default for mutations): every command of the turn on one case commits under
    one revision bump. ``per_command``: each command commits alone, so a partial outcome is
    possible and is reported per act. ``explicit_group``: operations naming the same ``group``
    commit together on their case. ``external_saga``: the command commits alone together with an
    outbox row for its external effect.
    """

    PER_COMMAND = "per_command"
    PER_CASE = "per_case"
    EXPLICIT_GROUP = "explicit_group"
    EXTERNAL_SAGA = "external_saga"


class RiskClass(enum.StrEnum):
    """How hard a command's effect is to undo."""

    LOW = "low"
    ELEVATED = "elevated"
    IRREVERSIBLE = "irreversible"


class ConfirmationPolicy(enum.StrEnum):
    """When a command waits for the user's explicit confirmation before it executes.

    ``when_risky`` confirms when the risk class is above ``low``. A destructive command is always
    confirmed, whatever its policy says.
    """

    NEVER = "never"
    WHEN_RISKY = "when_risky"
    ALWAYS = "always"


@attrs.frozen(kw_only=True)
class CommandPolicy:
    risk: RiskClass
    confirmation: ConfirmationPolicy

    @classmethod
    def conservative(cls) -> CommandPolicy:
        """The default: treat the command as irreversible and always ask first."""
        return cls(risk=RiskClass.IRREVERSIBLE, confirmation=ConfirmationPolicy.ALWAYS)

    @classmethod
    def routine(cls) -> CommandPolicy:
        """A low-risk, reversible change that executes without asking (an adopter's opt-in)."""
        return cls(risk=RiskClass.LOW, confirmation=ConfirmationPolicy.NEVER)


def needs_confirmation(policy: CommandPolicy, *, is_destructive: bool) -> bool:
    """Whether a command under ``policy`` must wait for a confirm-command interaction."""
    if is_destructive or policy.confirmation is ConfirmationPolicy.ALWAYS:
        return True
    if policy.confirmation is ConfirmationPolicy.WHEN_RISKY:
        return policy.risk is not RiskClass.LOW
    return False
