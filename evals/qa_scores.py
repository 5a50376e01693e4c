"""LoCoMo's QA scores: an answer's token F1 against the reference, by question category.

Scoring follows LoCoMo's own evaluation code (snap-research/locomo,
``task_eval/evaluation.py``):

- normalise: delete commas, lowercase, delete ASCII punctuation, delete the
  words "a", "an", "the" and also "and", split on whitespace, Porter-stem each
  token; F1 is the token-level F1 of answer against reference;
- category 1 (multi-hop): both are first split on commas into sub-answers;
  the score is the mean over the reference's parts of the best F1 against any
  part of the answer;
- category 3 (open-domain): the reference is cut at its first ";";
- category 5 (adversarial): 1 when the answer says "no information available"
  or "not mentioned", else 0 (the prompt asks for the first phrase).

One difference: LoCoMo stems with NLTK's PorterStemmer; here the Porter
stemmer inside SQLite FTS5 (the original algorithm, which NLTK extends with a
few special cases such as "dying" -> "die") is used, so no dependency is added.
"""

from __future__ import annotations

import re
import statistics
import string
from collections import Counter

from tiermem.memory.store.sqlite.stemmer import PorterStemmer

_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


_STEMMER: PorterStemmer | None = None


def normalize_answer(text: str) -> str:
    """LoCoMo's answer normalisation (before stemming)."""
    text = text.replace(",", "").lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_tokens(text: str) -> list[str]:
    global _STEMMER
    if _STEMMER is None:
        _STEMMER = PorterStemmer()
    return [_STEMMER.stem(w) for w in normalize_answer(text).split()]


def token_f1(prediction: str, reference: str) -> float:
    """Token-level F1 after normalisation and stemming."""
    pred, ref = answer_tokens(prediction), answer_tokens(reference)
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def locomo_f1(prediction: str, reference: str, category: int) -> float:
    """The QA score LoCoMo gives an answer, by question category."""
    if category == 5:
        lowered = prediction.lower()
        return float("no information available" in lowered or "not mentioned" in lowered)
    if category == 3:
        reference = reference.split(";")[0].strip()
    if category == 1:
        parts = [p.strip() for p in prediction.split(",")]
        wanted = [r.strip() for r in reference.split(",")]
        return statistics.fmean(max(token_f1(p, r) for p in parts) for r in wanted)
    return token_f1(prediction, reference)
