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
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "retention.mode: llm" in done.stderr and "--model" in done.stderr
    assert not (home / "agents" / "a").exists()
    policy.write_text("retain: {}\n", encoding="utf-8")
    done = tiermem(home, "chat", "--agent", "a", "--embedder", "hashing",
                   "--policy", str(policy), stdin="hello\n")
    assert done.returncode == 1 and "unknown top-level key 'retain'" in done.stderr
