"""Migration 17 of the PostgreSQL schema: times stored in milliseconds become seconds
(memory/store/millisecond_times.py says which and why; SQLite's migration 21 is its twin);
memory/store/postgres/schema.py runs it in its place."""

from __future__ import annotations

from tiermem.memory.store import millisecond_times as times

_ON_THE_WALL_CLOCK = (f"EXISTS (SELECT 1 FROM tiermem.settings s WHERE s.agent_id = f.agent_id"
                      f" AND s.key = '{times.CLOCK_SETTING}' AND s.value = '{times.WALL}')")
#: As numeric, which holds any JSON number: one past double precision would fail a cast.
_SUPERSEDED = f"(metadata::jsonb ->> '{times.SUPERSEDED_KEY}')::numeric"


def _guards(action: str) -> str:
    return "".join(f"ALTER TABLE tiermem.{table} {action} TRIGGER {name};\n"
                   for table, names in times.GUARDS.items() for name in names)


def _conversions() -> str:
    statements = [f"{statement};" for statement in times.column_conversions(
        lambda table: f"tiermem.{table}", _ON_THE_WALL_CLOCK)]
    # Only a metadata naming the key is parsed (CASE decides first): the store writes JSON
    # alone, but a row another program wrote that is none must not stop the upgrade.
    statements.append(
        f"UPDATE tiermem.passages SET metadata = jsonb_set(metadata::jsonb,"
        f" '{{{times.SUPERSEDED_KEY}}}', to_jsonb(({_SUPERSEDED} / 1000)::double precision))::text"
        f" WHERE CASE WHEN metadata LIKE '%\"{times.SUPERSEDED_KEY}\"%' AND jsonb_typeof("
        f"metadata::jsonb -> '{times.SUPERSEDED_KEY}') = 'number'"
        f" THEN {times.in_milliseconds(_SUPERSEDED)} ELSE false END;")
    return "\n".join(statements)


#: Migration 17. The triggers that would refuse the updates are off for them alone, in the
#: migration's transaction (ALTER TABLE holds its tables until it commits).
TIMES_IN_SECONDS = _guards("DISABLE") + _conversions() + "\n" + _guards("ENABLE")
