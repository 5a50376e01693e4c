"""What a SQLite full-text index holds, beside what one built afresh from its rows holds."""

from __future__ import annotations

from tiermem.memory.store.sqlite import SQLiteStore


def _index_contents(store: SQLiteStore, index: str, words: str) -> tuple[object, ...]:
    """Every word's places (``words``, an fts5vocab table of ``index``), each row's lengths
    (the ``docsize`` records, whose highest id tells the store what is indexed), and the
    counts of rows and words that BM25 reads (FTS5's averages record, row 1 of its data
    table)."""
    places = {tuple(r) for r in store.execute(f"SELECT term, doc, col, offset FROM {words}")}
    sizes = [tuple(r) for r in store.execute(f"SELECT id, sz FROM {index}_docsize ORDER BY id")]
    counts = store.execute(f"SELECT block FROM {index}_data WHERE id = 1").fetchone()
    return places, sizes, bytes(counts[0]) if counts else b""


def _rebuilt_contents(store: SQLiteStore, columns: str, rows: str) -> tuple[object, ...]:
    store.execute(f"CREATE VIRTUAL TABLE temp.fresh USING fts5 ({columns}, content='',"
                  " tokenize='porter unicode61')")
    store.execute("CREATE VIRTUAL TABLE temp.fresh_words USING fts5vocab(temp, fresh,"
                  " 'instance')")
    try:
        store.execute(f"INSERT INTO temp.fresh (rowid, {columns}) {rows}")
        return _index_contents(store, "temp.fresh", "temp.fresh_words")
    finally:
        store.execute("DROP TABLE temp.fresh_words")
        store.execute("DROP TABLE temp.fresh")


def check_index_as_rebuilt(store: SQLiteStore, table: str, columns: str, rows: str) -> None:
    """``table``'s full-text index passes FTS5's integrity check and holds exactly what an
    index of ``columns`` built afresh from ``rows`` (a SELECT of each row's id and column
    texts) holds."""
    fts = f"{table}_fts"
    store.execute(f"INSERT INTO {fts} ({fts}) VALUES ('integrity-check')")
    store.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{fts}_words USING"
                  f" fts5vocab(main, {fts}, 'instance')")
    held = _index_contents(store, f"main.{fts}", f"temp.{fts}_words")
    assert held == _rebuilt_contents(store, columns, rows), table
