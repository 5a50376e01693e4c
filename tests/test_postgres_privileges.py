"""A PostgreSQL role that may not use tiermem's tables, and a pgvector the connection does not
find, are refused with what to do: never a psycopg traceback."""

from __future__ import annotations

import re
import shlex
import uuid
from collections.abc import Iterator
from urllib.parse import quote, urlencode

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from test_postgres_upgrade import _set_back

from tiermem.bench.postgres_only import fresh_database
from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import StoreError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.connection import stored_agents
from tiermem.memory.store.postgres.schema import SCHEMA_VERSION


@pytest.fixture
def weak_role(postgres_dsn: str) -> Iterator[str]:
    """The name of a new login role with no privilege on anything tiermem made."""
    name = f"weak_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        try:
            admin.execute(f"CREATE ROLE {name} LOGIN")
        except psycopg.errors.InsufficientPrivilege:
            pytest.skip("the test server's user may not create roles")
    yield name
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"DROP OWNED BY {name}")
        admin.execute(f"DROP ROLE {name}")


def _open(dsn: str, read_only: bool) -> HierarchicalMemory:
    return HierarchicalMemory(store=dsn, agent="bob", embedder=HashingEmbedder(),
                              read_only=read_only)


def test_a_role_without_privileges_is_told_what_to_grant(
        postgres_dsn: str, weak_role: str, capsys: pytest.CaptureFixture[str]) -> None:
    with _open(postgres_dsn, read_only=False) as memory:
        memory.add_fact("the staging cluster runs in eu-west-1", "durable")
    weak = make_conninfo(postgres_dsn, user=weak_role)

    for read_only in (True, False):
        with pytest.raises(StoreError, match=r"lacks a privilege.*USAGE ON SCHEMA tiermem"):
            _open(weak, read_only)
    with pytest.raises(StoreError, match="lacks a privilege"):
        stored_agents(weak)
    assert main(["drop-agent", "--agent", "bob", "--store", weak, "--yes"]) == 1
    said = capsys.readouterr().err
    assert "lacks a privilege" in said and "Traceback" not in said

    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"GRANT USAGE ON SCHEMA tiermem TO {weak_role}")
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA tiermem TO {weak_role}")
    with _open(weak, read_only=True) as reader:  # reading is all it was granted
        assert [f.text for f in reader.facts()] == ["the staging cluster runs in eu-west-1"]
    with pytest.raises(StoreError, match=r"lacks a privilege.*INSERT, UPDATE, DELETE"):
        _open(weak, read_only=False)
    with _open(postgres_dsn, read_only=True) as memory:  # nothing it tried changed a thing
        assert [f.text for f in memory.facts()] == ["the staging cluster runs in eu-west-1"]


def test_pgvector_outside_the_search_path_is_named(postgres_server: str) -> None:
    with fresh_database(postgres_server) as dsn:
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("CREATE SCHEMA ext")
            admin.execute("CREATE EXTENSION vector SCHEMA ext")
        with pytest.raises(StoreError, match=r"search_path.*ALTER EXTENSION vector SET SCHEMA"):
            _open(dsn, read_only=False)
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute("ALTER EXTENSION vector SET SCHEMA public")
        with _open(dsn, read_only=False) as memory:  # the advice given works
            memory.add_fact("the staging cluster runs in eu-west-1", "durable")
            assert len(memory.facts()) == 1


