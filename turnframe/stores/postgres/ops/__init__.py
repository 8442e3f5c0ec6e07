"""The SQL of the PostgreSQL store: async transaction steps over one asyncpg connection.

Each function is one step of a transaction; ``turnframe.stores.postgres.store`` composes them
inside one ``tx.write`` (or ``tx.read``). They mirror ``turnframe.stores.sqlite.ops`` step for
step, so the two stores answer alike. Instants arrive as arguments (``now``): no step reads a
clock. Inserts return their row (``RETURNING``), so a record always shows what was stored.
"""
