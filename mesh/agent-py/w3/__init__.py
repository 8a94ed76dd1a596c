"""W3: the Python mesh worker on a2a-sdk with a DatabaseTaskStore on SQLite."""
