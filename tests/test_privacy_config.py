"""The policy file: YAML into pydantic models, errors naming the field, the shared ruleset."""

from __future__ import annotations

from pathlib import Path

import pytest

import tiermem.memory.privacy.rules as rules_module
from tiermem.memory.errors import InvalidConfigError
from tiermem.memory.privacy import PiiRule, PrivacyConfig, load_policy, parse_policy
from tiermem.memory.privacy.rules import RuleSet

STARTER_RULES = (Path(__file__).resolve().parents[1] / "memory" / "privacy" / "data"
                 / "starter_rules.yaml")

POLICY = """
rules:
  - rule_id: diagnosis
    category: medical
    category_description: the user's health, diagnoses and medication
    content_substrings: [diagnosed, insulin]
  - rule_id: card
    category: financial
    regex: '\\b(?:\\d[ -]?){13,16}\\b'
    metadata_fields: [card_number]
retention:
  mode: deterministic
recall:
  mode: deterministic
  window_multiplier: 4
forget:
  selection_mode: exact
"""


def test_a_policy_file_parses_into_both_layers_and_one_shared_ruleset(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY, encoding="utf-8")
    config = load_policy(path)
    assert [r.rule_id for r in config.rules] == ["diagnosis", "card"]
    assert config.recall.window_multiplier == 4
    assert config.forget == {"selection_mode": "exact"}  # another part's section, kept
    assert not config.needs_judge


@pytest.mark.parametrize(("text", "field", "words"), [
    ("rules:\n  - rule_id: a\n    regex: '('\n", "rules[0].regex", "regular expression"),
    ("rules:\n  - rule_id: a\n    colour: red\n", "rules[0].colour", "unknown key"),
    ("retention:\n  mode: transform\n", "retention.mode", "deterministic"),
    ("recall:\n  window_multiplier: 0\n", "recall.window_multiplier", "greater than"),
    ("rules:\n  - category: medical\n", "rules[0].rule_id", "required"),
    ("rules:\n  - rule_id: a\n    content_substrings: ['  ']\n",
     "rules[0].content_substrings", "blank"),
    ("rules:\n  - rule_id: a\n    regex: 'x*'\n", "rules[0].regex", "empty text"),
])
def test_errors_name_the_field_at_fault(text: str, field: str, words: str) -> None:
    with pytest.raises(InvalidConfigError) as caught:
        parse_policy(text, "p.yaml")
    assert field in str(caught.value) and words in str(caught.value)
    assert field in caught.value.fields


def test_an_unknown_top_level_key_is_refused_by_name_and_forget_is_accepted() -> None:
    with pytest.raises(InvalidConfigError, match="unknown top-level key 'retain'"):
        parse_policy("retain:\n  mode: llm\n")
    assert parse_policy("forget: {}\n").forget == {}


def test_duplicate_rule_ids_and_unenforceable_policies_are_refused() -> None:
    with pytest.raises(InvalidConfigError, match="used twice"):
        PrivacyConfig(rules=[PiiRule(rule_id="a"), PiiRule(rule_id="a")])
    with pytest.raises(InvalidConfigError, match=r"no entry in retention\.policy_rules"):
        parse_policy("retention:\n  mode: deterministic\n  policies: ['no pets']\n")
    assert parse_policy("retention:\n  mode: llm\n  policies: ['no pets']\n").needs_judge


def test_not_yaml_and_not_a_mapping_say_so(tmp_path: Path) -> None:
    with pytest.raises(InvalidConfigError, match="not valid YAML"):
        parse_policy("rules: [")
    with pytest.raises(InvalidConfigError, match="must be a mapping"):
        parse_policy("- a\n- b\n")
    with pytest.raises(InvalidConfigError, match="cannot read the policy file"):
        load_policy(tmp_path / "missing.yaml")


