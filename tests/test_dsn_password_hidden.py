"""No part of a DSN's password in any message about a DSN libpq cannot read: its own
refusal, a usage error repeating the argument, or a location that is no DSN at all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tiermem.cli as cli
from tiermem.memory.store.location_text import without_password
from tiermem.memory.store.postgres.dsn_checks import dsn_problem

#: Malformed DSNs, each holding the password Hunter2Secret (or Hunter2 Secret) somewhere.
MALFORMED = [
    "host=127.0.0.1 password=Hunter2Secret user=x stray",
    "host=127.0.0.1 password='Hunter2Secret' user=x stray",
    "host=127.0.0.1 password = 'Hunter2Secret' user=x stray",
    "host=127.0.0.1 password=Hunter2Secret user='x' stray",
    "host=127.0.0.1 password=Hunter2Secret user=x 'stray'",
    "host=127.0.0.1 password=Hunter2Secret user=x stray='",
    "host=127.0.0.1 password='Hunter2Secret' user='x y' stray",
    "host=127.0.0.1 password='Hunter2 Secret' user=x stray",
    "host=127.0.0.1 password=Hunter2\\ Secret user=x stray",
    "host=127.0.0.1 password=Hunter2'Secret user=x stray",
    "host=127.0.0.1 password=Hunter2\\'Secret user=x stray",
    "host=127.0.0.1 password='Hunter2\\'Secret' user=x stray",
    "host=127.0.0.1 sslpassword=Hunter2Secret user=x stray",
    "host=127.0.0.1 PASSWORD=Hunter2Secret user=x stray",
    "host=127.0.0.1 password= Hunter2Secret user=x stray",
    "host=127.0.0.1 password='Hunter2Secret'user=x stray",
    "host=127.0.0.1 password=Hunter2=Secret user=x stray",
    "password=Hunter2Secret user=x stray",
    "stray host=h password=Hunter2\\ Secret",
    "stray password=Hunter2'Secret user=x",
    "x password=Hunter2\\'Secret stray",
    "'host=h' password='Hunter2 Secret'",
    "postgresql://u@h/db?password=Hunter2Secret&user=x stray",
]
PARTS = ("Hunter", "Secret", "2Sec", "unter2", "ecret")


def _shown(text: str) -> list[str]:
    return [part for part in PARTS if part in text]


@pytest.mark.parametrize("dsn", MALFORMED)
def test_no_part_of_the_password_of_a_malformed_dsn_is_shown(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "password=*** Secret" or "password=***'Secret" where an escaped blank or
    # quote, or a word libpq cannot read before the password, cut the password short.
    assert not _shown(str(dsn_problem(dsn)))
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert cli.main(["config", "--agent", "ada", "--store", dsn]) == 2
    err = capsys.readouterr().err
    assert not _shown(err), err
    for argv in ([dsn], ["chat", "--offline", dsn], ["pg", "status", "--store=" + dsn]):
        with pytest.raises(SystemExit):
            cli.run(argv)
        err = capsys.readouterr().err
        assert "***" in err and not _shown(err), err
    # Any part of it that holds the password's key hides all of the password: a usage
    # error hides what each argument and its text after "=" hold.
    for at in range(len(dsn)):
        if re.search(r"(?:^|[\s?])(?:ssl)?password", dsn[at:], re.IGNORECASE):
            shown = without_password(repr(dsn), dsn[at:])
            assert not _shown(shown), (dsn[at:], shown)


#: Passwords libpq cuts short or does not read as one, each message naming a part of it.
CUT_OR_MISPLACED = [
    "postgresql://u:Hunter2/Secret@127.0.0.1:1/db",  # the port: 'Hunter2'
    "postgresql:/u:Hunter2Secret@127.0.0.1:1/db",  # a URI mistyped, no DSN at all
    "dbname=postgresql://u:Hunter2Secret@127.0.0.1:bad/db",  # a DSN as the database
    "host=127.0.0.1 port=1 dbname='postgresql://u:Hunter2Secret@127.0.0.1:1/db'",
    "host=127.0.0.1 port=1 dbname='host=127.0.0.1 password=Hunter2Secret'",
]


@pytest.mark.parametrize("dsn", CUT_OR_MISPLACED)
def test_no_part_of_a_password_libpq_cuts_short_or_reads_as_another_key_is_shown(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "port 'Hunter2' is not a port number", "not 'postgresql:/u:Hunter2Secret@...'"
    # and "cannot connect to PostgreSQL at dbname=postgresql://u:Hunter2Secret@...".
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert cli.main(["config", "--agent", "ada", "--store", dsn]) in (1, 2)
    err = capsys.readouterr().err
    assert ("***" in err or "it has no @host" in err) and not _shown(err), err


def test_the_host_libpq_reads_after_an_unencoded_at_sign_of_a_password_is_hidden() -> None:
    # libpq ends the password "Hunter2@Secret" at its "@" and looks up the host
    # "Secret@127.0.0.1", which its message names; before, "Secret" was shown.
    dsn = "postgresql://u:Hunter2@Secret@127.0.0.1:1/db"
    shown = without_password("failed to resolve host 'Secret@127.0.0.1'", dsn)
    assert shown == "failed to resolve host '***@127.0.0.1'"
    from tiermem.memory.store.postgres.connection import public_dsn
    assert not _shown(public_dsn(dsn)), public_dsn(dsn)


def _store_refused(dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> str:
    """What ``tiermem config --store DSN`` says refusing ``dsn``."""
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert cli.main(["config", "--agent", "ada", "--store", dsn]) == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("dsn", ["postgresql://u:Hunter2Secret", "postgres://u:Hunter2Secret/db",
                                 "postgresql://first.last:Hunter2Secret/db",
                                 "postgresql://first.last:2Secret2",
                                 "postgresql://:Hunter2Secret?sslmode=disable",
                                 "postgresql://u:Hunter2/Secret", "postgresql://u:Hunt%65r2Secret",
                                 "postgresql://u:Hunter2Secret,h2:5432/db"])
def test_a_password_with_no_at_host_is_hidden_and_the_missing_host_said(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # libpq reads u as the host and the password as its port (the rest after a "/" as the
    # database). Before: "port 'Hunter2Secret' is not a port number from 1 to 65535".
    err = _store_refused(dsn, tmp_path, monkeypatch, capsys)
    assert not _shown(err), err
    assert "it has no @host (user:password@host), so libpq reads what follows the first " \
           "\":\" as a port, which is no port number;" in err, err
    from tiermem.memory.store.postgres.connection import public_dsn
    assert not _shown(public_dsn(dsn)), public_dsn(dsn)


@pytest.mark.parametrize("dsn", ["postgresql://h:5432/db", "postgresql://[::1]:5432/db",
                                 "postgresql://h1:5432,h2:5433/db", "postgresql://h:/db",
                                 "postgresql://%2Fvar%2Frun%2Fpostgresql:5432/db"])
def test_a_uri_with_a_host_and_port_and_no_login_stays_valid(dsn: str) -> None:
    assert dsn_problem(dsn) is None
    assert without_password(dsn, dsn) == dsn


def test_a_base_url_s_password_with_no_at_host_is_hidden_and_its_path_shown() -> None:
    from tiermem.agent.base_url import normalize_base_url
    from tiermem.agent.errors import LLMConfigError

    with pytest.raises(LLMConfigError) as caught:
        normalize_base_url("http://user:Hunter2Secret/v1")
    assert "http://user:***/v1" in str(caught.value) and not _shown(str(caught.value))
    with pytest.raises(LLMConfigError) as caught:
        normalize_base_url("http://u:8080x/v1/chat/completions")
    assert "http://u:***/v1/chat/completions" in str(caught.value), caught.value


def test_a_number_no_port_can_be_with_no_at_host_is_hidden_as_a_password() -> None:
    # Before: "port '12345678' is not a port number", a PIN-like password shown.
    said = str(dsn_problem("postgresql://u:12345678/db"))
    assert "12345678" not in said and "it has no @host (user:password@host)" in said, said
    assert dsn_problem("postgresql://u:5432/db") is None  # the host u's port


@pytest.mark.parametrize(("dsn", "port"), [
    ("postgresql://localhost:543x/db", "543x"), ("postgres://LOCALHOST:99999/postgres", "99999"),
    ("postgresql://127.0.0.1:54321x/agents", "54321x"), ("postgresql://%2Ftmp:5o432/db", "5o432"),
    ("postgresql://localhost:5432,127.0.0.1:5433x/db", "5432,5433x"),
    ("postgresql://db.internal:5o432/db", "5o432"),
    ("postgres://pg.example.com:54320x/agents?sslmode=require", "54320x")])
def test_a_mistyped_port_of_a_host_no_login_is_named_as_is_shown(
        dsn: str, port: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # localhost, an IP address or a socket directory is a host: what follows its ":" is a
    # port mistyped, not a password; so is a dotted name's port mostly of digits before a
    # database's name, with no "@" anywhere. Before: "it has no @host (user:password@host), so
    # libpq reads what follows the first ":" as a port, '***'", the typo hidden.
    monkeypatch.setenv("TIERMEM_HOME", str(tmp_path))
    assert cli.main(["config", "--agent", "ada", "--store", dsn]) == 2
    monkeypatch.setenv("TIERMEM_STORE", dsn)
    assert cli.main(["config", "--agent", "ada"]) == 2
    err = capsys.readouterr().err
    assert err.count(f"port {port!r} is not a port number") == 2, err
    assert "***" not in err and "no @host" not in err, err


def test_a_mistyped_port_of_a_local_base_url_is_shown() -> None:
    from tiermem.agent.base_url import normalize_base_url
    from tiermem.agent.errors import LLMConfigError

    for url in ("http://localhost:1143x/v1", "http://127.0.0.1:99999/v1"):
        with pytest.raises(LLMConfigError) as caught:
            normalize_base_url(url)
        assert f"base URL {url!r} is not a valid URL" in str(caught.value), caught.value


@pytest.mark.parametrize("dsn", ["postgresql://u:Hunter2Secret/tiermem",
                                 "postgres://u:Hunter2Secret/postgres",
                                 "postgresql://u:Hunter2Secret/tiermem?sslmode=disable"])
def test_the_database_of_a_uri_with_no_at_host_is_hidden_only_where_it_stands_as_one(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # The path may be a password's part, or the database's name: hidden as the DSN's path
    # or dbname, not wherever the word is. Before: "write it as ***ql://USER:PASSWORD@..."
    # and "(`*** pg start` prints one ...)".
    err = _store_refused(dsn, tmp_path, monkeypatch, capsys)
    assert "write it as postgresql://USER:PASSWORD@HOST:PORT/DATABASE (`tiermem pg start` " \
           "prints one for a local server)" in err and not _shown(err), err
    with pytest.raises(SystemExit):
        cli.run([dsn])
    err = capsys.readouterr().err
    assert dsn.partition(":")[0] + "://u:***/***" in err and not _shown(err), err
    from tiermem.memory.store.postgres.connection import public_dsn
    assert public_dsn(dsn).startswith("dbname=*** host=u port=***"), public_dsn(dsn)


@pytest.mark.parametrize("dsn", ["postgresql://u:0", "postgresql://u:0/db", "postgresql://u:ab",
                                 "postgresql://u:00?sslmode=disable", "postgresql://u:0,h2/db"])
def test_a_short_password_with_no_at_host_is_hidden_too(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Too short to hide wherever it occurs, it was quoted by the refusal: before, "reads
    # what follows the first ":" as a port, '0', which is no port number", and
    # "postgresql://u:0/db" and public_dsn's "port=0" as given.
    password = dsn.partition("//u:")[2].rstrip("?/,").split("?")[0].split("/")[0].split(",")[0]
    err = _store_refused(dsn, tmp_path, monkeypatch, capsys)
    assert "it has no @host" in err and f"'{password}'" not in err, err
    with pytest.raises(SystemExit):
        cli.run([dsn])
    err = capsys.readouterr().err
    assert "postgresql://u:***" in err and f":{password}" not in err, err
    from tiermem.memory.store.postgres.connection import public_dsn
    assert "port=***" in public_dsn(dsn) and f"={password}" not in public_dsn(dsn)


def test_the_refusal_of_a_password_with_no_at_host_is_said_whole_whatever_the_password(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "it has no @*** (user:password@***)", the password "host" hidden in the advice.
    err = _store_refused("postgresql://u:host", tmp_path, monkeypatch, capsys)
    assert "it has no @host (user:password@host)" in err, err


@pytest.mark.parametrize("url", ["https://gw.example.com:8443/org@team/v1",
                                 "http://10.0.0.5:8080/v1?user=ops@example.com",
                                 "postgresql://db.internal:5432/team@ops"])
def test_an_at_sign_after_a_host_and_port_is_no_password_s_end(url: str) -> None:
    # The login ends at the first "/" after "//": before, "https://gw.example.com:***@team/v1"
    # as if "8443/org" were a password.
    assert without_password(f"base URL {url!r} is not an http(s) URL", url) == \
        f"base URL {url!r} is not an http(s) URL"
    from tiermem.agent.base_url import normalize_base_url
    from tiermem.agent.errors import LLMConfigError

    with pytest.raises(LLMConfigError) as caught:
        normalize_base_url("ftp" + url[url.index(":"):])
    assert "***" not in str(caught.value), caught.value


@pytest.mark.parametrize("dsn", ["postgresql://u:4321", "postgres://u:4321/",
                                 "postgresql://u:4321?sslmode=disable"])
def test_a_port_number_with_no_at_host_and_no_database_is_hidden_where_a_port_stands(
        dsn: str) -> None:
    # The host u's port, or the user u's password 4321 missing its @host. Before,
    # "cannot connect to PostgreSQL at host=u port=4321: ..., port 4321 failed".
    from tiermem.agent.place import store_flag
    from tiermem.memory.store.postgres.connection import public_dsn

    assert dsn_problem(dsn) is None  # libpq reads a host and its port
    assert public_dsn(dsn).startswith("host=u port=***"), public_dsn(dsn)
    said = 'connection to server at "u" (10.1.2.3), port 4321 failed; pid 43210, 4321 rows'
    assert without_password(f"{dsn!r}: {said}", dsn) == (
        f"{dsn.replace('4321', '***')!r}: connection to server at \"u\" (10.1.2.3), port *** "
        f"failed; pid 43210, 4321 rows")
    assert store_flag(dsn) == " --store DSN"
    assert "4321" in public_dsn(dsn.replace("://u:4321", "://u:4321/tiermem", 1))


@pytest.mark.parametrize(("dsn", "shown"), [
    ("postgresql://[::1]:Hunter2Secret", "'***'"), ("postgresql://[::1]:Hunter2Secret/db", "'***'"),
    ("postgresql://[fe80::1]:5o432/db", "'5o432'"), ("postgresql://[::1]:99999/db", "'99999'")])
def test_a_bracketed_host_s_port_that_looks_like_no_port_is_hidden(
        dsn: str, shown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # No login is written as [::1]: what follows is a port, mistyped, or a password
    # misplaced. Before: "port 'Hunter2Secret' is not a port number".
    err = _store_refused(dsn, tmp_path, monkeypatch, capsys)
    assert f"port {shown} is not a port number" in err and not _shown(err), err
    assert "no @host" not in err, err


@pytest.mark.parametrize("dsn", ["postgresql://postgres:postgres@db:5x/postgres",
                                 "postgresql://tiermem:tiermem@db/tiermem?sslmode=bad",
                                 "host=db user=postgres password=postgres dbname=postgres port=5x"])
def test_a_password_libpq_reads_whole_is_hidden_only_where_it_stands(dsn: str) -> None:
    # A password that is a common word was hidden wherever its letters were: before,
    # "write it as ***ql://USER@HOST..." and "cannot connect ... at user=*** dbname=***".
    from tiermem.memory.store.postgres.connection import public_dsn

    refused = dsn_problem(dsn)
    assert refused is not None and refused.endswith(
        "; write it as postgresql://USER@HOST:PORT/DATABASE (`tiermem pg start` prints one "
        "for a local server)"), refused
    name = "tiermem" if "tiermem" in dsn else "postgres"
    assert f"user={name} dbname={name} host=db" in public_dsn(dsn), public_dsn(dsn)
    shown = without_password(f'{dsn!r}: password authentication failed for user "{name}"', dsn)
    assert shown == (repr(dsn).replace(f":{name}@", ":***@").replace(
        f"password={name}", "password=***") + f': password authentication failed for user "{name}"')


@pytest.mark.parametrize("url", ["http://u:pw12@h:1/x@y", "postgresql://u:pw12@db:5432/x@y",
                                 "postgresql://u:pw12@[::1]:5432/team@ops?sslmode=disable"])
def test_a_login_before_a_host_and_port_ends_at_its_own_at_sign(url: str) -> None:
    # libpq and urllib end the login at the "@" before the host: before, "http://u:***@y",
    # the host, port and path after it hidden as if they were the password's.
    assert without_password(f"at {url}: failed", url) == \
        f"at {url.replace(':pw12@', ':***@')}: failed"


def test_the_advice_after_a_failed_connection_keeps_its_own_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A password cut short at its "/" has a part "status": before, the advice read
    # "(a local one: `tiermem pg ***`)". The DSN's parts are still hidden.
    import psycopg

    from tiermem.memory.errors import StoreUnreachableError
    from tiermem.memory.store.postgres import connection
    from tiermem.memory.store.postgres.connection import connect

    def refused(*args: object, **kwargs: object) -> None:
        raise psycopg.OperationalError("failed to resolve host 'u' for database status@h/db")

    monkeypatch.setattr(connection.psycopg, "connect", refused)
    with pytest.raises(StoreUnreachableError) as failed:
        connect("postgresql://u:pg/status@h/db")
    said = str(failed.value)
    assert said.startswith("cannot connect to PostgreSQL at dbname=***@h/db host=u port=***: ")
    assert said.endswith("; check that the server runs (a local one: `tiermem pg status`) and "
                         "the DSN is right"), said
    assert said.count("status") == 1, said


@pytest.mark.parametrize(("dsn", "note"), [
    ("postgresql://db:5432", True), ("postgresql://db.example.com:5432", True),
    ("postgresql://localhost:5432", False), ("postgresql://db:5432/tiermem", False)])
def test_a_port_hidden_as_a_possible_password_is_said_to_be(
        dsn: str, note: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: "cannot connect to PostgreSQL at host=db port=***: ..." with no word of why
    # the port tried is not shown, nor how to have it shown.
    import psycopg

    from tiermem.memory.errors import StoreUnreachableError
    from tiermem.memory.store.postgres import connection

    def refused(*args: object, **kwargs: object) -> None:
        raise psycopg.OperationalError("connection refused")

    monkeypatch.setattr(connection.psycopg, "connect", refused)
    with pytest.raises(StoreUnreachableError) as failed:
        connection.connect(dsn)
    said = str(failed.value)
    why = (" port=*** (port hidden: with no @host it may be a password; write the database's "
           "name after it, postgresql://HOST:PORT/NAME, to show it): connection refused; ")
    assert (why in said) == note and ("5432" in said) != note, said


@pytest.mark.parametrize("dsn", ["postgresql://db:543x/tiermem", "postgresql://u:123456a/db"])
def test_a_port_mostly_of_digits_before_a_database_is_not_said_to_lack_its_host(
        dsn: str) -> None:
    # A host's port mistyped, or a password missing its @host: before, "it has no @host"
    # for postgresql://db:543x/tiermem, with no word of a port mistyped. Neither is shown.
    refused = dsn_problem(dsn)
    assert refused == (
        "the PostgreSQL DSN is not valid: the port after the first \":\" is no port number "
        "(not shown: with no @host it may be a password); write it as "
        "postgresql://HOST:PORT/DATABASE, with a login as "
        "postgresql://USER:PASSWORD@HOST:PORT/DATABASE (`tiermem pg start` prints one for a "
        "local server)"), refused


@pytest.mark.parametrize("dsn", ["postgresql://u@h/db?pass%77ord=Hunter2Secret&sslmode=bad",
                                 "postgresql://u@h/db?%70assword=Hunter2Secret&port=5x"])
def test_a_password_under_a_key_percent_encoded_is_hidden(
        dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # libpq reads it whole, so it was hidden only after "password=": before, a usage error
    # repeated "?pass%77ord=Hunter2Secret" as given.
    assert without_password(repr(dsn), dsn) == repr(dsn).replace("Hunter2Secret", "***")
    with pytest.raises(SystemExit):
        cli.run([dsn])
    err = capsys.readouterr().err
    assert "Hunter2Secret" not in err, err
