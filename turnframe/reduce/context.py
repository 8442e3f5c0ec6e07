"""What the reducer is given besides the plan: pure data read before reduction.

Resolving what an act names may need I/O (a store, a directory service); it happens before
``reduce`` (see :mod:`turnframe.pipeline.directory`) and arrives here as data: target
resolutions, case snapshots, the session's open interactions.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

import attrs

from turnframe.messages import UserTurn
from turnframe.plan import LabelTarget, TokenTarget
from turnframe.results import InteractionToCreate
from turnframe.workflow import CaseSnapshot, Workflow


class ResolutionOutcome(enum.StrEnum):
    EXACT = "exact"
    AMBIGUOUS = "ambiguous"
    UNKNOWN = "unknown"


@attrs.frozen(kw_only=True)
class TargetResolution:
    """What one target named: exactly one authorized case, several, or none.

    A case the account may not see is left out before classification, so it answers exactly
    like a case that does not exist.
    """

    target: LabelTarget | TokenTarget
    outcome: ResolutionOutcome
    case_ids: tuple[str, ...] = ()


@attrs.frozen(kw_only=True, eq=False)
class ReductionContext:
    """Everything ``reduce`` may look at. A target with no resolution here counts as unknown."""

    turn: UserTurn
    workflows: Mapping[str, Workflow[Any]]
    resolutions: tuple[TargetResolution, ...] = ()
    cases: Mapping[str, CaseSnapshot] = attrs.field(factory=dict)
    open_interactions: tuple[InteractionToCreate, ...] = ()
    #: Cards of the session that are closed (answered, superseded): a click on one is stale.
    closed_interaction_ids: frozenset[str] = frozenset()
