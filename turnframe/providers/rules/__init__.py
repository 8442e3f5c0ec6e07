"""The rule-based, offline interpreter: English text to a strict plan, for any workflow.

Vocabulary comes from the workflow (field, operation and question names and aliases, argument
names and parsers); phrasings are generic English patterns. Modules, in reading order:

- ``split``: the turn cut into clauses with exact offsets, correction markers noted;
- ``read``: each clause read as chitchat, cancellation, keep-unchanged, constraint, action,
  question or correction — or left in ``not_understood``;
- ``actions``, ``args``, ``negations``, ``questions``, ``targets``: the readers;
- ``vocabulary``, ``shapes``: the workflow's words and the generic English patterns;
- ``provider``: :class:`RulesProvider`, the Provider-protocol wrapper, and its request payload.
"""

from __future__ import annotations

from turnframe.providers.rules.builder import plan_to_json
from turnframe.providers.rules.provider import RULES_MODEL, RulesProvider, read_turn

__all__ = ["RULES_MODEL", "RulesProvider", "plan_to_json", "read_turn"]
