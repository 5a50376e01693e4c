"""``tiermem config``: show an agent's stored memory settings, or change one.

A change is validated and stored for every later session (a smaller core limit
moves what no longer fits to archival now). The table for people is always
printed: on standard output, or on standard error when standard output carries
the JSON.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def cmd_config(args: argparse.Namespace, note: Callable[[str], None]) -> int:
    from tiermem.agent.interrupted import work_done
    from tiermem.agent.place import agent_place, store_flag
    from tiermem.agent.settings import change_setting, parse_value, print_settings, read_settings
    from tiermem.agent.terminal import report_console
    from tiermem.agent.upgrade_command import upgrade_advice, upgrade_option
    from tiermem.memory.config import MemoryConfig
    from tiermem.memory.errors import OlderSchemaError, StoredConfigError, UnfinishedStoreError
    from tiermem.memory.output_file import emit_json, output_path

    if (args.value is None and args.json in MemoryConfig.model_fields
            and not Path(args.json).exists()):
        # `config --json core_limit [VALUE]`: --json's optional PATH took the setting.
        args.setting, args.value, args.json = args.json, args.setting, "-"
    place = agent_place(args.agent, args.store, existing=True)
    json_path = output_path(args.json)
    if args.setting is not None:
        parse_value(args.setting, "")  # an unknown name is refused, naming the settings
    with place.in_use(note, reading=args.value is None):
        if args.value is not None:
            change = change_setting(place, args.setting, args.value)
            work_done(args)
        unreadable: StoredConfigError | None = None
        try:
            config: MemoryConfig | None = read_settings(place)
        except (OlderSchemaError, UnfinishedStoreError) as exc:  # only showing: a change
            # has opened it for writing, which upgrades or finishes it
            note(upgrade_advice(exc, args.agent, upgrade_option(place, args.store)))
            return 1
        except StoredConfigError as exc:
            if args.value is None:
                raise
            # Stored, while another stored setting still cannot be read: said, then that.
            config, unreadable = None, exc
    if args.value is not None:
        if args.json is not None:
            emit_json({"agent": args.agent, "setting": change.name, "old": change.old,
                        "new": change.new, "moved_to_archival": change.moved_to_archival},
                       json_path)
        # A value the agent already has is not news: "stored" would say it changed.
        done = (f" (agent {args.agent} already has it; nothing stored)" if change.unchanged
                else f"; stored for agent {args.agent}")
        report_console(args.json == "-").print(f"{change.describe(config)}{done}",
                                               markup=False)
        if unreadable is not None:
            raise unreadable
    elif config is not None:
        # The JSON first: a file of it is written even if the reader of the table goes away.
        if args.json is not None:
            chosen = {k: v for k, v in config.as_json().items() if args.setting in (None, k)}
            emit_json({"agent": args.agent, "settings": chosen}, json_path)
        # The table for people always; on standard error when the JSON takes standard output.
        print_settings(report_console(args.json == "-"), args.agent, config, args.setting,
                       store_flag(args.store))
    return 0
