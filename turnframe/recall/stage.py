"""The protocol as a per-session state machine that spans turns (the RecallActor's body).

Each turn of a session passes here once, after grounding and before narration, with the state
stored before the turn. :meth:`RecallStage.advance` reads what the turn says to the protocol
(a new recall, the user's answer to what was presented or asked, a click on the expansion
card, or nothing about recall at all) and returns the blocks to say and the new state, which
the session stores with the response in one transaction. The stage only reads the store; the
same turn from the same state says the same thing, so a replayed turn is answered alike.

FLOW (the seed's, kept branch for branch)::

    Detect: a named session → relay it (no activation); otherwise Cue → scope spine, attempts 0
    Find → Rank → assemble (above session scope) → Ground the head (drop and name what cannot
    be opened, ground the next) →
      grounded                          → Present (Λ.presented written) → wait for U
      nothing ∧ attempts = 0            → Ask once                      → wait for H
      nothing ∧ attempts > 0 ∧ spine     → store-expansion card         → wait for X
      nothing ∧ attempts > 0 ∧ full text → NullMatch
    U: Identified → RecalledContext | Corrected(c) ∧ attempts < max → recue, attempts + 1, Find
       | Corrected ∧ attempts = max → AttemptsExhausted (closest grounded, nothing claimed)
       | Withdrawn (or any turn that is not about the recall) → stand down
    H: recue, attempts + 1, Find.   X: expand → scope full text, Find | stop → NullMatch.

Silence decides nothing: a turn that has not come is no answer, and only a user's act makes
recalled context. A turn that gives the protocol nothing to look for (no words at all, or a
recall with no cue of its own such as ``/recollect`` or "do you remember?" while one waits) is
silence too: the protocol stays where it stood, its tries unspent, and says what it still
waits for (``turnframe.recall.no_cue``). A new recall with no cue, and none bound from the
previous message, is an empty Find: the one open question.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from turnframe._converter import converter
from turnframe._hashing import digest
from turnframe.messages import UserTurn
from turnframe.narration.draft import Draft
from turnframe.plan import RecallAct, UserTurnPlan
from turnframe.recall import present
from turnframe.recall.assemble import Recognizable, assemble
from turnframe.recall.cue import (
    VagueRecall,
    cue,
    has_cue,
    input_type,
    named_sessions,
    recue,
    track_of,
)
from turnframe.recall.find import Candidate, find, query_terms
from turnframe.recall.ground import Excerpt, Handles, ground
from turnframe.recall.rank import rank
from turnframe.recall.settings import RecallSettings
from turnframe.recall.state import (
    Phase,
    Presentation,
    RecalledContext,
    RecallMemory,
    RecallState,
    Shown,
    dump_memory,
    load_memory,
)
from turnframe.recall.temporal import window
from turnframe.recall.words import words
from turnframe.results import (
    ActRef,
    InteractionKind,
    InteractionOption,
    InteractionOutcomeStatus,
    InteractionToCreate,
    OptionAction,
    ReductionPlan,
)
from turnframe.stores.inputs import CardResolution, NewInteraction
from turnframe.stores.protocol import Store
from turnframe.stores.recall import RecallQuery, RecallScope
from turnframe.stores.records import InteractionStatus

CARD_DOMAIN = "recall-card/1"
_RECOLLECT = "/recollect"
#: Where a block that answers no act of the turn stands: before the turn's own acts.
TURN_LEVEL_AT = -0.5


@attrs.frozen(kw_only=True)
class Recall:
    """To the RecallActor: this turn, its plan and reduction, and the session's recall memory
    as stored before the turn (JSON)."""

    turn: UserTurn
    plan: UserTurnPlan
    reduction: ReductionPlan
    memory: Any = None


@attrs.frozen(kw_only=True)
class RecallOutcome:
    """The memory to store with the response (JSON, None for none), the blocks to say, the
    cards the response opens and the ones it closes."""

    memory: Any
    drafts: tuple[Draft, ...] = ()
    cards: tuple[NewInteraction, ...] = ()
    closing: tuple[CardResolution, ...] = ()


@attrs.frozen(kw_only=True)
class _Event:
    kind: str  # new | identified | corrected | withdrawn | moved_on | expand | stop | none
    text: str = ""
    refs: tuple[ActRef, ...] = ()
    at: int | None = None  # where the recall's own words start in the turn (its trigger)


def read_event(plan: UserTurnPlan, reduction: ReductionPlan, state: RecallState | None) -> _Event:
    """What this turn says to the protocol. One utterance carries one disposition: the first
    recall act decides (the others are noted with it); a click on the open expansion card is
    the expansion answer; any other turn while the protocol waits leaves the recall behind."""
    outcome = reduction.interaction_outcome
    card = state.card_id if state is not None else None
    if outcome is not None and card is not None and outcome.interaction_id == card:
        chose = outcome.status is InteractionOutcomeStatus.CONFIRMED
        return _Event(kind="expand" if chose else "stop")
    recalls = [(i, a) for i, a in enumerate(plan.acts) if isinstance(a, RecallAct)]
    if recalls:
        refs = tuple(ActRef(index=i) for i, _ in recalls)
        first = recalls[0][1]
        kind = "new" if first.disposition is None else first.disposition.value
        at = min((e.start for e in first.evidence), default=None)
        return _Event(kind=kind, text=first.description, refs=refs, at=at)
    if state is not None:
        return _Event(kind="moved_on")
    return _Event(kind="none")


def card_id_for(turn: UserTurn) -> str:
    return "card_recall_" + digest(CARD_DOMAIN, {"turn": turn.turn_id})[:24]


class RecallStage:
    def __init__(self, store: Store, settings: RecallSettings, *, store_location: str) -> None:
        self._store = store
        self._settings = settings
        self._location = store_location

    async def advance(self, message: Recall) -> RecallOutcome:
        memory = load_memory(message.memory)
        event = read_event(message.plan, message.reduction, memory.state)
        handles = Handles(store_location=self._location, account_id=message.turn.account_id)
        step = _Step(self._store, self._settings, handles, message.turn, memory, event)
        return await step.run()


class _Step:
    """One turn's pass through the protocol."""

    def __init__(
        self,
        store: Store,
        settings: RecallSettings,
        handles: Handles,
        turn: UserTurn,
        memory: RecallMemory,
        event: _Event,
    ) -> None:
        self.store = store
        self.settings = settings
        self.turn = turn
        self.account = turn.account_id
        self.handles = handles
        self.memory = memory
        self.state = memory.state
        self.event = event
        self.cards: list[NewInteraction] = []
        self.closing: list[CardResolution] = []

    async def run(self) -> RecallOutcome:
        event, state = self.event, self.state
        if event.kind == "none":
            return RecallOutcome(memory=dump_memory(self.memory))
        if state is not None and self._gives_nothing(state):
            return self._still_waiting(state)
        if state is not None and state.card_id is not None and event.kind not in ("expand", "stop"):
            await self._expire(state.card_id)
        if event.kind == "withdrawn" and state is not None and state.phase is Phase.EXPANSION:
            return await self._null(state.recall, state.scope, state.dropped)  # "no" to the card
        if event.kind in ("withdrawn", "moved_on"):
            said = present.withdrawn(moved_on=event.kind == "moved_on")
            return self._done(RecallMemory(recalled=self.memory.recalled), said)
        if state is None:  # a recall, whatever the act's disposition: no protocol is waiting
            return await self._begin(event.text)
        if event.kind == "identified":
            if state.phase is Phase.PRESENTED and state.presented is not None:
                return self._identified(state.presented)
            if state.phase is Phase.EXPANSION:
                return await self._widen(state)
            return await self._correct(state, event.text)
        if event.kind == "expand":
            return await self._widen(state)
        if event.kind == "stop":
            return await self._null(state.recall, state.scope, state.dropped)
        return await self._correct(state, event.text)

    def _gives_nothing(self, state: RecallState) -> bool:
        """Whether this turn, while the protocol waits, carries no disposition at all: no words
        (silence, however it is typed), a new recall with no cue of its own, or an answer to the
        open question that adds nothing to look for. A "no, not that one" to a presentation
        is a correction even without new words: it turns the cue away from what was shown."""
        event = self.event
        if event.kind in ("expand", "stop") or self.turn.interaction_response is not None:
            return False  # a click: on the expansion card, or on another card (moving on)
        if not words(_without_command(self.turn.text)):
            return True
        if event.kind == "new":
            return not has_cue(event.text)
        if event.kind in ("corrected", "identified") and state.phase is Phase.ASKED:
            return not has_cue(event.text)  # nothing was shown: only new words can answer
        return False

    def _still_waiting(self, state: RecallState) -> RecallOutcome:
        left = state.attempts_left(self.settings.max_attempts)
        said = present.no_cue(
            waiting=state.phase.value,
            presented=state.presented,
            attempts_left=None if state.phase is Phase.EXPANSION else left,
        )
        return self._done(self.memory, said)

    # -- Phase 0 ------------------------------------------------------------------------------
    async def _begin(self, description: str) -> RecallOutcome:
        said = await self._bind(description)
        recall = cue(said)
        if recall.trace.empty:  # nothing to look for: Find can only come back empty
            state = RecallState(phase=Phase.ASKED, recall=recall)
            left = state.attempts_left(self.settings.max_attempts)
            asked = present.ask(_described(recall), attempts_left=left, dropped=())
            return self._done(attrs.evolve(self.memory, state=state), asked)
        for named in named_sessions(recall.trace):
            if named != self.turn.session_id:
                relay = await self._relay(named)
                if relay is not None:
                    return relay
        return await self._search(recall, attempts=0, scope=RecallScope.SPINE, rejected=())

    async def _bind(self, description: str) -> str:
        """V-binding, in the seed's priority: the recall's own words; else what the turn said
        before them ("the pool thing from last week, what did we say?"); else the previous
        user message (``/recollect`` alone, ``/recollect ""``, "do you remember?")."""
        text = _without_command(description)
        if has_cue(text):
            return text
        at = self.event.at
        before = self.turn.text[:at].strip(" ,;:-\u2014\u2013") if at else ""
        if has_cue(before):
            return before
        turns = await self.store.list_session_turns(self.account, self.turn.session_id)
        earlier = []
        for record in turns:
            if record.turn_id == self.turn.turn_id:
                break
            payload = record.payload if isinstance(record.payload, dict) else {}
            said = payload.get("text")
            if isinstance(said, str) and said.strip() and not said.strip().startswith("/"):
                earlier.append(said.strip())
        return earlier[-1] if earlier else text

    async def _relay(self, session_id: str) -> RecallOutcome | None:
        """Detect: the user named the session itself; its intention is not empty."""
        candidate = Candidate(
            session_id=session_id, record=session_id, recency=None, started_at=None, workflow=None
        )
        excerpt = await ground(self.store, self.account, candidate, (), self.handles)
        if not excerpt.text:
            return None
        return self._done(self.memory, present.relayed(_shown(excerpt)))

    # -- Phase 1 and 2 ------------------------------------------------------------------------
    async def _search(
        self,
        recall: VagueRecall,
        *,
        attempts: int,
        scope: RecallScope,
        rejected: tuple[str, ...],
    ) -> RecallOutcome:
        exclude = (self.turn.session_id, *rejected)
        found = await find(
            self.store,
            self.account,
            recall,
            scope=scope,
            exclude=exclude,
            limit=self.settings.find_limit,
        )
        trace = recall.trace
        ranked = rank(
            found.candidates,
            trace,
            track_of(input_type(trace)),
            window(trace.temporal, self.turn.clock),
        )
        on_record = await self._sessions_on_record([r.candidate for r in ranked])
        recognizables = assemble(ranked, recall.unit, on_record)
        cue_words, _ = query_terms(recall)
        presentation, dropped = await self._ground_top(recognizables, cue_words)
        base = RecallState(
            phase=Phase.PRESENTED,
            recall=recall,
            attempts=attempts,
            scope=scope,
            rejected=rejected,
            dropped=dropped,
        )
        if presentation is not None:
            state = attrs.evolve(base, presented=presentation)
            said = present.presented(
                presentation,
                attempts_left=state.attempts_left(self.settings.max_attempts),
                dropped=dropped,
            )
            return self._done(attrs.evolve(self.memory, state=state), said)
        described = _described(recall)
        sessions, indexed = found.sessions, found.indexed
        if sessions is None:  # candidates came back, yet none could be opened
            coverage = await self.store.find_recall(self.account, RecallQuery(coverage=True))
            sessions, indexed = coverage.sessions, coverage.indexed
        if attempts == 0:
            state = attrs.evolve(base, phase=Phase.ASKED)
            said = present.ask(
                described,
                attempts_left=state.attempts_left(self.settings.max_attempts),
                dropped=dropped,
            )
            return self._done(attrs.evolve(self.memory, state=state), said)
        if scope is RecallScope.SPINE:
            card_id = card_id_for(self.turn)
            state = attrs.evolve(base, phase=Phase.EXPANSION, card_id=card_id)
            self.cards.append(_expansion_card(card_id, self.turn))
            said = present.expand(
                described,
                card_id=card_id,
                sessions=max(0, (sessions or 0) - 1),
                indexed=indexed or 0,
                attempts_left=state.attempts_left(self.settings.max_attempts),
                dropped=dropped,
            )
            return self._done(attrs.evolve(self.memory, state=state), said)
        return await self._null(recall, scope, dropped, sessions=sessions, indexed=indexed)

    async def _ground_top(
        self, recognizables: Sequence[Recognizable], cue_words: Sequence[str]
    ) -> tuple[Presentation | None, tuple[str, ...]]:
        """Ground O[top]; when no member's record opens, drop it and ground the next head.
        Then ground up to ``adjacent`` runners-up (their heads) to name alongside."""
        dropped: list[str] = []
        top: Presentation | None = None
        adjacent: list[Shown] = []
        for recognizable in recognizables:
            if top is not None and len(adjacent) >= self.settings.adjacent:
                break
            members = recognizable.members if top is None else recognizable.members[:1]
            excerpts = [
                await ground(self.store, self.account, m, cue_words, self.handles)
                for m in members
                if m.session_id != self.turn.session_id
            ]
            dropped += [e.session_id for e in excerpts if not e.text and not e.recall_only]
            shown = [_shown(e) for e in excerpts if e.text]
            if not shown:
                continue
            if top is None:
                assembly = recognizable.assembly
                top = Presentation(
                    unit=recognizable.unit,
                    members=tuple(shown),
                    joined=assembly.joined if assembly else (),
                    skipped=assembly.skipped if assembly else (),
                )
            else:
                adjacent.append(shown[0])
        if top is not None and adjacent:
            top = attrs.evolve(top, adjacent=tuple(adjacent))
        return top, tuple(dict.fromkeys(dropped))

    async def _sessions_on_record(self, candidates: Sequence[Candidate]) -> set[str]:
        named = {
            a.ref for c in candidates for a in c.cross_refs if a.kind == "session"
        } - {c.session_id for c in candidates}
        found = {c.session_id for c in candidates if c.record is not None}
        for session_id in sorted(named)[:16]:
            if await self.store.get_session(self.account, session_id) is not None:
                found.add(session_id)
        return found

    # -- Phase 3 ------------------------------------------------------------------------------
    def _identified(self, presentation: Presentation) -> RecallOutcome:
        context = RecalledContext(
            unit=presentation.unit,
            members=presentation.members,
            identified_in=self.turn.turn_id,
        )
        return self._done(self.memory.remember(context), present.identified(presentation))

    async def _correct(self, state: RecallState, said: str) -> RecallOutcome:
        if state.attempts >= self.settings.max_attempts:
            if state.presented is not None:
                outcome = present.exhausted(state.presented, tries=state.attempts)
                return self._done(RecallMemory(recalled=self.memory.recalled), outcome)
            return await self._null(state.recall, state.scope, state.dropped)
        rejected = state.rejected
        if state.phase is Phase.PRESENTED and state.presented is not None:
            rejected = tuple(
                dict.fromkeys([*rejected, *(m.session_id for m in state.presented.members)])
            )
        return await self._search(
            recue(state.recall, said) if said.strip() else state.recall,
            attempts=state.attempts + 1,
            scope=state.scope,
            rejected=rejected,
        )

    async def _widen(self, state: RecallState) -> RecallOutcome:
        return await self._search(
            state.recall,
            attempts=state.attempts,
            scope=RecallScope.FULL_TEXT,
            rejected=state.rejected,
        )

    async def _null(
        self,
        recall: VagueRecall,
        scope: RecallScope,
        dropped: Sequence[str],
        *,
        sessions: int | None = None,
        indexed: int | None = 0,
    ) -> RecallOutcome:
        if sessions is None:
            coverage = await self.store.find_recall(self.account, RecallQuery(coverage=True))
            sessions, indexed = coverage.sessions, coverage.indexed
        sessions = sessions or 0
        said = present.null_match(
            _described(recall),
            sessions=max(0, sessions - 1),
            indexed=indexed or 0,
            full_text=scope is RecallScope.FULL_TEXT,
            dropped=dropped,
        )
        return self._done(RecallMemory(recalled=self.memory.recalled), said)

    # -- plumbing -----------------------------------------------------------------------------
    async def _expire(self, card_id: str) -> None:
        card = await self.store.get_interaction(self.account, card_id)
        if card is not None and card.status is InteractionStatus.OPEN:
            self.closing.append(
                CardResolution(interaction_id=card_id, status=InteractionStatus.EXPIRED)
            )

    def _done(self, memory: RecallMemory, said: present.Output) -> RecallOutcome:
        refs = self.event.refs
        extra = len(refs) - 1
        text = said.text
        if extra > 0:
            text += (
                f"\n(You mentioned {extra + 1} earlier conversations; I looked for the first. "
                "Ask again for the other.)"
            )
        draft = Draft(
            kind=said.kind,
            code=said.code,
            text=text,
            refs=refs,
            data=said.data,
            at=TURN_LEVEL_AT,
        )
        return RecallOutcome(
            memory=dump_memory(memory),
            drafts=(draft,),
            cards=tuple(self.cards),
            closing=tuple(self.closing),
        )


