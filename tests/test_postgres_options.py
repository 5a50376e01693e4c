"""Store settings carried in the DSN (vector_index, ef_search), each agent's own HNSW
index, and full-text search scoped to the agent inside the GIN index, including on a
database written before that scoping existed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import psycopg
import pytest
from memory_helpers import postgres_schema_at_version
from psycopg.conninfo import conninfo_to_dict

from tiermem.cli import main
from tiermem.memory.embed.embeddings import HashingEmbedder
from tiermem.memory.errors import InvalidConfigError, InvalidInputError
from tiermem.memory.hierarchy import HierarchicalMemory
from tiermem.memory.store.postgres.backend import PostgresBackend
from tiermem.memory.store.postgres.connection import public_dsn
from tiermem.memory.store.postgres.dsn_checks import dsn_problem
from tiermem.memory.store.postgres.options import StoreOptions, libpq_dsn, split_dsn
from tiermem.memory.store.postgres.schema_search import agent_lexeme
from tiermem.memory.store.postgres.vectors import HNSW_EF_SEARCH
from tiermem.memory.store.records import Passage, RowFilter

DIM = 16


def _unit(seed: int, n: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _insert(backend: PostgresBackend, vectors: np.ndarray, word: str = "vector") -> None:
    with backend.transaction():
        backend.passages.insert_many([
            Passage(text=f"{word} {i}", created_at=1.0, embedding=v, embedder_id="test")
            for i, v in enumerate(vectors)])


def _agent_indexes(dsn: str, agent: int) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'tiermem' "
            "AND indexdef LIKE '%%USING hnsw%%' AND indexdef LIKE %s",
            (f"%agent_id = {agent})%",)).fetchall()]


def _hnsw_scans(dsn: str) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes "
                           "WHERE indexrelname LIKE '%%hnsw%%'").fetchone()
        return int(row[0]) if row else 0


def test_dsn_settings_are_taken_out_of_both_dsn_forms() -> None:
    assert split_dsn("postgresql://u@/db?host=/run/pg&vector_index=hnsw&ef_search=200") == (
        "postgresql://u@/db?host=/run/pg", StoreOptions(vector_index="hnsw", ef_search=200))
    assert split_dsn("postgresql://u@h/db?vector_index=hnsw") == (
        "postgresql://u@h/db", StoreOptions(vector_index="hnsw"))
    assert split_dsn("host=/run/pg dbname=db vector_index=hnsw ef_search=40") == (
        "host=/run/pg dbname=db", StoreOptions(vector_index="hnsw", ef_search=40))
    assert split_dsn("host='/run/a b' vector_index = 'exact'") == (
        "host='/run/a b'", StoreOptions())
    assert split_dsn("postgresql://u@h/db") == ("postgresql://u@h/db", StoreOptions())


@pytest.mark.parametrize("password", [
    "pa ef_search=40", "it's vector_index=hnsw", "back\\slash' ef_search=9", " ", "a\\",
    "vector_index=hnsw"])
def test_a_key_value_dsn_s_values_are_read_as_libpq_reads_them(password: str) -> None:
    from psycopg.conninfo import conninfo_to_dict

    escaped = password.replace("\\", "\\\\")
    quoted = "'" + escaped.replace("'", "\\'") + "'"
    unquoted = escaped.replace("'", "\\'").replace(" ", "\\ ")
    for written in (quoted, unquoted):
        dsn = f"host=h password={written} dbname=d"
        # Nothing of tiermem's: the DSN is passed on as given.
        assert split_dsn(dsn) == (dsn, StoreOptions())
        libpq, options = split_dsn(f"vector_index=hnsw {dsn} ef_search=40")
        assert options == StoreOptions(vector_index="hnsw", ef_search=40)
        assert conninfo_to_dict(libpq) == {"host": "h", "password": password, "dbname": "d"}
    # A blank after "=" is skipped: what follows is the password.
    assert split_dsn("host=h password= ef_search=40 dbname=d") == (
        "host=h password= ef_search=40 dbname=d", StoreOptions())


@pytest.mark.parametrize("dsn", [
    "postgresql://u@h/db?", "postgresql://u@h/db?&sslmode=disable",
    "postgresql://u@h/db?sslmode=disable&", "postgres://u@h/db?sslmode=disable&&port=5"])
def test_a_uri_without_tiermem_s_settings_is_passed_on_as_given(dsn: str) -> None:
    # Before: its empty query parts were dropped, so libpq was given another DSN (and
    # connected where, given this one, it refuses an empty query parameter).
    assert split_dsn(dsn) == (dsn, StoreOptions())
    assert libpq_dsn(dsn) == dsn


def test_a_uri_password_holding_a_question_mark_is_no_query_string() -> None:
    from psycopg.conninfo import conninfo_to_dict

    for password in ("p?ef_search=40", "p?x&vector_index=hnsw"):
        dsn = f"postgresql://u:{password}@h/db"
        assert split_dsn(dsn) == (dsn, StoreOptions())
        libpq, options = split_dsn(f"{dsn}?sslmode=disable&ef_search=40")
        assert options == StoreOptions(ef_search=40)
        assert conninfo_to_dict(libpq) == {
            "user": "u", "password": password, "host": "h", "dbname": "db",
            "sslmode": "disable"}


def test_a_uri_settings_percent_escapes_are_decoded_as_libpq_decodes_them() -> None:
    # Before: vector_index='%68nsw' was refused as unknown, and vector%5Findex left for
    # libpq, which decodes it and refuses vector_index as none of its own.
    assert split_dsn("postgresql://u@h/db?vector_index=%68nsw&application_name=%68i") == (
        "postgresql://u@h/db?application_name=%68i", StoreOptions(vector_index="hnsw"))
    assert split_dsn("postgresql://u@h/db?vector%5Findex=auto&ef_search=%34%30") == (
        "postgresql://u@h/db", StoreOptions(vector_index="auto", ef_search=40))
    with pytest.raises(InvalidInputError, match="vector_index='%zz'"):
        split_dsn("postgresql://u@h/db?vector_index=%zz")


def test_the_dsn_shown_in_messages_and_the_banner_holds_no_password() -> None:
    # The chat's banner prints it at every start ('memory: agent ... in DSN').
    for dsn in ("postgresql://ann:pw1@db.example/mem?sslpassword=keypw2",
                "host=db.example user=ann password=pw1 sslpassword=keypw2 dbname=mem"):
        shown = public_dsn(dsn)
        assert "pw1" not in shown and "keypw2" not in shown
        assert "db.example" in shown and "ann" in shown and "mem" in shown


@pytest.mark.parametrize("dsn, named", [
    ("postgresql://u@h/db?vector_index=fast", "vector_index='fast'"),
    ("host=h vector_index=ivf", "vector_index='ivf'"),
    ("postgresql://u@h/db?vector_index=hnsw&ef_search=0", "ef_search='0'"),
    ("host=h ef_search=lots", "ef_search='lots'"),
])
def test_a_bad_dsn_setting_is_refused_saying_what_is_allowed(dsn: str, named: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        split_dsn(dsn)
    assert named in str(caught.value) and ("hnsw" in str(caught.value)
                                           or "whole number" in str(caught.value))


@pytest.mark.parametrize("dsn, key", [
    ("postgresql://u@h/db?vector_index=hnsw&vector_index=exact", "vector_index"),
    ("host=h ef_search=10 ef_search=300", "ef_search"),
])
def test_a_dsn_setting_given_twice_with_two_values_is_refused(dsn: str, key: str) -> None:
    # Before: the last one won without a word.
    with pytest.raises(InvalidConfigError) as caught:
        split_dsn(dsn)
    assert caught.value.fields == (key,)
    assert f"gives {key} more than once" in str(caught.value)
    # The same value twice (in any case) says one thing.
    assert split_dsn("host=h vector_index=HNSW vector_index=hnsw ef_search=9 ef_search=9") == (
        "host=h", StoreOptions(vector_index="hnsw", ef_search=9))


@pytest.mark.parametrize("hnsw, index", [(True, "exact"), (True, "auto"), (False, "hnsw"),
                                         (False, "auto")])
def test_hnsw_beside_a_vector_index_it_contradicts_is_refused_before_connecting(
        hnsw: bool, index: str) -> None:
    # Before: hnsw won without a word. The host need not exist: nothing connects.
    with pytest.raises(InvalidConfigError) as caught:
        PostgresBackend("postgresql://u@db.invalid/mem", "ann", hnsw=hnsw, vector_index=index)
    assert caught.value.fields == ("hnsw", "vector_index")
    assert f"hnsw={hnsw} and vector_index={index!r} contradict" in str(caught.value)
    assert "pass vector_index alone" in str(caught.value)


@pytest.mark.parametrize("given", [{"hnsw": "false"}, {"hnsw": 0}, {"read_only": "false"}])
def test_a_yes_or_no_given_as_anything_but_a_bool_is_refused_before_connecting(
        given: dict[str, object]) -> None:
    # Before: "false" turned HNSW on (and read_only on), and 0 read as False; the host
    # need not exist: nothing connects.
    (name, value), = given.items()
    with pytest.raises(InvalidInputError) as caught:
        PostgresBackend("postgresql://u@db.invalid/mem", "ann", **given)  # type: ignore[arg-type]
    assert str(caught.value).startswith(f"{name} must be True or False, got {value!r}")
    if name == "hnsw":
        assert isinstance(caught.value, InvalidConfigError) and caught.value.fields == ("hnsw",)


def test_a_dsn_without_an_agent_is_refused_naming_the_argument(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Refused before any connection: the host need not exist.
    with pytest.raises(InvalidInputError) as caught:
        HierarchicalMemory(store="postgresql://u@db.invalid/mem")
    assert str(caught.value) == ("a PostgreSQL database holds many agents, so name this one: "
                                 "HierarchicalMemory(store=dsn, agent='NAME')")
    # Every command names an agent by default but migrate, which asks for --agent itself.
    assert main(["migrate", "--from", "postgresql://u@a.invalid/x",
                 "--to", "postgresql://u@b.invalid/y"]) == 2
    assert capsys.readouterr().err == (
        "tiermem: name the agent to move between the databases with --agent\n")


def test_vector_index_hnsw_in_the_dsn_searches_the_agents_own_index(postgres_dsn: str) -> None:
    big_vectors, small_vectors = _unit(1, 300), _unit(2, 5)
    big = PostgresBackend(f"{postgres_dsn} vector_index=hnsw ef_search=40", "big")
    small = PostgresBackend(f"{postgres_dsn} vector_index=hnsw", "small")
    try:
        _insert(big, big_vectors)
        _insert(small, small_vectors)
        big_index, small_index = big.vectors("passages", DIM), small.vectors("passages", DIM)
        assert (big_index.hnsw, big_index.ef_search) == (True, 40)
        assert (small_index.hnsw, small_index.ef_search) == (True, HNSW_EF_SEARCH)
        assert len(_agent_indexes(postgres_dsn, big.agent_id)) == 1
        assert len(_agent_indexes(postgres_dsn, small.agent_id)) == 1
        before = _hnsw_scans(postgres_dsn)
        # Beside a larger agent, the small one still gets its whole top k, in exact order.
        query = _unit(3, 1)[0]
        ids, sims = small_index.search(query, 10)
        exact = small_vectors @ query
        assert ids.tolist() == (np.argsort(-exact) + 1).tolist()
        assert sims == pytest.approx(np.sort(exact)[::-1], abs=1e-5)
        small.conn.execute("SELECT pg_stat_force_next_flush()")
        small.conn.execute("SELECT 1")
        assert _hnsw_scans(postgres_dsn) > before
    finally:
        big.close()
        small.close()


def test_exact_search_stays_the_default_and_an_argument_wins_over_the_dsn(
        postgres_dsn: str) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="plain") as memory:
        assert memory.store.hnsw is False  # type: ignore[attr-defined]
    uri_options = PostgresBackend(f"{postgres_dsn} vector_index=hnsw", "overridden", hnsw=False)
    try:
        assert uri_options.vectors("passages", DIM).hnsw is False
    finally:
        uri_options.close()
    assert _agent_indexes(postgres_dsn, uri_options.agent_id) == []


def test_hierarchical_memory_takes_the_setting_from_the_dsn(postgres_dsn: str) -> None:
    with HierarchicalMemory(store=f"{postgres_dsn} vector_index=hnsw", agent="ann") as memory:
        memory.archival_insert("the lighthouse keeper paints the railings")
        assert memory.store.hnsw is True  # type: ignore[attr-defined]
        assert memory.archival_search("lighthouse").total == 1
        agent = memory.store.agent_id  # type: ignore[attr-defined]
    assert any("tiermem.passages" in d for d in _agent_indexes(postgres_dsn, agent))


def test_text_search_uses_the_agent_lexeme_and_never_scores_it(postgres_dsn: str) -> None:
    backend = PostgresBackend(postgres_dsn, "tsv")
    try:
        with backend.transaction():
            backend.passages.insert_many([
                Passage(text=text, created_at=1.0, embedding=v, embedder_id="test")
                for text, v in zip(["tiermem agent", "an agent", "the agent"], _unit(4, 3),
                                   strict=True)])
        lexemes = backend.conn.execute(
            "SELECT tsvector_to_array(tsv) FROM tiermem.passages WHERE agent_id = %s",
            (backend.agent_id,)).fetchall()
        assert all(agent_lexeme(backend.agent_id) in row[0] for row in lexemes)
        # Words of the lexeme in a query match the rows' words, not the agent marker.
        scores = backend.lexical("passages").scores(["agent"])
        assert sorted(scores) == [1, 2, 3] and len(set(scores.values())) == 1
        assert backend.lexical("passages").scores([str(backend.agent_id)]) == {}
    finally:
        backend.close()


def test_a_database_of_the_first_schema_is_upgraded_with_its_rows(
        postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A database as the first release of the schema wrote it: its rows have no agent
    # lexeme and no document counts yet.
    postgres_schema_at_version(monkeypatch, 1)
    backend = PostgresBackend(postgres_dsn, "old")
    try:
        # Written in SQL, as that release wrote them: today's append reads columns
        # (forgotten_at) its schema lacks.
        rows = ([(1, f"the harbour crane {i}") for i in range(40)]
                + [(2, f"kelp {i}") for i in range(20)])
        with backend.transaction():
            for new_id, (turn, content) in enumerate(rows, start=1):
                backend.conn.execute(
                    "INSERT INTO tiermem.messages (agent_id, id, turn, role, content,"
                    " created_at) VALUES (%s, %s, %s, 'user', %s, 1.0)",
                    (backend.agent_id, new_id, turn, content))
    finally:
        backend.close()
    monkeypatch.undo()
    reopened = PostgresBackend(postgres_dsn, "old")
    try:
        lexical = reopened.lexical("messages")
        ranking = lexical.rank(["kelp"], RowFilter())
        assert ranking.total() == 20 and sorted(ranking.top(30)) == list(range(41, 61))
        newest = lexical.rank(["harbour"], RowFilter(), window=2)
        # Message 41 holds the harbour message before it as context (the upgrade fills it).
        assert newest.total() == 2 and sorted(newest.top(5)) == [40, 41]
        assert lexical.common_terms(["crane", "kelp"], rows=60) == {"crane"}
    finally:
        reopened.close()


def test_document_counts_follow_inserts_updates_and_deletes(postgres_dsn: str) -> None:
    backend = PostgresBackend(postgres_dsn, "counts")
    other = PostgresBackend(postgres_dsn, "other")
    try:
        _insert(other, _unit(5, 2), word="walrus")
        with backend.transaction():
            backend.passages.insert_many([
                Passage(text=text, created_at=1.0, embedding=v, embedder_id="test")
                for text, v in zip(["walrus tusks", "walrus walrus", "kelp forest"],
                                   _unit(6, 3), strict=True)])
        assert _counts(backend, "passages") == _true_counts(backend, "passages")
        assert _counts(backend, "passages")["walrus"] == 2
        with backend.transaction():
            backend.conn.execute("DELETE FROM tiermem.passages WHERE agent_id = %s AND id = 1",
                                 (backend.agent_id,))
        with backend.transaction():
            backend.conn.execute("UPDATE tiermem.passages SET text = 'kelp harvest' "
                                 "WHERE agent_id = %s AND id = 2", (backend.agent_id,))
        assert _counts(backend, "passages") == _true_counts(backend, "passages")
        # A word no row holds any more is gone from the counts, not left at zero.
        assert "walrus" not in _counts(backend, "passages")
        assert "tusk" not in _counts(backend, "passages")
        assert _counts(other, "passages")["walrus"] == 2
    finally:
        backend.close()
        other.close()


def _counts(backend: PostgresBackend, table: str) -> dict[str, int]:
    return {str(lexeme): int(n) for lexeme, n in backend.conn.execute(
        "SELECT lexeme, n_rows FROM tiermem.lexeme_stats WHERE agent_id = %s AND tab = %s",
        (backend.agent_id, table)).fetchall()}


def _true_counts(backend: PostgresBackend, table: str) -> dict[str, int]:
    return {str(lexeme): int(n) for lexeme, n in backend.conn.execute(
        f"SELECT l, count(*) FROM tiermem.{table}, unnest(tsvector_to_array(tsv)) l "
        f"WHERE agent_id = %s GROUP BY l", (backend.agent_id,)).fetchall()}


def test_erasing_and_forgetting_take_a_words_count_out_with_the_row(postgres_dsn: str) -> None:
    from tiermem.memory.embed.embeddings import HashingEmbedder

    with HierarchicalMemory(store=postgres_dsn, agent="counted-erasure",
                            embedder=HashingEmbedder()) as memory:
        memory.archival_insert("the vault phrase is zebrawombat")
        memory.archival_insert("the tea is oolong")
        forgotten = memory.archival_insert("the spare phrase is quokkalantern")
        backend = memory.store
        assert isinstance(backend, PostgresBackend)
        assert {"zebrawombat", "quokkalantern"} <= set(_counts(backend, "passages"))
        memory.forget("the spare phrase is quokkalantern")
        vacuums = _vacuums(backend, "lexeme_stats")
        assert "quokkalantern" not in _counts(backend, "passages")  # left the search side
        memory.erase(passages=[1, forgotten], reason="asked")
        counts = _counts(backend, "passages")
        assert "zebrawombat" not in counts and "oolong" in counts
        assert counts == _true_counts(backend, "passages")
        assert _vacuums(backend, "lexeme_stats") == vacuums + 1  # its dead rows held the word


def _vacuums(backend: PostgresBackend, table: str) -> int:
    backend.conn.execute("SELECT pg_stat_clear_snapshot()")
    row = backend.conn.execute(
        "SELECT vacuum_count FROM pg_stat_user_tables WHERE schemaname = 'tiermem' "
        "AND relname = %s", (table,)).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.parametrize("command, status, said", [
    (["diagnostics"], 0, "memory health"), (["config", "tau"], 0, "recency decay"),
    (["index"], 0, "nothing to build"),
    (["forget", "--embedder", "hashing", "no such text"], 1, "nothing forgotten")])
def test_the_commands_take_the_dsn_settings_for_an_existing_agent(
        postgres_dsn: str, command: list[str], status: int, said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    with HierarchicalMemory(store=postgres_dsn, agent="ann",
                            embedder=HashingEmbedder()) as memory:
        memory.archival_insert("the lighthouse keeper paints the railings")
    parts = conninfo_to_dict(postgres_dsn)
    uri = (f"postgresql://{parts['user']}@/{parts['dbname']}?host={parts['host']}"
           f"&vector_index=hnsw&ef_search=40")
    for dsn in (f"{postgres_dsn} vector_index=hnsw", uri):
        assert main([*command, "--agent", "ann", "--store", dsn]) == status
        captured = capsys.readouterr()
        assert said in captured.out
        # forget's hint after nothing matched names the chat with the same --store.
        hint = "tiermem: `tiermem chat --agent ann --store " if command[0] == "forget" else ""
        assert captured.err.startswith(hint) and (captured.err == "") == (hint == "")


@pytest.mark.parametrize("dsn, keys, rest", [
    ("host=h password='abc\\", ["host"], "password='abc\\"),
    ("password='\\", [], "password='\\"),
    ("host='h\\", [], "host='h\\")])
def test_a_quoted_value_ending_in_a_backslash_is_unclosed_as_libpq_reads_it(
        dsn: str, keys: list[str], rest: str) -> None:
    from tiermem.memory.store.postgres.options import dsn_pairs

    with pytest.raises(psycopg.ProgrammingError, match="unterminated quoted string"):
        conninfo_to_dict(dsn)
    # Before: the value was taken as finished, a pair like any other.
    pairs, left = dsn_pairs(dsn)
    assert ([key for key, _, _ in pairs], left) == (keys, rest)


@pytest.mark.parametrize("dsn", [
    "host=h password=''Hunter2Secret", "host=h password=Hunter2 Secret",
    "host=h password=Hunter2 Secret dbname=d", "host=h password=''Hunter2=Secret",
    "host=h sslpassword='Hunter2'Secret dbname=d", "host=h password=Hunter2 Secret=x",
    "host=h password = Hunter2\tSecret=x dbname=d",
    "postgresql://u@h/db?password=Hunter2&Secret=x"])
def test_no_part_of_a_password_libpq_ends_early_is_shown(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from tiermem.memory.store.postgres.dsn_checks import dsn_problem

    # Before: libpq's refusal named the text after where it ends the password as a key
    # (missing "=" after "Hunter2Secret"), and a DSN repeated showed "password=*** Secret".
    said = dsn_problem(dsn)
    assert said is not None and '"***"' in said, said
    assert "Hunter2" not in said and "Secret" not in said, said
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    for given in (dsn, dsn.replace("host=", "Host=")):  # Host=: no DSN, repeated whole
        assert main(["config", "--agent", "ada", "--store", given]) == 2
        err = capsys.readouterr().err
        assert "Hunter2" not in err and "Secret" not in err, err
    # A short one is hidden where the refusal names it.
    assert 'after "***"' in str(dsn_problem("host=h password=a b"))
    assert 'option "***"' in str(dsn_problem("host=h password=abcd Sec=x"))
    assert 'parameter: "***"' in str(dsn_problem("postgresql://h/d?password=abcd&Sec=x"))
    # A key libpq knows, mistyped in capitals, is named: it is no part of the password.
    assert 'option "Dbname"' in str(dsn_problem("host=h password=Hunter2 Dbname=d"))


@pytest.mark.parametrize("dsn, key", [
    ("postgresql://u@h/db?ef_search", "ef_search"),
    ("postgresql://u@h/db?vector_index&sslmode=disable", "vector_index"),
    ("postgresql://u@h/db?vector_index=hnsw&ef_search", "ef_search"),
    ("postgresql://u@h/db?ef_search=", "ef_search"), ("host=h ef_search=", "ef_search"),
    ("host=h vector_index='' dbname=d", "vector_index")])
def test_a_uri_setting_without_a_value_is_refused_as_needing_one(dsn: str, key: str) -> None:
    # Before: "ef_search='' ... must be a whole number", "vector_index='' ... is not known".
    with pytest.raises(InvalidInputError) as caught:
        split_dsn(dsn)
    said = str(caught.value)
    assert said.startswith(f"{key} in the PostgreSQL DSN has no value; give it one, as "
                           f"{key}="), said
    assert "whole number" not in said and "not known" not in said


@pytest.mark.parametrize("dsn, given", [
    ("postgresql://u@db.invalid/mem?vector_index=exact&ef_search=40", {}),
    ("host=db.invalid dbname=mem ef_search=40 vector_index=EXACT", {}),
    ("postgresql://u@db.invalid/mem", {"vector_index": "exact", "ef_search": 40}),
    ("postgresql://u@db.invalid/mem", {"hnsw": False, "ef_search": 40})])
def test_ef_search_beside_exact_search_is_refused_before_connecting(
        dsn: str, given: dict[str, object]) -> None:
    # Before: the agent was opened searching exactly, ef_search ignored without a word. The
    # host need not exist: nothing connects.
    with pytest.raises(InvalidConfigError) as caught:
        PostgresBackend(dsn, "ann", **given)  # type: ignore[arg-type]
    assert caught.value.fields == ("ef_search", "vector_index")
    assert "ef_search=40 and vector_index='exact'" in str(caught.value)
    assert "give vector_index as hnsw or auto with ef_search" in str(caught.value)
    # Apart, an argument still wins over the DSN, and ef_search awaits hnsw from an argument.
    assert split_dsn("host=h ef_search=40") == ("host=h", StoreOptions(ef_search=40))


@pytest.mark.parametrize("dsn, given, named", [
    ("postgresql://u@db.invalid/mem?ef_search=40", {"vector_index": "exact"},
     "vector_index='exact'"),
    ("host=db.invalid dbname=mem ef_search=40", {"vector_index": "EXACT"}, "vector_index='EXACT'"),
    ("host=db.invalid dbname=mem ef_search=40", {"hnsw": False}, "hnsw=False")])
def test_a_dsn_s_ef_search_beside_an_exact_argument_is_refused_before_connecting(
        dsn: str, given: dict[str, object], named: str) -> None:
    # Before: opened searching exactly, the DSN's ef_search dropped without a word (the
    # DSN's vector_index=exact beside an ef_search argument was refused). Nothing connects.
    with pytest.raises(InvalidConfigError) as caught:
        PostgresBackend(dsn, "ann", **given)  # type: ignore[arg-type]
    assert caught.value.fields == ("ef_search", "vector_index")
    assert str(caught.value).startswith(
        f"ef_search=40 in the PostgreSQL DSN and the argument {named} contradict each other")
    assert str(caught.value).endswith("give vector_index as hnsw or auto with ef_search, or "
                                      "leave ef_search out of the DSN")


@pytest.mark.parametrize("dsn, given, said", [
    ("postgresql://u@db.invalid/mem", {"ef_search": 40}, "ef_search=40 is"),
    ("postgresql://u@db.invalid/mem?ef_search=40", {}, "ef_search=40 in the PostgreSQL DSN is"),
    ("host=db.invalid dbname=mem ef_search=40", {}, "ef_search=40 in the PostgreSQL DSN is")])
def test_ef_search_with_no_index_named_is_refused_as_postgres_searches_exactly(
        dsn: str, given: dict[str, int], said: str) -> None:
    # Before: opened with PostgreSQL's default, exact search, the ef_search never used and
    # nothing said; on SQLite, whose default is auto, the same ef_search is used past
    # 200,000 vectors. Nothing connects.
    for opening in (lambda: PostgresBackend(dsn, "ann", **given),
                    lambda: HierarchicalMemory(store=dsn, agent="ann", **given)):
        with pytest.raises(InvalidConfigError) as caught:
            opening()
        assert caught.value.fields == ("ef_search", "vector_index")
        assert str(caught.value).startswith(
            f"{said} for HNSW search, and PostgreSQL compares every vector unless "
            f"vector_index says otherwise; give vector_index as hnsw or auto with ef_search")
    if not given:  # a command's DSN, refused before connecting, as a usage error
        assert dsn_problem(dsn) == str(caught.value)


def test_ef_search_both_as_an_argument_and_in_the_dsn_with_no_index_names_both() -> None:
    # Before: "ef_search=40 is for HNSW search ... or leave ef_search out", naming the
    # argument alone: left out, the DSN's ef_search=50 was refused in its turn.
    dsn = "postgresql://u@db.invalid/mem?ef_search=50"
    for opening in (lambda: PostgresBackend(dsn, "ann", ef_search=40),
                    lambda: HierarchicalMemory(store=dsn, agent="ann", ef_search=40)):
        with pytest.raises(InvalidConfigError) as caught:
            opening()
        assert caught.value.fields == ("ef_search", "vector_index")
        assert str(caught.value) == (
            "ef_search=40 and ef_search=50 in the PostgreSQL DSN are for HNSW search, and "
            "PostgreSQL compares every vector unless vector_index says otherwise; give "
            "vector_index as hnsw or auto with ef_search, or leave both out (the argument "
            "and the DSN's)")


@pytest.mark.parametrize("given", ["Host=h password=Hunter2 Secret=x",
                                   "HOST=h?password=Hunter2&Secret=x"])
def test_a_sqlite_only_install_hides_what_follows_a_password_too(
        given: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from tiermem.memory.store import location_text as opening

    def known_anew() -> None:
        if hasattr(opening, "_known_keys"):
            opening._known_keys.cache_clear()

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "psycopg.pq", None)
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    known_anew()
    try:
        assert main(["config", "--agent", "ada", "--store", given]) == 2
    finally:
        known_anew()
    err = capsys.readouterr().err
    # Before: without psycopg every key passed for one libpq knows: "password=*** Secret=x".
    assert "Hunter2" not in err and "Secret" not in err, err


def test_ef_search_given_beside_a_dsn_s_exact_vector_index_is_refused() -> None:
    # Before: accepted, and ef_search ignored (refused before anything connects).
    with pytest.raises(InvalidConfigError, match="ef_search=40 and vector_index='exact' in "
                                                 "the PostgreSQL DSN contradict each other"):
        PostgresBackend("postgresql://u@h/db?vector_index=exact", "ann", ef_search=40)
