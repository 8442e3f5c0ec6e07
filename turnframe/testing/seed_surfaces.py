"""The seed's live verification (ADR-0066), byte for byte: what the shipped corpora must say.

Shared by the composer, grounding and CLI tests so the expected bytes are written once.
"""

from __future__ import annotations

TRUTH = (
    "truth — narrative-grounded (cognition_chains_v1): cognition.truth; logos.core. "
    "truth grounds knowledge (cognition.knowledge); truth requires evidence "
    "(cognition.evidence). No session evidence yet."
)
KNOWLEDGE = (
    "knowledge — example-grounded (cognition_chains_v1): cognition.knowledge. "
    "Example: truth grounds knowledge; understanding requires knowledge; "
    "evidence grounds knowledge. No session evidence yet."
)
MOTHER = (
    "mother — narrative-grounded (relations_chains_v2): kinship.parent.female; "
    "kinship.parent. mother precedes daughter (kinship.child.female). No session evidence yet."
)
LIGHT = (
    "light — pack-grounded (en_core_cognition_v1): "
    "cognition.illumination; logos.core; perception.clarity."
)
RECALLING_LIGHT_CAUSE = "(Recalling turn 0: chain cause_light_reveals_truth.) "