def _described(recall: VagueRecall) -> str:
    """The cues the user gave, as they said them (those with something to look for)."""
    return " / ".join(c.strip() for c in recall.cues if has_cue(c))


def _without_command(text: str) -> str:
    said = text.strip()
    if said.lower().startswith(_RECOLLECT):
        said = said[len(_RECOLLECT) :].strip()
    return said


def _shown(excerpt: Excerpt) -> Shown:
    return Shown(
        session_id=excerpt.session_id,
        turn_id=excerpt.turn_id or "",
        excerpt=excerpt.text,
        locator=excerpt.locator,
        resume=excerpt.handle,
        resumes=excerpt.resumes,
        fork_of=excerpt.fork_of,
        started_at=excerpt.started_at,
        partial_source=excerpt.partial_source,
    )


def _expansion_card(card_id: str, turn: UserTurn) -> NewInteraction:
    card = InteractionToCreate(
        interaction_id=card_id,
        kind=InteractionKind.RECALL_EXPANSION,
        turn_id=turn.turn_id,
        acts=(),
        options=(
            InteractionOption(
                option_id=present.EXPAND_OPTION,
                action=OptionAction.CONFIRM,
                label=present.EXPAND_OPTION,
            ),
            InteractionOption(
                option_id=present.STOP_OPTION,
                action=OptionAction.DECLINE,
                label=present.STOP_OPTION,
            ),
        ),
        expected_revision=0,
    )
    return NewInteraction(
        payload=converter.unstructure(card), blocking=False, interaction_id=card_id
    )


__all__ = ["CARD_DOMAIN", "Recall", "RecallOutcome", "RecallStage", "card_id_for", "read_event"]
