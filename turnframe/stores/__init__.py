"""Durable state behind one ``Store`` protocol; ``SqliteStore`` is the embedded default.

Import records, inputs and errors from here; implementations live in subpackages
(``turnframe.stores.sqlite``; ``turnframe.stores.postgres``, imported explicitly so asyncpg
stays optional) and share the conformance suite in ``tests/stores``.
"""

from __future__ import annotations

from turnframe.stores.delegating import DelegatingStore
from turnframe.stores.errors import (
    AlreadyExists,
    BlockingCardOpen,
    IllegalTransition,
    KeyReused,
    LeaseLost,
    NotFound,
    PayloadImmutable,
    PhaseConflict,
    RevisionConflict,
    SchemaTooNew,
    StatusConflict,
    StoreClosed,
    StoreError,
    StoreTimeout,
)
from turnframe.stores.inputs import (
    CardResolution,
    CaseUpdate,
    CommitBundle,
    JournalOutcome,
    NewCase,
    NewEvent,
    NewInteraction,
    NewJournalEntry,
    NewOutboxEffect,
    PhaseMove,
)
from turnframe.stores.protocol import InsideTransactionHook, Store
from turnframe.stores.records import (
    Admission,
    AdmissionVerdict,
    AssistantTurnRecord,
    BundleReceipt,
    CaseRecord,
    EventRecord,
    InteractionRecord,
    InteractionStatus,
    JournalRecord,
    Json,
    OutboxRecord,
    OutboxResult,
    OutboxStatus,
    SessionLease,
    SessionRecord,
    TurnRecord,
)
from turnframe.stores.seeding import create_missing_cases
from turnframe.stores.sqlite import SqliteStore

__all__ = [
    "Admission",
    "AdmissionVerdict",
    "AlreadyExists",
    "AssistantTurnRecord",
    "BlockingCardOpen",
    "BundleReceipt",
    "CardResolution",
    "CaseRecord",
    "CaseUpdate",
    "CommitBundle",
    "DelegatingStore",
    "EventRecord",
    "IllegalTransition",
    "InsideTransactionHook",
    "InteractionRecord",
    "InteractionStatus",
    "JournalOutcome",
    "JournalRecord",
    "Json",
    "KeyReused",
    "LeaseLost",
    "NewCase",
    "NewEvent",
    "NewInteraction",
    "NewJournalEntry",
    "NewOutboxEffect",
    "NotFound",
    "OutboxRecord",
    "OutboxResult",
    "OutboxStatus",
    "PayloadImmutable",
    "PhaseConflict",
    "PhaseMove",
    "RevisionConflict",
    "SchemaTooNew",
    "SessionLease",
    "SessionRecord",
    "SqliteStore",
    "StatusConflict",
    "Store",
    "StoreClosed",
    "StoreError",
    "StoreTimeout",
    "TurnRecord",
    "create_missing_cases",
]