def test_an_upgrade_by_a_role_that_only_writes_rows_names_the_owner_to_run_it(
        postgres_dsn: str, weak_role: str, capsys: pytest.CaptureFixture[str]) -> None:
    with _open(postgres_dsn, read_only=False) as memory:
        memory.add_fact("the staging cluster runs in eu-west-1", "durable")
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        owner = admin.execute("SELECT current_user").fetchone()[0]  # type: ignore[index]
        admin.execute(f"GRANT USAGE ON SCHEMA tiermem TO {weak_role}")
        admin.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA tiermem"
                      f" TO {weak_role}")
        admin.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA tiermem TO {weak_role}")
        database = admin.info.dbname
    # As a tiermem two versions older left it: the newest migration only rewrites rows, which
    # the role may do, and the one before it (times in seconds) alters tables, which it may not.
    _set_back(postgres_dsn)
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute("DELETE FROM tiermem.migrations WHERE version = %s", (SCHEMA_VERSION - 1,))
    weak = make_conninfo(postgres_dsn, user=weak_role)
    refused = (rf"cannot upgrade the schema .* from {SCHEMA_VERSION - 2} to {SCHEMA_VERSION}"
               rf".*belong to role {owner}, not {weak_role}: run `tiermem upgrade --agent bob"
               rf" --store [^`]*` once")
    with pytest.raises(StoreError, match=refused):  # refused as it creates the schema
        _open(weak, read_only=False)
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f'GRANT CREATE ON DATABASE "{database}" TO {weak_role}')
        admin.execute(f"GRANT CREATE ON SCHEMA tiermem TO {weak_role}")
    with pytest.raises(StoreError, match=refused) as info:  # refused as it alters them
        _open(weak, read_only=False)
    assert f"{SCHEMA_VERSION}: must be owner of table" in str(info.value)
    assert main(["upgrade", "--agent", "bob", "--store", weak]) == 1
    advised = re.search(r"run `(tiermem upgrade [^`]*)` once", capsys.readouterr().err)
    assert advised is not None

    command = shlex.split(advised[1])  # as written: the agent named, connecting as the owner
    assert command[command.index("--agent") + 1] == "bob"
    assert conninfo_to_dict(command[command.index("--store") + 1])["user"] == owner
    assert main(command[1:]) == 0
    with _open(weak, read_only=False) as memory:  # the advice given works
        memory.add_fact("the database runs postgres 16", "durable")
        assert sorted(f.text for f in memory.facts()) == [
            "the database runs postgres 16", "the staging cluster runs in eu-west-1"]


#: A password as a user's DSN may hold it: a "/" is written "%2F" in a URL.
_PASSWORD = "Weak/Secret-42"


def _with_password(dsn: str, role: str, form: str) -> str:
    """``dsn`` connecting as ``role`` with ``_PASSWORD``, as a URL or as key=value pairs."""
    if form == "key=value":
        return make_conninfo(dsn, user=role, password=_PASSWORD)
    parts = conninfo_to_dict(dsn)
    query = urlencode({k: v for k, v in parts.items()
                       if k not in ("user", "password", "dbname") and v is not None})
    return (f"postgresql://{role}:{quote(_PASSWORD, safe='')}@/{quote(parts['dbname'])}"
            f"?{query}")


@pytest.mark.parametrize("form", ["url", "key=value"])
def test_the_advice_to_run_the_upgrade_as_the_owner_never_shows_the_password(
        postgres_dsn: str, weak_role: str, capsys: pytest.CaptureFixture[str],
        form: str) -> None:
    # The advice gives the DSN back with the owner as its user: never with the password
    # of the login it was given, in either form a DSN is written.
    with _open(postgres_dsn, read_only=False) as memory:
        memory.add_fact("the staging cluster runs in eu-west-1", "durable")
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"ALTER ROLE {weak_role} PASSWORD '{_PASSWORD}'")
        admin.execute(f"GRANT USAGE ON SCHEMA tiermem TO {weak_role}")
        admin.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA tiermem"
                      f" TO {weak_role}")
    _set_back(postgres_dsn)  # as an older tiermem left it
    weak = _with_password(postgres_dsn, weak_role, form)
    with psycopg.connect(weak) as conn:  # the DSN is a working one, the password in it
        assert conn.info.user == weak_role and conn.info.password == _PASSWORD
    with pytest.raises(StoreError, match="only their owner may do") as info:
        _open(weak, read_only=False)
    assert main(["upgrade", "--agent", "bob", "--store", weak]) == 1
    said = f"{info.value}\n{capsys.readouterr().err}"
    assert "only their owner may do" in said.split("\n", 1)[1], said
    for shown in (_PASSWORD, quote(_PASSWORD, safe="")):
        assert shown not in said, said
    advised = re.search(r"run `(tiermem upgrade [^`]*)` once", said)
    assert advised is not None, said
    command = shlex.split(advised[1])
    assert "password" not in conninfo_to_dict(command[command.index("--store") + 1])
