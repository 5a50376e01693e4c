"""Text: token counting, sentences, the rule-based fact extractor with its durability and
update rules, wording and symbols."""
