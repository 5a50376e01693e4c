"""What a store location's text is and holds: whether it names a PostgreSQL database or
is a URL, and the passwords in it, which messages about it show as ``***``."""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import unquote

from tiermem.memory.errors import InvalidInputError
from tiermem.memory.store.postgres.options import BLANKS, DSN_KEYS, dsn_pairs, libpq_dsn


def is_dsn(location: object) -> bool:
    """Whether ``location`` names a PostgreSQL database (a ``postgresql://`` URI or a
    ``key=value`` connection string) rather than a directory."""
    return isinstance(location, str) and (
        location.startswith(("postgresql://", "postgres://"))
        or re.match(r"\s*[a-z_]+\s*=", location) is not None)


# The password of a URI (``scheme://user:PASSWORD@host``) or a ``password=...`` pair.
# Up to the last "@": a password may hold an unencoded "/" (libpq then cannot read it, and
# says so quoting the whole URI); taking too much only hides more. A scheme with fewer
# slashes (postgresql:/u:PASSWORD@h) is a URI mistyped, which its refusal repeats.
_URI_PASSWORD = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/*[^/@:?#]*:(.*)@")
# A URI as a pair's value (dbname=postgresql://u:PASSWORD@h/db): a DSN meant as a whole,
# which libpq takes as the database's name, and messages repeat.
_INNER_URI_PASSWORD = re.compile(
    r"(?:^|[\s='\"])[A-Za-z][A-Za-z0-9+.-]*://[^/@:?#\s'\"]*:([^\s'\"]*)@")
# As a key=value pair, or in a URI's query string (?password=...&...); sslpassword
# unlocks the client's SSL key.
_PAIR_PASSWORD = re.compile(
    r"(?:^|[\s?&])(?:ssl)?password\s*=\s*('(?:[^'\\]|\\.)*'|[^\s'&]+)", re.IGNORECASE)
# A key=value pair's unquoted value runs to a blank, "&" and all.
_UNQUOTED_PASSWORD = re.compile(r"(?:^|\s)(?:ssl)?password\s*=\s*([^\s']+)", re.IGNORECASE)
_PASSWORD_KEY = re.compile(r"(?:^|\s)((?:ssl)?password\s*=)", re.IGNORECASE)
_SECRET_KEYS = ("password", "sslpassword")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _passwords(location: str) -> list[str]:
    """The passwords ``location`` holds (none empty), as written in it."""
    found = [_in_login(m.group(1), location) for m in (_URI_PASSWORD.match(location),) if m]
    found += [_in_login(m.group(1), location[m.start():])
              for m in _INNER_URI_PASSWORD.finditer(location)]
    # libpq ends a password at its first unencoded "@" or "/" (urllib at a "?" or "#" too),
    # reading the rest as the host, port or database, which a message names: each piece is
    # a part to hide.
    ends = r"[/@]" if is_dsn(location.lstrip()) else r"[/@?#]"
    found += [piece for uri_password in found for piece in re.split(ends, uri_password)]
    found += hostless_password(location)
    found += [m.group(1) for m in _PAIR_PASSWORD.finditer(location)]
    found += [m.group(1) for m in _UNQUOTED_PASSWORD.finditer(location)]
    # libpq decodes a URI query's keys too: ?pass%77ord=... is a password.
    # One with "&" unencoded is cut there: a next key libpq does not know is likely a part.
    secret = False
    for part in location.partition("?")[2].split("&"):
        key, _, value = part.partition("=")
        if secret and not _libpq_key(unquote(key).strip()):
            found += [key, part]
        secret = unquote(key).strip().lower() in _SECRET_KEYS
        if secret:
            found.append(value)
    found += _pair_passwords(location)
    # The longest first: one may hold another (password=ab&cdef holds "ab" for a URI).
    return sorted({p.strip("'") for p in found} - {""}, key=len, reverse=True)


def _in_login(password: str, uri: str) -> str:
    """``password``, read up to the last "@" of ``uri``, unless ``uri`` has an "@", or a
    host and port number, before its path: the login ends there, as libpq and urllib end
    it, and an "@" after it (``https://gw.example.com:8443/org@team/v1``,
    ``postgresql://u:pw@h/x@y``) follows no password, or none of it. A URL's login ends at
    a "?" or "#" too when a host, or an "@", is before it (``https://h:1?q=a@b``); else the
    "?" or "#" is the password's (``https://u:p?w@h/x@y``), as libpq reads any before a "/".
    A DSN's path with a host after an "@" (``postgresql://u:p@ss/word@h/db``) ends a
    password holding an "@" and a "/": it is read to the last "@", hiding more."""
    after_scheme = re.sub(r"^\W*[A-Za-z][A-Za-z0-9+.-]*:/*", "", uri)
    authority, _, path = after_scheme.partition("/")
    dsn = is_dsn(uri.lstrip(" \t\n='\""))
    if (cut := re.search(r"[?#]", authority)) and not dsn and _ends_login(authority[:cut.start()]):
        authority, path = authority[:cut.start()], after_scheme[cut.end():]
    login, at, host = authority.rpartition("@")
    if not at and not port_number(unquote(host.rpartition(":")[2])):
        return password
    if at and dsn and _HOST_AFTER_AT.search(path):
        return password  # postgresql://u:p@ss/word@h/db: a "/" in the password too
    return login.partition(":")[2]


def _ends_login(authority: str) -> bool:
    """Whether ``authority`` ends a login: it holds an "@", or ends in a port number."""
    return "@" in authority or port_number(unquote(authority.rpartition(":")[2]))


# An "@" in a path followed by a host and a path or port (word@h/db, word@h:5432): the
# password's end, which holds a "/" too, rather than a database's name, which has neither.
_HOST_AFTER_AT = re.compile(r"@[^/@]*(?:/|:\d+$)")


# A URI with no "@" before its path (postgresql://u:PASSWORD): libpq reads no login, and
# the text before and after the ":" as a host and its port.
_HOSTLESS_URI = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*://([^/@]*)(?:/|$)")


def hostless_password(location: str) -> list[str]:
    """The ports of a URI with no ``@host`` that are no port numbers (``postgresql://u:Hunter2``,
    ``postgresql://u:12345678``): each is likely a password whose ``@host`` is missing,
    which libpq reads as a port. Not one after a host no login is named as: localhost, an
    IP address or a socket directory (``postgresql://localhost:543x/db``: a port mistyped),
    nor a port mostly of digits after a dotted name and before a database's name."""
    uri = _HOSTLESS_URI.match(location)
    if uri is None:
        return []
    # A database named after a "/", with no "@" anywhere, follows a host: a port mostly of
    # digits after a dotted name (postgresql://db.internal:5o432/db) is a port mistyped.
    dbname = "@" not in location and location[uri.end():].partition("?")[0] != ""
    ports = [port for host, _, port in (
        pair.partition(":") for pair in uri.group(1).partition("?")[0].split(","))
        if not _named_host(unquote(host))
        and not (dbname and "." in host.strip(".") and mistyped_port(unquote(port)))]
    return [port for port in ports if port and not port_number(unquote(port))]


def mistyped_port(text: str) -> bool:
    """Whether ``text`` is more than half digits, as a port with a slip of the finger is."""
    return sum(c.isascii() and c.isdigit() for c in text) * 2 > len(text)


def _port_passwords(location: str) -> list[str]:
    """The ports of a URI with no "@" that may as well be a password, hidden where a port
    stands (not wherever the text is): a port number after a host a login may be named as,
    with no database after it (``postgresql://u:4321``, ``postgresql://u:4321,h2:5432``: the
    first host u's port, or the user u's password), and text no port mistyped after a
    bracketed host, which no login is written as (``postgresql://[::1]:Hunter2Secret``)."""
    uri = _HOSTLESS_URI.match(location)
    if uri is None or "@" in location:
        return []
    pairs = uri.group(1).partition("?")[0].split(",")
    found = [port for host, _, port in (pair.rpartition(":") for pair in pairs)
             if host.startswith("[") and host.endswith("]") and not mistyped_port(port)]
    host, _, port = pairs[0].partition(":")
    if (not location[uri.end():].partition("?")[0]
            and not _named_host(unquote(host)) and port_number(unquote(port))):
        found.append(port)
    return [port for port in found if port]


def hidden_port_note(location: str) -> str:
    """Why a message shows the port of ``location`` as ``***`` when ``_port_passwords``
    hides a port number (``postgresql://db:5432``), and how to have it shown; else ""."""
    if not any(port_number(unquote(port)) for port in _port_passwords(location)):
        return ""
    return (" (port hidden: with no @host it may be a password; write the database's name "
            "after it, postgresql://HOST:PORT/NAME, to show it)")


def _named_host(host: str) -> bool:
    """Whether ``host`` can only be a host: ``[::1]``, ``localhost``, an IPv4 address, or a
    socket directory; no login is written so."""
    if host.startswith(("[", "/")) or host.lower() == "localhost":
        return True
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def _hostless_path(location: str) -> str:
    """The path of a DSN whose ``hostless_password`` finds a port, which libpq reads as the
    database: a password's part after an unencoded "/" (``postgresql://u:Hunter2/Secret``),
    but as likely the database's name, so hidden only where it stands as one."""
    uri = _HOSTLESS_URI.match(location)
    if uri is None or not is_dsn(location.lstrip()) or not hostless_password(location):
        return ""
    return location[uri.end():].partition("?")[0]


def port_number(text: str) -> bool:
    """Whether ``text`` is a TCP port number, 1 to 65535."""
    return text.isascii() and text.isdigit() and 0 < int(text) < 65536


def _pair_passwords(location: str) -> list[str]:
    """The passwords of ``location`` read as key=value pairs from its start, and from each
    password key after a blank: text libpq cannot read before one (``stray password=...``)
    would otherwise leave it to the patterns above, which end it at an escaped blank."""
    starts = {0} | {m.start(1) for m in _PASSWORD_KEY.finditer(location)}
    return [found for start in sorted(starts) for found in _passwords_from(location[start:])]


def _passwords_from(location: str) -> list[str]:
    """The passwords of ``location`` as libpq reads its key=value pairs (which may hold an
    escaped blank or quote, or a quote after the first character, where the patterns above
    stop), with what one was likely meant to hold past where libpq ends it: text right
    after its closing quote (``password=''Secret``) and words after a blank that are no
    pair (``password=Hunter2 Secret``), which libpq names as keys it cannot read."""
    found: list[str] = []
    pairs, rest = dsn_pairs(location)
    ends, at = [], 0
    for _, _, written in pairs:
        at = location.index(written, at) + len(written)
        ends.append(at)
    for i, (key, value, written) in enumerate(pairs):
        if key.lower() not in _SECRET_KEYS:
            continue
        found += [value, written.partition("=")[2].strip(BLANKS)]
        end, after = ends[i], i + 1
        while after < len(pairs) and location.startswith(pairs[after][2], end):
            found += list(pairs[after])  # no blank between: libpq's next key
            end, after = ends[after], after + 1
        if after < len(pairs) and not _libpq_key(pairs[after][0]):
            found += list(pairs[after])  # libpq's next key is none it knows: likely a part
            end = ends[after]
        if after == len(pairs):
            for word in rest.split():
                if "=" in word:
                    break
                found.append(word)
                end = location.index(word, end) + len(word)
        found.append(location[ends[i] - len(written) + written.index("=") + 1:end].strip(BLANKS))
    # One libpq cannot read to its end (its quote unclosed) is all that follows its "=".
    key, equals, after_key = rest.partition("=")
    if equals and key.strip(BLANKS).lower() in _SECRET_KEYS:
        found.append(after_key.strip(BLANKS))
    return found


def _libpq_key(key: str) -> bool:
    """Whether libpq, or tiermem's DSN settings, know ``key`` (in any case: one written
    in capitals is a key mistyped, not a password's words)."""
    return key.lower() in _known_keys()


#: The keys libpq 18 reads, for an install without psycopg, whose messages echo a
#: location too (one not read as a DSN); a newer key missing here is only hidden more.
_LIBPQ_KEYS = """
    application_name channel_binding client_encoding connect_timeout dbname
    fallback_application_name gssdelegation gssencmode gsslib host hostaddr keepalives
    keepalives_count keepalives_idle keepalives_interval krbsrvname load_balance_hosts
    max_protocol_version min_protocol_version oauth_client_id oauth_client_secret
    oauth_issuer oauth_scope options passfile password port replication require_auth
    requirepeer scram_client_key scram_server_key service ssl_max_protocol_version
    ssl_min_protocol_version sslcert sslcertmode sslcompression sslcrl sslcrldir sslkey
    sslkeylogfile sslmode sslnegotiation sslpassword sslrootcert sslsni
    target_session_attrs tcp_user_timeout user"""


@functools.cache
def _known_keys() -> frozenset[str]:
    """libpq's keys as the installed one lists them (psycopg imported only when a
    password is there to hide), else those above; with tiermem's settings."""
    try:
        from psycopg.pq import Conninfo

        known = {option.keyword.decode() for option in Conninfo.get_defaults()}
    except ImportError:
        known = set(_LIBPQ_KEYS.split())
    return frozenset(known | set(DSN_KEYS))


def holds_password(location: str) -> bool:
    """Whether ``location`` holds a password or sslpassword in any form libpq reads, or a
    port that may be one."""
    return bool(_passwords(location) or _port_passwords(location))


def without_password(text: str, location: str) -> str:
    """``text`` (a message about ``location``) with the password ``location`` holds, in
    any form it may be quoted in, shown as ``***``: even a location too malformed to
    parse may be echoed by the error about it."""
    return without_passwords(text, (location,))


def without_passwords(text: str, locations: Iterable[str]) -> str:
    """``text`` with the passwords all of ``locations`` hold shown as ``***``, the longest
    first: one location may be a part of another (an argument's text after its "="), and
    a part's shorter reading of a password, hidden first, would leave the rest shown."""
    locations = list(locations)
    found = {(password, location) for location in locations for password in _passwords(location)}
    passwords = {password for password, location in found}
    # One libpq reads whole as the password is in no other part, so nowhere else in a
    # message: a word it matches there (postgres:postgres@h) is that word, not the password.
    placed = {port for location in locations for port in _port_passwords(location)}
    placed |= passwords - {password for password, location in found
                           if not _forms(password) & _read_passwords(location)
                           or _left_shown(location)}
    for password in sorted(passwords | placed, key=len, reverse=True):
        for form in sorted(_forms(password), key=len, reverse=True):
            if len(form) >= 4 and password not in placed:
                text = text.replace(form, "***")
            else:  # too short to hide wherever it occurs: where a DSN holds it
                text = _hidden_where_it_stands(text, form)
    for path in filter(None, map(_hostless_path, locations)):
        for form in sorted(_forms(path), key=len, reverse=True):
            text = re.sub(rf"(/|dbname\s*=\s*'?){re.escape(form)}(?=[?'\s\"]|$)",
                          lambda m: m.group(1) + "***", text)
    return text


def _hidden_where_it_stands(text: str, form: str) -> str:
    """``text`` with ``form`` shown as ``***`` where a DSN or a message about one holds a
    password or port: after a ":", ``password=``, ``port``, or a quoted option; and as a
    word before an "@", a host's start when libpq ends the password at an "@" it holds
    (postgresql://u:ab@cd@h: ``host=cd@h``)."""
    text = re.sub(rf"(:|(?:password|port)\s*=\s*'?|port '?|(?:after|option|parameter:) \")"
                  rf"{re.escape(form)}(?=[@'&\s\"/?,]|$)", lambda m: m.group(1) + "***", text)
    return re.sub(rf"(?<![^\s='\"(,]){re.escape(form)}(?=@)", "***", text)


def _left_shown(location: str) -> bool:
    """Whether ``location``'s query has a password key percent-encoded (``?pass%77ord=``),
    which no pattern of where a password stands finds, so its value is hidden everywhere."""
    return any("%" in key and unquote(key).strip().lower() in _SECRET_KEYS
               for key in (part.partition("=")[0]
                           for part in location.partition("?")[2].split("&")))


def _read_passwords(location: str) -> set[str]:
    """The password and sslpassword libpq reads from the DSN ``location`` (none when it
    cannot read it, or psycopg is not installed)."""
    if not is_dsn(location.lstrip()):
        return set()
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return set()
    try:
        parts = conninfo_to_dict(libpq_dsn(location))
    except (psycopg.Error, InvalidInputError):
        return set()
    return {str(parts[key]) for key in _SECRET_KEYS if parts.get(key)}


def _forms(password: str) -> set[str]:
    """``password`` as written, decoded, and as repr() quotes either (a backslash doubled)."""
    decoded = re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), password)
    return {password, decoded, repr(password)[1:-1], repr(decoded)[1:-1]}


def looks_like_url(location: str) -> bool:
    """Whether ``location`` starts with a URL scheme (``mysql://``, ``postgressql://``):
    a mistyped DSN, not a directory to create."""
    return _URL.match(location) is not None
