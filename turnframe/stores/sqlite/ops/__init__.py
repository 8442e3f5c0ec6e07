"""The SQL of the SQLite store: synchronous transaction bodies over a ``sqlite3.Connection``.

Each function is one step of a transaction; ``turnframe.stores.sqlite.store`` composes them and
runs the composition in one hop on the connection's thread. Instants arrive pre-encoded (``now``)
so the bodies read no clock.
"""
