"""Persistence: the schema, its migrations, the unit of work and the database runner."""
