"""Reading a whole turn: clause by clause, in the user's order, into one plan.

Each clause is tried, in order, as: chitchat; a cancellation; keep-unchanged; a constraint; an
action (field, operation, new case) unless it opens like a question; a question; a correction
of the previous change ("no wait, 135", "make it Saturday"). A clause nothing reads is put in
the plan's ``not_understood``, never guessed at. A correction marker in front of an action on
something the turn already changed makes it a correction: a ``correct`` act linked to the field
change, or, for an operation (which cannot be corrected in place), a ``cancel`` of the earlier
operation followed by the operation with the corrected arguments.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from turnframe.plan import (
    Act,
    CancelAct,
    ChitchatAct,
    ConstraintAct,
    ConstraintKind,
    CorrectAct,
    KeepUnchangedAct,
    LabelTarget,
    OperationAct,
    QuestionAct,
    RecallAct,
    SetFieldAct,
    StartCaseAct,
    target_of,
)
from turnframe.providers.rules.actions import (
    FieldReading,
    OperationReading,
    StartReading,
    clean_value,
    read_field,
    read_operation,
    read_start,
)
from turnframe.providers.rules.builder import Note, PlanBuilder
from turnframe.providers.rules.negations import (
    CANCEL,
    KEEP_IT,
    NEGATION,
    forbidden,
    kept_field,
    negated_operations,
)
from turnframe.providers.rules.questions import QUESTION_OPENING, looks_like_question, read_question
from turnframe.providers.rules.recall import recall_description
from turnframe.providers.rules.shapes import CHITCHAT, ICASE, LEADING_FILLER, TRAILING_FILLER, TRIM
from turnframe.providers.rules.split import Clause
from turnframe.providers.rules.targets import Targets
from turnframe.providers.rules.vocabulary import Vocabulary
from turnframe.references import AliasMatch
from turnframe.workflow import ParseContext

Span = tuple[int, int]
_NO = re.compile(r"no|nope|not\s+that|no\s+thanks", ICASE)
_MAKE_IT = re.compile(r"(?:make\s+(?:it|that)|i\s+mean|rather|change\s+(?:it|that)\s+to)\s+", ICASE)


@attrs.define
class Reader:
    text: str
    vocab: Vocabulary
    targets: Targets
    aliases: tuple[AliasMatch, ...]
    ctx: ParseContext
    plan: PlanBuilder

    def read(self, clause: Clause) -> None:
        s, e = clause.start, clause.end
        if CHITCHAT.fullmatch(self.text, s, e):
            self._emit(ChitchatAct(evidence=self.plan.evidence((s, e))))
            return
        s, e = self._without_fillers(s, e)
        if s >= e:
            return
        body = self.text[s:e]
        if self._recall(s, e):
            return
        readers = (self._cancel, self._keep, self._constraint)
        if any(reader(clause, s, e) for reader in readers):
            return
        if not QUESTION_OPENING.match(body) and self._action(clause, s, e):
            return
        if looks_like_question(body, clause.question):
            self._question(clause, s, e)
        elif not self._correction(clause, s, e):
            self.plan.not_understood(s, e)

    def _emit(self, act: Act, note: Note | None = None) -> int:
        """Add the act to the plan; a case it names is what "it" means from now on."""
        index = self.plan.add(act, note)
        self.targets.remember(target_of(act))
        return index

    def _without_fillers(self, s: int, e: int) -> Span:
        lead = LEADING_FILLER.match(self.text[s:e])
        if lead is not None:
            s += lead.end()
        tail = TRAILING_FILLER.search(self.text[s:e])
        if tail is not None:
            e = s + tail.start()
        while s < e and self.text[s] in TRIM:
            s += 1
        while e > s and self.text[e - 1] in TRIM:
            e -= 1
        return s, e

    # -- negative clauses -------------------------------------------------------------------
    def _cancel(self, clause: Clause, s: int, e: int) -> bool:
        refused = clause.marker is not None and _NO.fullmatch(self.text, s, e) is not None
        if refused or CANCEL.fullmatch(self.text, s, e):
            index = self.plan.last_cancellable()
            if index is None:
                self.plan.not_understood(s, e)
            else:
                self._add_cancel(index, (clause.lead, e))
            return True
        negation = NEGATION.fullmatch(self.text, s, e)
        if negation is None or clause.marker is None:
            return False
        index = self._earlier_act_named(negation.group("rest"))
        if index is None:
            return False
        self._add_cancel(index, (clause.lead, e))
        return True

    def _earlier_act_named(self, words: str) -> int | None:
        field = re.search(rf"(?<!\w)(?:{self.vocab.field_pattern})(?!\w)", words, ICASE)
        if field is not None:
            name = self.vocab.field_named(field.group(0))
            index = self.plan.latest(
                lambda _, act, note: (
                    isinstance(act, SetFieldAct | CorrectAct) and note.field == name
                )
            )
            return None if index is None else self.plan.root(index)
        names = negated_operations(words, self.vocab)
        return self.plan.latest(
            lambda _, act, __: isinstance(act, OperationAct) and act.operation in names
        )

    def _add_cancel(self, index: int, span: Span) -> None:
        self._emit(CancelAct(cancels=self.plan.root(index), evidence=self.plan.evidence(span)))

    def _keep(self, clause: Clause, s: int, e: int) -> bool:
        field = kept_field(self.text, s, e, self.vocab)
        if field is not None:
            target = self.targets.find(s, e)
            act = KeepUnchangedAct(target=target, field=field, evidence=self.plan.evidence((s, e)))
            self._emit(act, Note(field=field))
            return True
        if not KEEP_IT.fullmatch(self.text, s, e):
            return False
        index = self.plan.last_change()
        if index is None:
            evidence = self.plan.evidence((s, e))
            self._emit(ConstraintAct(forbids=ConstraintKind.NO_CHANGES, evidence=evidence))
        elif isinstance(self.plan.acts[index], OperationAct):
            self._add_cancel(index, (clause.lead, e))
        else:
            root = self.plan.root(index)
            root_act = self.plan.acts[root]
            assert isinstance(root_act, SetFieldAct)
            act = KeepUnchangedAct(
                target=root_act.target, field=root_act.field, evidence=self.plan.evidence((s, e))
            )
            self._emit(act, Note(field=root_act.field))
        return True

    def _constraint(self, clause: Clause, s: int, e: int) -> bool:
        rules = forbidden(self.text, s, e, self.vocab)
        pause = re.search(r"[,;:]", self.text[s:e])
        if not rules and pause is not None:
            # "don't submit it, the boss wants to see it first": the constraint is read, the
            # words after the pause are not understood rather than guessed at.
            head = self._without_fillers(s, s + pause.start())
            rules = forbidden(self.text, *head, self.vocab)
            if rules:
                self.plan.not_understood(*self._without_fillers(head[1], e))
                e = head[1]
        said = self.targets.mentions(s, e)
        target = LabelTarget(label=said[0].label) if said else None
        for rule in rules:
            act = ConstraintAct(
                forbids=rule.forbids,
                operation=rule.operation,
                target=target,
                evidence=self.plan.evidence((s, e)),
            )
            self._emit(act)
        return bool(rules)

    # -- actions ----------------------------------------------------------------------------
    def _action(self, clause: Clause, s: int, e: int) -> bool:
        field = read_field(self.text, (s, e), self.vocab, self.targets, self.aliases)
        op = read_operation(
            self.text, (s, e), self.vocab, self.targets, ctx=self.ctx, aliases=self.aliases
        )
        if field is not None and (op is None or field.opening >= op.opening):
            self._set_field(clause, field, (s, e))
        elif op is not None:
            self._operation(clause, op, (s, e))
        else:
            start = read_start(self.text, (s, e))
            if start is None:
                return False
            self._start_case(start, (s, e))
        return True

    def _set_field(self, clause: Clause, reading: FieldReading, span: Span) -> None:
        earlier = None
        if clause.marker is not None:
            earlier = self.plan.latest(
                lambda i, act, note: (
                    isinstance(act, SetFieldAct | CorrectAct)
                    and note.field == reading.field
                    and self._target_of(i) == reading.target
                )
            )
        note = Note(field=reading.field, span=span)
        if earlier is not None:
            act: Any = CorrectAct(
                corrects=earlier, value=reading.value, evidence=self.plan.evidence(span)
            )
        else:
            act = SetFieldAct(
                target=reading.target,
                field=reading.field,
                value=reading.value,
                evidence=self.plan.evidence(span),
            )
        self._emit(act, note)

    def _target_of(self, index: int) -> Any:
        return getattr(self.plan.acts[self.plan.root(index)], "target", None)

    def _operation(self, clause: Clause, reading: OperationReading, span: Span) -> None:
        if clause.marker is not None:
            earlier = self.plan.latest(
                lambda _, act, __: (
                    isinstance(act, OperationAct)
                    and act.operation == reading.operation
                    and act.target == reading.target
                )
            )
            if earlier is not None:
                self._add_cancel(earlier, (clause.lead, span[1]))
        act = OperationAct(
            target=reading.target,
            operation=reading.operation,
            args=reading.args,
            evidence=self.plan.evidence(span),
        )
        note = Note(operation=reading.operation, args=reading.args, numbers=reading.numbers)
        self._emit(act, note)
        for unread in reading.unread:
            self.plan.not_understood(*unread)

    def _start_case(self, reading: StartReading, span: Span) -> None:
        act = StartCaseAct(
            workflow=self.vocab.workflow.name,
            label=reading.label,
            evidence=self.plan.evidence(span),
        )
        self.targets.started(self._emit(act))

    # -- questions and corrections ----------------------------------------------------------
    def _recall(self, s: int, e: int) -> bool:
        """A vague reference to an earlier conversation (providers/rules/recall.py)."""
        description = recall_description(self.text, s, e)
        if description is None:
            return False
        if e < len(self.text) and self.text[e] == "?":
            e += 1
        self._emit(RecallAct(description=description, evidence=self.plan.evidence((s, e))))
        return True

    def _question(self, clause: Clause, s: int, e: int) -> None:
        reading = read_question(self.text[s:e], self.vocab)
        if e < len(self.text) and self.text[e] == "?":
            e += 1
        evidence = self.plan.evidence((s, e))
        if reading.recall is not None:
            self._emit(RecallAct(description=reading.recall, evidence=evidence))
            return
        if reading.about_case:
            target: Any = self.targets.find(s, e)
        else:
            said = self.targets.mentions(s, e)
            target = LabelTarget(label=said[0].label) if said else None
        act = QuestionAct(
            question=reading.question,
            target=target,
            hypothetical=reading.hypothetical,
            evidence=evidence,
        )
        self._emit(act)

    def _correction(self, clause: Clause, s: int, e: int) -> bool:
        make_it = _MAKE_IT.match(self.text, s, e)
        if make_it is None and clause.marker is None:
            return False
        value, _ = clean_value(self.text, (make_it.end() if make_it else s, e), self.aliases)
        index = self.plan.last_change()
        if index is None or not value:
            return False
        act = self.plan.acts[index]
        if isinstance(act, OperationAct):
            return self._corrected_operation(index, act, value, clause, (s, e))
        note = self.plan.notes[self.plan.root(index)]
        evidence = self.plan.evidence((clause.lead, e))
        self._emit(CorrectAct(corrects=index, value=value, evidence=evidence), note)
        return True

    def _corrected_operation(
        self, index: int, act: OperationAct, value: str, clause: Clause, span: Span
    ) -> bool:
        note = self.plan.notes[index]
        op = self.vocab.operation(act.operation)
        order = [*reversed(note.numbers), *(a.name for a in op.arguments)]
        for name in order:
            argument = next(a for a in op.arguments if a.name == name)
            if argument.type is str:
                continue
            try:
                argument.parse(value, self.ctx)
            except ValueError:
                continue
            self._add_cancel(index, (clause.lead, span[1]))
            args = {**act.args, name: value}
            corrected = OperationAct(
                target=act.target,
                operation=act.operation,
                args=args,
                evidence=(*act.evidence, *self.plan.evidence(span)),
            )
            self._emit(corrected, attrs.evolve(note, args=args))
            return True
        return False
