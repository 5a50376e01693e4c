"""The PostgreSQL + pgvector store, and a local PostgreSQL server to run it on."""
