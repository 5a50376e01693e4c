"""``tiermem chat`` under a privacy policy: ``--policy FILE`` or the agent home's policy.yaml."""

from __future__ import annotations

from pathlib import Path

from test_cli import tiermem

from tiermem.memory import HashingEmbedder, HierarchicalMemory

POLICY = """\
rules:
  - rule_id: diagnosis
    category: medical
    content_substrings: [diagnosed]
"""


def messages(home: Path, agent: str) -> list[str]:
    with HierarchicalMemory(home / "agents" / agent, embedder=HashingEmbedder(),
                            read_only=True) as memory:
        rows = memory.recall.rows(list(range(1, len(memory.recall) + 1)))
        facts = [f.text for f in memory.facts()]
    return [r["content"] for r in rows] + facts


def test_the_agent_homes_policy_file_is_read_when_present(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "agents" / "a").mkdir(parents=True)
    (home / "agents" / "a" / "policy.yaml").write_text(POLICY, encoding="utf-8")
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   stdin="I was diagnosed with gout. My name is Dana.\n")
    assert done.returncode == 0, done.stderr
    assert "privacy policy" in done.stderr
    stored = messages(home, "a")
    assert "[withheld: medical] My name is Dana." in stored
    assert not any("gout" in text for text in stored)


def test_policy_flag_is_used_and_an_llm_mode_without_a_model_says_what_to_do(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    policy = tmp_path / "p.yaml"
    policy.write_text(POLICY + "retention:\n  mode: llm\n", encoding="utf-8")
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", "--offline",
                   "--policy", str(policy), stdin="hello\n")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "retention.mode: llm" in done.stderr and "--model" in done.stderr
    assert not (home / "agents" / "a").exists()
    policy.write_text("retain: {}\n", encoding="utf-8")
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   "--policy", str(policy), stdin="hello\n")
    assert done.returncode == 2 and "unknown top-level key 'retain'" in done.stderr


def test_a_policy_file_that_is_not_utf8_or_not_yaml_is_named_in_one_line(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    agent = home / "agents" / "a"
    with HierarchicalMemory(agent, embedder=HashingEmbedder()) as memory:
        memory.add_fact("User's name is Dana")
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"\xff\xfe rules: []\n")
    for args in (("chat", "--offline", "--policy", str(bad)),
                 ("forget", "--policy", str(bad), "x")):
        done = tiermem(home, *args, "--agent", "a", "--embedder", "hashing", stdin="hello\n")
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr == (f"tiermem: the policy file {bad} is not UTF-8 text (byte 1); "
                               "save it as UTF-8 YAML, or remove the file\n")
    (agent / "policy.yaml").write_text("rules: [\n  - a: b\n", encoding="utf-8")
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", stdin="hello\n")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.startswith(f"tiermem: {agent / 'policy.yaml'} is not valid YAML (line 2, ")
    assert done.stderr.rstrip().endswith("fix it, or remove the file")
    for policy, says in (("", "argument --policy: the path is empty"),
                         (str(tmp_path / "none.yaml"), "cannot read the policy file")):
        done = tiermem(home, "chat", "--agent", "a", "--policy", policy, stdin="hello\n")
        assert done.returncode == 2 and says in done.stderr, done.stderr
    assert "User's name is Dana" in messages(home, "a")  # nothing was lost or changed


def test_a_policy_path_with_control_characters_is_shown_quoted_on_one_line(
        tmp_path: Path) -> None:
    """A path is the user's text: a newline in it must not split the error, nor an escape
    sequence in it drive the terminal; it is shown as a quoted literal instead."""
    home = tmp_path / "home"
    with HierarchicalMemory(home / "agents" / "a", embedder=HashingEmbedder()) as memory:
        memory.add_fact("User's name is Dana")
    odd = tmp_path / "p\n\x1b[31mred\u202e.yaml"
    missing = tiermem(home, "chat", "--agent", "a", "--offline", "--policy", str(odd),
                      stdin="hello\n")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr, missing.stderr
    assert missing.stderr == (f"tiermem: cannot read the policy file {str(odd)!r}: No such "
                              f"file or directory; check the path\n")
    odd.write_text("rules: [\n", encoding="utf-8")
    for args in (("chat", "--offline"), ("forget", "x")):
        done = tiermem(home, *args, "--agent", "a", "--embedder", "hashing",
                       "--policy", str(odd), stdin="hello\n")
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"tiermem: {str(odd)!r} is not valid YAML (line ")
        assert len(done.stderr.splitlines()) == 1 and "\x1b" not in done.stderr
        assert "\u202e" not in done.stderr
    odd.write_text("retention:\n  mode: llm\n", encoding="utf-8")
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", "--offline",
                   "--policy", str(odd), stdin="hello\n")
    assert done.returncode == 2, done.stderr
    assert f"the privacy policy {str(odd)!r} sets retention.mode: llm" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "\x1b" not in done.stderr
    odd.write_text("rules: []\n", encoding="utf-8")
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing", "--offline",
                   "--policy", str(odd), stdin="hello\n")
    assert done.returncode == 0, done.stderr
    assert f"tiermem: privacy policy {str(odd)!r}\n" in done.stderr
