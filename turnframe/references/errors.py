"""Typed errors of reference material: every one names the workflow, the slot and its description.

They are raised at load time, before any provider call, so an adopter fixes a binding instead of
debugging a model answer. Codes are stable (``turnframe.reference.*``, ``turnframe.template.*``).
"""

from __future__ import annotations

from typing import ClassVar

from turnframe.errors import ConfigError, TurnframeError


class ReferenceMaterialError(ConfigError):
    """A reference slot, binding or file is wrong; ``workflow``, ``slot`` and ``description`` say
    which (``description`` is ``None`` only when the slot is not declared at all)."""

    code: ClassVar[str] = "turnframe.reference.invalid"

    def __init__(
        self,
        message: str,
        *,
        workflow: str,
        slot: str,
        description: str | None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.workflow = workflow
        self.slot = slot
        self.description = description


class InvalidSlotError(ReferenceMaterialError):
    code = "turnframe.reference.invalid_slot"


class DuplicateSlotError(ReferenceMaterialError):
    code = "turnframe.reference.duplicate_slot"


class UnknownSlotError(ReferenceMaterialError):
    code = "turnframe.reference.unknown_slot"


class MissingRequiredError(ReferenceMaterialError):
    code = "turnframe.reference.missing_required"


class NotMultipleError(ReferenceMaterialError):
    code = "turnframe.reference.not_multiple"


class UnreadableError(ReferenceMaterialError):
    code = "turnframe.reference.unreadable"


class NotUtf8Error(ReferenceMaterialError):
    code = "turnframe.reference.not_utf8"


class TooLargeError(ReferenceMaterialError):
    code = "turnframe.reference.too_large"


class UnsupportedMediaTypeError(ReferenceMaterialError):
    code = "turnframe.reference.unsupported_media_type"


class GlossarySyntaxError(ReferenceMaterialError):
    code = "turnframe.reference.glossary_syntax"


class BindingSyntaxError(ConfigError):
    """A ``--reference`` argument or an API binding that cannot be read as ``NAME=PATH``."""

    code = "turnframe.reference.bad_binding"


class ContextBudgetExceededError(TurnframeError):
    """References + template + turn do not fit the provider's declared context budget."""

    code = "turnframe.reference.context_budget_exceeded"

    def __init__(
        self,
        message: str,
        *,
        workflow: str,
        needed_tokens: int,
        budget_tokens: int,
        hint: str,
        slot: str | None = None,
        provider: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.workflow = workflow
        self.needed_tokens = needed_tokens
        self.budget_tokens = budget_tokens
        #: The largest bound slot (the first one to shrink), None when no reference is bound.
        self.slot = slot
        self.provider = provider


class TemplateError(TurnframeError):
    """A prompt template is wrong; ``template`` names it."""

    code: ClassVar[str] = "turnframe.template.invalid"

    def __init__(self, message: str, *, template: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.template = template


class TemplateSyntaxError(TemplateError):
    code = "turnframe.template.syntax"


class UndeclaredSlotError(TemplateError):
    code = "turnframe.template.undeclared_slot"


class UndeclaredVariableError(TemplateError):
    code = "turnframe.template.undeclared_variable"


class MissingVariableError(TemplateError):
    code = "turnframe.template.missing_variable"
