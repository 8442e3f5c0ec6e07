"""The SQLite schema as numbered migrations, applied in order when a store opens.

Every table is keyed by ``(account_id, id)``: another account's id is simply a different row, so
account scoping holds by construction and foreign keys keep children inside their account. Lists
come back in insertion order (``rowid``): time-ordered ids share a millisecond prefix and are not
strictly monotonic within one.
A migration is a list of statements run in one transaction with its ``schema_version`` row. Add a
migration by appending to :data:`MIGRATIONS`; never edit one that shipped.
"""

from __future__ import annotations

import sqlite3

from turnframe.stores.errors import SchemaTooNew, StoreError

_V1 = [
    """CREATE TABLE sessions (
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        workflow TEXT NOT NULL,
        created_at TEXT NOT NULL,
        thread_context TEXT NOT NULL,
        last_turn_id TEXT,
        PRIMARY KEY (account_id, id)
    )""",
    """CREATE TABLE turns (
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        phase TEXT NOT NULL,
        plan TEXT,
        reduction TEXT,
        created_at TEXT NOT NULL,
        phase_changed_at TEXT NOT NULL,
        PRIMARY KEY (account_id, id),
        FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, id)
    )""",
    "CREATE INDEX turns_by_session ON turns (account_id, session_id, id)",
    "CREATE INDEX turns_unfinished ON turns (phase) WHERE phase NOT IN ('delivered', 'failed')",
    """CREATE TABLE interactions (
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        case_id TEXT,
        blocking INTEGER NOT NULL,
        status TEXT NOT NULL,
        payload TEXT NOT NULL,
        resolution TEXT,
        created_at TEXT NOT NULL,
        resolved_at TEXT,
        PRIMARY KEY (account_id, id),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX interactions_by_turn ON interactions (account_id, turn_id)",
    # At most one open blocking card per case: the database refuses the second.
    """CREATE UNIQUE INDEX one_open_blocking_card_per_case ON interactions (account_id, case_id)
        WHERE blocking = 1 AND status = 'open' AND case_id IS NOT NULL""",
    """CREATE TABLE journal (
        account_id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        command_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        case_id TEXT,
        expected_revision INTEGER,
        content_digest TEXT NOT NULL,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        outcome TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (account_id, idempotency_key),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX journal_by_turn ON journal (account_id, turn_id)",
    """CREATE TABLE cases (
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        workflow TEXT NOT NULL,
        label TEXT NOT NULL,
        state TEXT NOT NULL,
        revision INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (account_id, id)
    )""",
    "CREATE INDEX cases_by_label ON cases (account_id, workflow, label)",
    # AUTOINCREMENT: the global sequence never reuses a number, even after the newest row goes.
    """CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        payload TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        command_id TEXT,
        recorded_at TEXT NOT NULL,
        FOREIGN KEY (account_id, case_id) REFERENCES cases (account_id, id),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX events_by_case ON events (account_id, case_id, seq)",
    "CREATE INDEX events_by_turn ON events (account_id, turn_id, seq)",
    """CREATE TABLE outbox (
        account_id TEXT NOT NULL,
        id TEXT NOT NULL,
        idempotency_key TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        case_id TEXT,
        command_id TEXT,
        payload TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        available_at TEXT NOT NULL,
        claim_token TEXT,
        lease_expires_at TEXT,
        outcome TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (account_id, id),
        UNIQUE (account_id, idempotency_key),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    )""",
    "CREATE INDEX outbox_by_status ON outbox (status, available_at)",
    "CREATE INDEX outbox_by_turn ON outbox (account_id, turn_id)",
    """CREATE TABLE replay_records (
        account_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (account_id, turn_id),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    ) WITHOUT ROWID""",
    """CREATE TABLE assistant_turns (
        account_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        blocks TEXT NOT NULL,
        meta TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (account_id, turn_id),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    ) WITHOUT ROWID""",
]

# Session leases: which worker serves a live session, until when. Nullable columns added
# without a default, so existing rows are not rewritten; all three are NULL when not leased.
_V2 = [
    "ALTER TABLE sessions ADD COLUMN lease_worker TEXT",
    "ALTER TABLE sessions ADD COLUMN lease_acquired_at TEXT",
    "ALTER TABLE sessions ADD COLUMN lease_expires_at TEXT",
]

# A client's idempotency key for a user turn (the HTTP API's ``Idempotency-Key``), kept with
# the turn so a re-post after a restart finds it. Unique per session; NULL for turns without.
_V3 = [
    "ALTER TABLE turns ADD COLUMN idempotency_key TEXT",
    """CREATE UNIQUE INDEX turns_by_idempotency_key ON turns
        (account_id, session_id, idempotency_key) WHERE idempotency_key IS NOT NULL""",
]

# Recall (docs/recall.md). ``recall_text`` is the full-text row of every user turn (``spine``:
# the session's first; ``body``: the rest) and every reply, kept by triggers as turns and replies
# are written, so a session is findable before any index entry exists. ``recall_index`` holds
# the derived entries (rewritten whole by the writer) with their own full-text rows;
# ``recall_identifiers`` their canonical identifiers. Both engines cut words the same way
# (letters and digits, lower-cased, diacritics kept), so queries match alike on both stores.
_RECALL_TOKENIZER = "tokenize = 'unicode61 remove_diacritics 0'"
_SPINE_OR_BODY = (
    "CASE WHEN EXISTS (SELECT 1 FROM turns o WHERE o.account_id = {t}.account_id "
    "AND o.session_id = {t}.session_id AND o.rowid < {t}.rowid) THEN 'body' ELSE 'spine' END"
)
_REPLY_WORDS = (
    "coalesce((SELECT group_concat(json_extract(b.value, '$.text'), ' ') "
    "FROM json_each({a}.blocks) b), '')"
)
_V4 = [
    """CREATE TABLE recall_text (
        id INTEGER PRIMARY KEY,
        account_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        part TEXT NOT NULL
    )""",
    "CREATE INDEX recall_text_by_session ON recall_text (account_id, session_id)",
    f"CREATE VIRTUAL TABLE recall_text_fts USING fts5(words, content = '', {_RECALL_TOKENIZER})",
    f"""CREATE TRIGGER recall_text_of_turn AFTER INSERT ON turns BEGIN
        INSERT INTO recall_text (account_id, session_id, turn_id, part)
        VALUES (new.account_id, new.session_id, new.id, {_SPINE_OR_BODY.format(t="new")});
        INSERT INTO recall_text_fts (rowid, words)
        VALUES (last_insert_rowid(), coalesce(json_extract(new.payload, '$.text'), ''));
    END""",
    f"""CREATE TRIGGER recall_text_of_reply AFTER INSERT ON assistant_turns BEGIN
        INSERT INTO recall_text (account_id, session_id, turn_id, part)
        SELECT t.account_id, t.session_id, t.id, 'reply' FROM turns t
        WHERE t.account_id = new.account_id AND t.id = new.turn_id;
        INSERT INTO recall_text_fts (rowid, words)
        VALUES (last_insert_rowid(), {_REPLY_WORDS.format(a="new")});
    END""",
    # Turns and replies written before this migration get their rows now.
    f"""INSERT INTO recall_text (account_id, session_id, turn_id, part)
        SELECT account_id, session_id, id, {_SPINE_OR_BODY.format(t="turns")} FROM turns
        ORDER BY rowid""",
    """INSERT INTO recall_text (account_id, session_id, turn_id, part)
        SELECT t.account_id, t.session_id, t.id, 'reply' FROM assistant_turns a
        JOIN turns t ON t.account_id = a.account_id AND t.id = a.turn_id ORDER BY t.rowid""",
    f"""INSERT INTO recall_text_fts (rowid, words)
        SELECT r.id, CASE WHEN r.part = 'reply' THEN {_REPLY_WORDS.format(a="a")}
            ELSE coalesce(json_extract(t.payload, '$.text'), '') END
        FROM recall_text r JOIN turns t ON t.account_id = r.account_id AND t.id = r.turn_id
        LEFT JOIN assistant_turns a ON a.account_id = r.account_id AND a.turn_id = r.turn_id""",
    # No foreign key to sessions: an entry may outlive its record (recall then names the
    # record it could not open instead of showing anything from the entry).
    """CREATE TABLE recall_index (
        id INTEGER PRIMARY KEY,
        account_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        entry TEXT NOT NULL,
        terms TEXT NOT NULL,
        indexed_through TEXT,
        writer_version INTEGER NOT NULL,
        written_at TEXT NOT NULL,
        UNIQUE (account_id, session_id)
    )""",
    f"""CREATE VIRTUAL TABLE recall_index_fts USING fts5(
        terms, content = 'recall_index', content_rowid = 'id', {_RECALL_TOKENIZER})""",
    """CREATE TRIGGER recall_index_added AFTER INSERT ON recall_index BEGIN
        INSERT INTO recall_index_fts (rowid, terms) VALUES (new.id, new.terms);
    END""",
    """CREATE TRIGGER recall_index_removed AFTER DELETE ON recall_index BEGIN
        INSERT INTO recall_index_fts (recall_index_fts, rowid, terms)
        VALUES ('delete', old.id, old.terms);
    END""",
    """CREATE TRIGGER recall_index_rewritten AFTER UPDATE ON recall_index BEGIN
        INSERT INTO recall_index_fts (recall_index_fts, rowid, terms)
        VALUES ('delete', old.id, old.terms);
        INSERT INTO recall_index_fts (rowid, terms) VALUES (new.id, new.terms);
    END""",
    """CREATE TABLE recall_identifiers (
        account_id TEXT NOT NULL,
        literal TEXT NOT NULL,
        session_id TEXT NOT NULL,
        namespace TEXT NOT NULL,
        PRIMARY KEY (account_id, literal, session_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX recall_identifiers_by_session ON recall_identifiers (account_id, session_id)",
]

# Failed attempts to finish a turn, counted per turn (recovery parks a turn that keeps failing
# the same way): a lifecycle counter beside the turn, never part of its payloads.
_V5 = [
    """CREATE TABLE turn_failures (
        account_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        signature TEXT NOT NULL,
        count INTEGER NOT NULL,
        noted_at TEXT NOT NULL,
        PRIMARY KEY (account_id, turn_id),
        FOREIGN KEY (account_id, turn_id) REFERENCES turns (account_id, id)
    )""",
]

# Workers (docs/workers.md, ADR 0018). ``lease_epoch`` counts the holders a session's lease has
# had: a worker writes for a session only while the row still names it and the epoch it was
# granted (every session-scoped write checks both in its own transaction). ``lease_log`` is
# append-only: each grant, renewal and release, so an operator (and the acceptance test) can
# tell from the store alone that a session was served by one worker at a time. The inbox is the
# ``turns`` table itself: a submitted turn is a turn in phase ``received``.
_V6 = [
    "ALTER TABLE sessions ADD COLUMN lease_epoch INTEGER NOT NULL DEFAULT 0",
    """CREATE TABLE lease_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        worker_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        event TEXT NOT NULL,
        at TEXT NOT NULL,
        expires_at TEXT,
        previous_worker TEXT
    )""",
    "CREATE INDEX lease_log_by_session ON lease_log (account_id, session_id, seq)",
    # Hot cases: a turn whose case is contended claims it before it seals; the claim lapses on
    # its own after a crash. A seal checks, in its transaction, that no other turn holds the
    # case or has commands on it admitted and not yet settled (found by this partial index).
    """CREATE TABLE case_claims (
        account_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        PRIMARY KEY (account_id, case_id)
    ) WITHOUT ROWID""",
    """CREATE INDEX journal_unsettled_by_case ON journal (account_id, case_id)
        WHERE status IN ('pending', 'executing')""",
]

# Recall's full-text rows are indexed in batches (ADR 0025): the triggers still write a turn's or
# a reply's ``recall_text`` row in the transaction that writes it, but not its FTS5 row, whose
# segment flush cost ~9 WAL pages per turn. ``recall_text_indexed.through`` is the highest
# ``recall_text`` id that is in ``recall_text_fts``; the rows above it (the backlog) are
# indexed together, in one transaction with the mark, every so many writes and before any
# full-text query (``ops.recall.index_backlog``). Everything written until now is indexed.
_V7 = [
    "DROP TRIGGER recall_text_of_turn",
    "DROP TRIGGER recall_text_of_reply",
    f"""CREATE TRIGGER recall_text_of_turn AFTER INSERT ON turns BEGIN
        INSERT INTO recall_text (account_id, session_id, turn_id, part)
        VALUES (new.account_id, new.session_id, new.id, {_SPINE_OR_BODY.format(t="new")});
    END""",
    """CREATE TRIGGER recall_text_of_reply AFTER INSERT ON assistant_turns BEGIN
        INSERT INTO recall_text (account_id, session_id, turn_id, part)
        SELECT t.account_id, t.session_id, t.id, 'reply' FROM turns t
        WHERE t.account_id = new.account_id AND t.id = new.turn_id;
    END""",
    """CREATE TABLE recall_text_indexed (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        through INTEGER NOT NULL
    )""",
    "INSERT INTO recall_text_indexed (one, through) "
    "SELECT 1, coalesce(MAX(id), 0) FROM recall_text",
]

#: (version, statements), in order. The latest version is the last one.
MIGRATIONS: list[tuple[int, list[str]]] = [
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
    (5, _V5),
    (6, _V6),
    (7, _V7),
]
LATEST_VERSION = MIGRATIONS[-1][0]


#: ``INSERT … ON CONFLICT DO NOTHING`` needs SQLite 3.24 (2018).
MINIMUM_SQLITE = (3, 24, 0)


def configure(conn: sqlite3.Connection, *, busy_timeout_ms: int) -> None:
    """Per-connection settings: WAL, synchronous=NORMAL, foreign keys, the lock wait."""
    if sqlite3.sqlite_version_info < MINIMUM_SQLITE:
        raise StoreError(
            f"this Python links SQLite {sqlite3.sqlite_version}; turnframe needs 3.24 or newer",
            hint="use a Python built against a newer SQLite",
        )
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")


def current_version(conn: sqlite3.Connection) -> int:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT)"
    )
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0]) if row[0] is not None else 0


def migrate(conn: sqlite3.Connection, *, location: str, applied_at: str) -> int:
    """Apply every pending migration; refuse a database newer than this code. Returns the
    version the database is at afterwards."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = current_version(conn)
        if found > LATEST_VERSION:
            raise SchemaTooNew(location, found, LATEST_VERSION)
        for version, statements in MIGRATIONS:
            if version <= found:
                continue
            for statement in statements:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                (version, applied_at),
            )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return LATEST_VERSION
