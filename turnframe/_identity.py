"""Deterministic identities: idempotency keys, command ids, new case ids, plan hashes.

Everything here is a digest of canonical JSON (:mod:`turnframe._hashing`) under a versioned
domain string. No clocks, no randomness: the same turn replayed derives the same keys, and a
key reused for a different command is caught by comparing content digests.
"""

from __future__ import annotations

from typing import Any

from turnframe._converter import unstructure
from turnframe._hashing import canonical_json, digest
from turnframe.plan import UserTurnPlan
from turnframe.results import PlannedCommand, ReductionPlan

#: Bump a version when the fields that go into an identity change.
IDEMPOTENCY_DOMAIN = "idempotency-key/1"
COMMAND_ID_DOMAIN = "command-id/1"
COMMAND_CONTENT_DOMAIN = "command-content/1"
NEW_CASE_DOMAIN = "new-case/1"
BATCH_DOMAIN = "command-batch/1"
INTERACTION_DOMAIN = "interaction/1"
USER_TURN_PLAN_DOMAIN = "user-turn-plan/1"
REDUCTION_PLAN_DOMAIN = "reduction-plan/1"


def command_content(
    *, workflow: str, case_id: str, expected_revision: int, name: str, args: Any
) -> dict[str, Any]:
    """The part of a command that must match when its idempotency key is reused."""
    return {
        "workflow": workflow,
        "case_id": case_id,
        "expected_revision": expected_revision,
        "name": name,
        "args": args,
    }


def content_digest(content: dict[str, Any]) -> str:
    return digest(COMMAND_CONTENT_DOMAIN, content)


def command_digest(command: PlannedCommand) -> str:
    """Recompute a PlannedCommand's content digest (what a store compares on key reuse)."""
    return content_digest(
        command_content(
            workflow=command.workflow,
            case_id=command.case_id,
            expected_revision=command.expected_revision,
            name=command.name,
            args=command.args,
        )
    )


def idempotency_key(
    *, account_id: str, turn_id: str, origin: dict[str, Any], content: dict[str, Any]
) -> str:
    """The journal key: account, turn, origin (act index or interaction) and the command."""
    return digest(
        IDEMPOTENCY_DOMAIN,
        {"account_id": account_id, "turn_id": turn_id, "origin": origin, "command": content},
    )


def command_id(key: str) -> str:
    return "cmd_" + digest(COMMAND_ID_DOMAIN, key)[:32]


def new_case_id(*, account_id: str, turn_id: str, start_act: int) -> str:
    """The id of the case a ``start_case`` act creates: the same on every replay of the turn."""
    return (
        "case_"
        + digest(
            NEW_CASE_DOMAIN, {"account_id": account_id, "turn_id": turn_id, "start_act": start_act}
        )[:32]
    )


def batch_id(command_ids: list[str]) -> str:
    return "batch_" + digest(BATCH_DOMAIN, command_ids)[:32]


def interaction_id(*, account_id: str, turn_id: str, kind: str, subject: Any) -> str:
    return (
        "ia_"
        + digest(
            INTERACTION_DOMAIN,
            {"account_id": account_id, "turn_id": turn_id, "kind": kind, "subject": subject},
        )[:32]
    )


def canonical_bytes(value: Any) -> bytes:
    """Canonical JSON of any converter-known value: byte-identical for equal values."""
    return canonical_json(unstructure(value))


def plan_hash(plan: UserTurnPlan) -> str:
    """Hash of a UserTurnPlan as reduced (the replay record's plan hash)."""
    return digest(USER_TURN_PLAN_DOMAIN, unstructure(plan))


def reduction_hash(reduction: ReductionPlan) -> str:
    """Hash of a whole ReductionPlan."""
    return digest(REDUCTION_PLAN_DOMAIN, unstructure(reduction))
