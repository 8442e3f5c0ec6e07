"""The PostgreSQL schema as numbered migrations, applied in order when a store opens.

Tables live in one PostgreSQL schema (``turnframe`` unless told), found through the pool's
``search_path``, so tests and tenants can keep databases apart by schema. The layout is the
SQLite store's: every table keyed by ``(account_id, id)`` (account scoping by construction),
foreign keys keeping children inside their account, payloads in ``json`` columns written once,
and a ``pos`` identity column for insertion order.

Opening takes a transaction-scoped advisory lock for the schema first, so stores opening
together (several workers starting at once) migrate it once, in turn. A migration is a list of
statements run in one transaction with its ``schema_version`` row. Add a migration by appending
to :data:`MIGRATIONS`; never edit one that shipped.
"""

from __future__ import annotations

import re
from datetime import datetime

from turnframe.errors import ConfigError
from turnframe.stores.errors import SchemaTooNew
from turnframe.stores.postgres.tx import Conn

_V1 = [
    """CREATE TABLE sessions (
        pos bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL,
        id text NOT NULL,
        workflow text NOT NULL,
        created_at timestamptz NOT NULL,
        thread_context json NOT NULL,
        last_turn_id text,
        CONSTRAINT sessions_pkey PRIMARY KEY (account_id, id)
    )""",
    "CREATE INDEX sessions_in_order ON sessions (account_id, pos)",
    """CREATE TABLE turns (
        pos bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL,
        id text NOT NULL,
        session_id text NOT NULL,
        payload json NOT NULL,
        phase text NOT NULL,
        plan json,
        reduction json,
        created_at timestamptz NOT NULL,
        phase_changed_at timestamptz NOT NULL,
        CONSTRAINT turns_pkey PRIMARY KEY (account_id, id),
        CONSTRAINT turns_session_fkey FOREIGN KEY (account_id, session_id)
            REFERENCES sessions (account_id, id)
    )""",
    "CREATE INDEX turns_by_session ON turns (account_id, session_id, pos)",
    "CREATE INDEX turns_unfinished ON turns (pos) WHERE phase NOT IN ('delivered', 'failed')",
    """CREATE TABLE interactions (
        pos bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL,
        id text NOT NULL,
        turn_id text NOT NULL,
        case_id text,
        blocking boolean NOT NULL,
        status text NOT NULL,
        payload json NOT NULL,
        resolution json,
        created_at timestamptz NOT NULL,
        resolved_at timestamptz,
        CONSTRAINT interactions_pkey PRIMARY KEY (account_id, id),
        CONSTRAINT interactions_turn_fkey FOREIGN KEY (account_id, turn_id)
            REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX interactions_by_turn ON interactions (account_id, turn_id, pos)",
    # At most one open blocking card per case: the database refuses the second.
    """CREATE UNIQUE INDEX one_open_blocking_card_per_case ON interactions (account_id, case_id)
        WHERE blocking AND status = 'open' AND case_id IS NOT NULL""",
    """CREATE TABLE journal (
        pos bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL,
        idempotency_key text NOT NULL,
        command_id text NOT NULL,
        turn_id text NOT NULL,
        case_id text,
        expected_revision bigint,
        content_digest text NOT NULL,
        payload json NOT NULL,
        status text NOT NULL,
        outcome json,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT journal_pkey PRIMARY KEY (account_id, idempotency_key),
        CONSTRAINT journal_turn_fkey FOREIGN KEY (account_id, turn_id)
            REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX journal_by_turn ON journal (account_id, turn_id, pos)",
    """CREATE TABLE cases (
        pos bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL,
        id text NOT NULL,
        workflow text NOT NULL,
        label text NOT NULL,
        state json NOT NULL,
        revision bigint NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT cases_pkey PRIMARY KEY (account_id, id)
    )""",
    "CREATE INDEX cases_by_label ON cases (account_id, workflow, label)",
    # An identity never hands out a number twice, even after a rollback (gaps are fine).
    """CREATE TABLE events (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL UNIQUE,
        account_id text NOT NULL,
        case_id text NOT NULL,
        revision bigint NOT NULL,
        type text NOT NULL,
        payload json NOT NULL,
        turn_id text NOT NULL,
        command_id text,
        recorded_at timestamptz NOT NULL,
        CONSTRAINT events_case_fkey FOREIGN KEY (account_id, case_id)
            REFERENCES cases (account_id, id),
        CONSTRAINT events_turn_fkey FOREIGN KEY (account_id, turn_id)
            REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX events_by_account ON events (account_id, seq)",
    "CREATE INDEX events_by_case ON events (account_id, case_id, seq)",
    "CREATE INDEX events_by_turn ON events (account_id, turn_id, seq)",
    """CREATE TABLE outbox (
        pos bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL,
        id text NOT NULL,
        idempotency_key text NOT NULL,
        turn_id text NOT NULL,
        case_id text,
        command_id text,
        payload json NOT NULL,
        status text NOT NULL,
        attempts integer NOT NULL,
        available_at timestamptz NOT NULL,
        claim_token text,
        lease_expires_at timestamptz,
        outcome json,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT outbox_pkey PRIMARY KEY (account_id, id),
        CONSTRAINT outbox_key_once UNIQUE (account_id, idempotency_key),
        CONSTRAINT outbox_turn_fkey FOREIGN KEY (account_id, turn_id)
            REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX outbox_ready ON outbox (available_at, pos) WHERE status = 'pending'",
    "CREATE INDEX outbox_leases ON outbox (lease_expires_at) WHERE status = 'claimed'",
    "CREATE INDEX outbox_by_turn ON outbox (account_id, turn_id, pos)",
    "CREATE INDEX outbox_in_order ON outbox (pos)",
    """CREATE TABLE replay_records (
        account_id text NOT NULL,
        turn_id text NOT NULL,
        payload json NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT replay_records_pkey PRIMARY KEY (account_id, turn_id),
        CONSTRAINT replay_records_turn_fkey FOREIGN KEY (account_id, turn_id)
            REFERENCES turns (account_id, id)
    )""",
    """CREATE TABLE assistant_turns (
        account_id text NOT NULL,
        turn_id text NOT NULL,
        blocks json NOT NULL,
        meta json,
        created_at timestamptz NOT NULL,
        CONSTRAINT assistant_turns_pkey PRIMARY KEY (account_id, turn_id),
        CONSTRAINT assistant_turns_turn_fkey FOREIGN KEY (account_id, turn_id)
            REFERENCES turns (account_id, id)
    )""",
]

# Session leases: which worker serves a live session, until when. Nullable columns without a
# default are a catalog change only: existing rows are not rewritten. All three are NULL when
# the session is not leased.
_V2 = [
    """ALTER TABLE sessions
        ADD COLUMN lease_worker text,
        ADD COLUMN lease_acquired_at timestamptz,
        ADD COLUMN lease_expires_at timestamptz""",
]

# A client's idempotency key for a user turn (the HTTP API's ``Idempotency-Key``), kept with
# the turn so a re-post after a restart finds it. Unique per session; NULL for turns without.
_V3 = [
    "ALTER TABLE turns ADD COLUMN idempotency_key text",
    """CREATE UNIQUE INDEX turns_by_idempotency_key ON turns
        (account_id, session_id, idempotency_key) WHERE idempotency_key IS NOT NULL""",
]

# Recall (docs/recall.md), the SQLite store's layout: ``recall_text`` holds the words of every
# user turn (``spine``: a session's first; ``body``: the rest) and every reply, kept by triggers
# as they are written; ``recall_index`` the derived entries (rewritten whole by the writer);
# ``recall_identifiers`` their canonical identifiers. Every run of characters that are not
# letters or digits becomes one space before ``to_tsvector('simple', …)``, so PostgreSQL cuts
# words exactly as SQLite's FTS5 ``unicode61`` does (no URL, path or hyphen tokens of its own).
_WORDS = "to_tsvector('simple', regexp_replace(lower(coalesce({}, '')), '[^[:alnum:]]+', ' ', 'g'))"
_REPLY_TEXT = "(SELECT string_agg(b->>'text', ' ') FROM json_array_elements({}) b)"
_SPINE_OR_BODY = (
    "CASE WHEN EXISTS (SELECT 1 FROM turns o WHERE o.account_id = {t}.account_id "
    "AND o.session_id = {t}.session_id AND o.pos < {t}.pos) THEN 'body' ELSE 'spine' END"
)
_V4 = [
    """CREATE TABLE recall_text (
        pos bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id text NOT NULL,
        session_id text NOT NULL,
        turn_id text NOT NULL,
        part text NOT NULL,
        words tsvector NOT NULL
    )""",
    "CREATE INDEX recall_text_words ON recall_text USING gin (words)",
    "CREATE INDEX recall_text_by_session ON recall_text (account_id, session_id)",
    f"""CREATE FUNCTION recall_text_of_turn() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO recall_text (account_id, session_id, turn_id, part, words)
        VALUES (NEW.account_id, NEW.session_id, NEW.id, {_SPINE_OR_BODY.format(t="NEW")},
                {_WORDS.format("NEW.payload->>'text'")});
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER recall_text_of_turn AFTER INSERT ON turns
        FOR EACH ROW EXECUTE FUNCTION recall_text_of_turn()""",
    f"""CREATE FUNCTION recall_text_of_reply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO recall_text (account_id, session_id, turn_id, part, words)
        SELECT t.account_id, t.session_id, t.id, 'reply',
               {_WORDS.format(_REPLY_TEXT.format("NEW.blocks"))}
        FROM turns t WHERE t.account_id = NEW.account_id AND t.id = NEW.turn_id;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER recall_text_of_reply AFTER INSERT ON assistant_turns
        FOR EACH ROW EXECUTE FUNCTION recall_text_of_reply()""",
    # Turns and replies written before this migration get their rows now.
    f"""INSERT INTO recall_text (account_id, session_id, turn_id, part, words)
        SELECT account_id, session_id, id, {_SPINE_OR_BODY.format(t="turns")},
               {_WORDS.format("payload->>'text'")}
        FROM turns ORDER BY pos""",
    f"""INSERT INTO recall_text (account_id, session_id, turn_id, part, words)
        SELECT t.account_id, t.session_id, t.id, 'reply',
               {_WORDS.format(_REPLY_TEXT.format("a.blocks"))}
        FROM assistant_turns a JOIN turns t ON t.account_id = a.account_id AND t.id = a.turn_id
        ORDER BY t.pos""",
    # No foreign key to sessions: an entry may outlive its record (recall then names the
    # record it could not open instead of showing anything from the entry).
    """CREATE TABLE recall_index (
        pos bigint GENERATED ALWAYS AS IDENTITY,
        account_id text NOT NULL,
        session_id text NOT NULL,
        entry json NOT NULL,
        terms tsvector NOT NULL,
        indexed_through text,
        writer_version integer NOT NULL,
        written_at timestamptz NOT NULL,
        CONSTRAINT recall_index_pkey PRIMARY KEY (account_id, session_id)
    )""",
    "CREATE INDEX recall_index_terms ON recall_index USING gin (terms)",
    """CREATE TABLE recall_identifiers (
        account_id text NOT NULL,
        literal text NOT NULL,
        session_id text NOT NULL,
        namespace text NOT NULL,
        CONSTRAINT recall_identifiers_pkey PRIMARY KEY (account_id, literal, session_id)
    )""",
    "CREATE INDEX recall_identifiers_by_session ON recall_identifiers (account_id, session_id)",
]

# Failed attempts to finish a turn, counted per turn (recovery parks a turn that keeps failing
# the same way): a lifecycle counter beside the turn, never part of its payloads.
_V5 = [
    """CREATE TABLE turn_failures (
        account_id text NOT NULL,
        turn_id text NOT NULL,
        signature text NOT NULL,
        count integer NOT NULL,
        noted_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, turn_id),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    )""",
]

# Workers (docs/workers.md, ADR 0018), the SQLite store's layout. ``lease_epoch`` counts the
# holders a session's lease has had: a worker writes for a session only while the row still
# names it and the epoch it was granted (every session-scoped write checks both, holding the
# row ``FOR NO KEY UPDATE`` until it commits, so a takeover waits for it). ``lease_log`` is
# append-only: each grant, renewal and release. A column with a constant default is added
# without rewriting the table. The inbox is the ``turns`` table itself: a submitted turn is a
# turn in phase ``received``, announced on the ``turnframe_inbox`` channel.
_V6 = [
    "ALTER TABLE sessions ADD COLUMN lease_epoch bigint NOT NULL DEFAULT 0",
    """CREATE TABLE lease_log (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id text NOT NULL,
        session_id text NOT NULL,
        worker_id text NOT NULL,
        epoch bigint NOT NULL,
        event text NOT NULL,
        at timestamptz NOT NULL,
        expires_at timestamptz,
        previous_worker text
    )""",
    "CREATE INDEX lease_log_by_session ON lease_log (account_id, session_id, seq)",
    # Hot cases: a turn whose case is contended claims it before it seals; the claim lapses on
    # its own after a crash. A seal checks, in its transaction, that no other turn holds the
    # case or has commands on it admitted and not yet settled (found by this partial index).
    """CREATE TABLE case_claims (
        account_id text NOT NULL,
        case_id text NOT NULL,
        turn_id text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, case_id)
    )""",
    """CREATE INDEX journal_unsettled_by_case ON journal (account_id, case_id)
        WHERE status IN ('pending', 'executing')""",
]

#: (version, statements), in order. The latest version is the last one.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
    (5, _V5),
    (6, _V6),
]
LATEST_VERSION = MIGRATIONS[-1][0]

#: A plain lower-case identifier, so the name needs no quoting in ``search_path`` or DDL.
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def check_schema_name(schema: str) -> str:
    if not _SCHEMA_NAME.fullmatch(schema):
        raise ConfigError(
            f"PostgreSQL schema name {schema!r} is not a plain identifier",
            hint="use lower-case letters, digits and underscores, starting with a letter "
            "or underscore, at most 63 characters",
        )
    return schema


def location(schema: str) -> str:
    """How errors name the database: the schema only (a DSN may carry a password)."""
    return f"PostgreSQL schema {schema!r}"


async def current_version(conn: Conn, schema: str) -> int:
    """The schema's version; 0 for a schema (or database) turnframe never opened.

    Objects are created only when missing, so a role without CREATE rights can open a schema
    that is already up to date.
    """
    exists = await conn.fetchval("SELECT 1 FROM pg_namespace WHERE nspname = $1", schema)
    if exists is None:
        await conn.execute(f"CREATE SCHEMA {check_schema_name(schema)}")
    table = await conn.fetchval(
        "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'schema_version'", schema
    )
    if table is None:
        await conn.execute(
            "CREATE TABLE schema_version "
            "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL)"
        )
    found = await conn.fetchval("SELECT MAX(version) FROM schema_version")
    return 0 if found is None else int(found)


async def migrate(conn: Conn, *, schema: str, applied_at: datetime) -> int:
    """Apply every pending migration inside the caller's transaction; refuse a schema newer
    than this code. Returns the version the schema is at afterwards."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtext('turnframe.migrate'), hashtext($1))", schema
    )
    found = await current_version(conn, schema)
    if found > LATEST_VERSION:
        raise SchemaTooNew(location(schema), found, LATEST_VERSION)
    for version, statements in MIGRATIONS:
        if version <= found:
            continue
        for statement in statements:
            await conn.execute(statement)
        await conn.execute(
            "INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)",
            version,
            applied_at,
        )
    return LATEST_VERSION
