"""Migration 17 of the PostgreSQL schema: times stored in milliseconds become seconds
(memory/store/millisecond_times.py says which and why; SQLite's migration 21 is its twin);
memory/store/postgres/schema.py runs it in its place."""

from __future__ import annotations

from tiermem.memory.store import millisecond_times as times

_ON_THE_WALL_CLOCK = (f"EXISTS (SELECT 1 FROM tiermem.settings s WHERE s.agent_id = f.agent_id"
                      f" AND s.key = '{times.CLOCK_SETTING}' AND s.value = '{times.WALL}')")
#: As numeric, which holds any JSON number: one past double precision would fail a cast.
_SUPERSEDED = "(value #>> '{}')::numeric"


def _guards(action: str) -> str:
    return "".join(f"ALTER TABLE tiermem.{table} {action} TRIGGER {name};\n"
                   for table, names in times.GUARDS.items() for name in names)


#: The superseded mark of each passage's metadata, in seconds. Rebuilt as ``json``, not
#: ``jsonb``, so every other member keeps its place and its value's text (jsonb would sort
#: the keys and write 1e+300 as an integer of 301 digits). A metadata PostgreSQL reads as
#: no JSON is skipped: its row must not stop the upgrade of every agent. That is one
#: json.dumps wrote with NaN, and one holding a NUL or a lone surrogate, which json.dumps
#: escapes and the store keeps, but which no JSON function of PostgreSQL decodes.
_SUPERSEDED_IN_SECONDS = f"""DO $convert$
DECLARE
    passage record;
    doc json;
BEGIN
    FOR passage IN SELECT agent_id, id, metadata FROM tiermem.passages
                   WHERE metadata LIKE '%"{times.SUPERSEDED_KEY}"%' LOOP
        BEGIN
            doc := passage.metadata::json;
            CONTINUE WHEN json_typeof(doc) <> 'object';
            UPDATE tiermem.passages SET metadata = (
                SELECT json_object_agg(key, CASE WHEN key = '{times.SUPERSEDED_KEY}'
                    AND json_typeof(value) = 'number' AND {times.in_milliseconds(_SUPERSEDED)}
                    THEN to_json(({_SUPERSEDED} / 1000)::double precision) ELSE value END
                    ORDER BY place)::text
                FROM json_each(doc) WITH ORDINALITY AS member(key, value, place))
            WHERE agent_id = passage.agent_id AND id = passage.id
              AND EXISTS (SELECT 1 FROM json_each(doc) AS member(key, value)
                          WHERE key = '{times.SUPERSEDED_KEY}' AND json_typeof(value) = 'number'
                          AND {times.in_milliseconds(_SUPERSEDED)});
        EXCEPTION WHEN invalid_text_representation OR untranslatable_character THEN
            CONTINUE;
        END;
    END LOOP;
END
$convert$;"""


def _conversions() -> str:
    statements = [f"{statement};" for statement in times.column_conversions(
        lambda table: f"tiermem.{table}", _ON_THE_WALL_CLOCK)]
    return "\n".join([*statements, _SUPERSEDED_IN_SECONDS])


#: Migration 17. The triggers that would refuse the updates are off for them alone, in the
#: migration's transaction (ALTER TABLE holds its tables until it commits).
TIMES_IN_SECONDS = _guards("DISABLE") + _conversions() + "\n" + _guards("ENABLE")