@pytest.mark.parametrize(("text", "words"), [
    # PyYAML keeps the last of two keys: the first section's rules would be dropped.
    ("rules: [{rule_id: a, category: m, content_substrings: [diagnosed]}]\n"
     "retention: {mode: deterministic}\n"
     "rules: [{rule_id: b, category: f, content_substrings: [card]}]\n",
     "line 3, column 1: the key 'rules' is given twice in one mapping; keep one"),
    ("rules:\n  - {rule_id: a, category: m, rule_id: b}\n", "the key 'rule_id' is given twice"),
    ("forget: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply to read"),
])
def test_a_policy_that_yaml_would_read_in_part_is_refused(text: str, words: str) -> None:
    with pytest.raises(InvalidConfigError, match="not valid YAML") as refused:
        parse_policy(text)
    assert words in str(refused.value)


def test_yaml_merge_keys_and_keys_of_other_types_are_no_duplicates() -> None:
    policy = parse_policy("""
rules:
  - &medical {rule_id: diagnosis, category: medical, content_substrings: [diagnosed]}
  - {<<: *medical, rule_id: insulin, content_substrings: [insulin]}
""")
    assert [r.rule_id for r in policy.rules] == ["diagnosis", "insulin"]


def test_phrases_match_whole_words_case_insensitively_and_metadata_by_key() -> None:
    rules = RuleSet([PiiRule(rule_id="pet", category="pets", content_substrings=["cat"]),
                     PiiRule(rule_id="id", category="ids", metadata_fields=["ssn"])])
    assert [m.rule_id for m in rules.matches("My CAT is called Tom")] == ["pet"]
    assert rules.matches("the category of the bug") == []
    assert [m.rule_id for m in rules.matches("x", {"ssn": "1"})] == ["id"]
    assert rules.matches("x", {"ssn": ""}) == []


def test_the_taxonomy_takes_one_description_per_category_from_the_rules() -> None:
    rules = RuleSet([
        PiiRule(rule_id="a", category="medical", category_description="health"),
        PiiRule(rule_id="b", category="medical", category_description="ignored"),
        PiiRule(rule_id="c", category="financial"),
    ])
    assert rules.taxonomy() == [("medical", "health")]


def test_a_rule_regex_that_backtracks_without_end_counts_as_matching(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rules = RuleSet([PiiRule(rule_id="runs", category="other", regex="(a|aa)+$")])
    # A text it matches at once, under the full limit: no busy machine makes it time out.
    assert [m.found for m in rules.matches("b " + "a" * 5000)] == ["a" * 5000]
    # (a|aa)+$ takes some 2**2500 steps on this text; the search ends at the time limit
    # (shortened here), and the text is held back as if the rule had matched.
    monkeypatch.setattr(rules_module, "MATCH_SECONDS", 0.05)
    assert [(m.rule_id, m.found) for m in rules.matches("a" * 5000 + "!")] == [
        ("runs", rules_module.TIMED_OUT)]


def test_rule_regexes_keep_python_syntax_and_unicode_classes() -> None:
    rules = RuleSet(load_policy(STARTER_RULES).rules)
    for text in ("Write to josé@exämple.com", "I take 20\u00a0mg of it",
                 "Ring ٠٥٥ ١٢٣ ٤٥٦٧", "ping me at @alice_b"):
        assert rules.matches(text), text
    handle = RuleSet([PiiRule(rule_id="h", category="contact",
                              regex=r"(?<![\w.])@[A-Za-z][\w.]{2,}")])
    assert [m.found for m in handle.matches("hi @alice_b")] == ["@alice_b"]
    assert handle.matches("mail bob@alice_b") == []


def test_the_starter_rules_pass_a_long_run_of_word_characters_quickly() -> None:
    # A DNA sequence, a hash, a base64 blob: one run of 60,000 word characters. A rule that
    # tries an e-mail address from every position in it backtracks quadratically, runs into
    # the time limit, and then holds the harmless text back as if it matched.
    rules = RuleSet(load_policy(STARTER_RULES).rules)
    sequence = "".join("ACGT"[(i * 7 + i // 3) % 4] for i in range(60_000))
    assert rules.matches(f"Plasmid insert sequence: {sequence}") == []
    assert [m.rule_id for m in rules.matches("mail bob.smith+news@example.com")] == [
        "contact-details"]
