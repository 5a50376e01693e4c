"""Statements that say nothing yet: a heading, a sentence cut off before its point, and an
aside about the conversation itself.

Fact extraction (memory/text/extract.py) asks these before it stores a sentence, so
"My name is" never stands in core beside "My name is Dana". Pure functions over
strings, like the rest of memory/text.

``is_heading(sentence)``: the sentence ends with a colon ("Notes from the meeting:",
"The root cause was:"); what it introduces follows on the next lines, which are read on
their own. "note: X" and "remember: X" carry their fact after the colon and so do not
end with one.

``stops_short(text)``: the sentence ends with a word that still waits for what it
says, and nothing in it accounts for that:

- the word is a verb of being or having, or a modal ("My name is", "Alice has",
  "We would"), "not", an article or a possessive ("I am allergic to the"), a
  preposition that needs an object (to, of, from, with, at, for, by, into, onto,
  than, about), or a conjunction (and, or, but, because, nor);
- the sentence has at most ``MAX_CUT_OFF_WORDS`` words (a longer one ending so is
  nearly always complete: "Acme is the company my wife works for"), its last word is not
  a capital "A" ("My blood type is A"), and nothing before it leaves that word where it
  belongs: a second half after "but", "and", "like", "as" ("I'm not vegan but my wife
  is"), a question word or
  "that", "than", "as", "if", "whether" ("I know where it is", "taller than I
  am"), a subject pronoun after the first word ("She is the one I talk to"),
  or, before a closing preposition, a "to" that opens an infinitive ("someone to
  talk to").

``is_aside(text)``: the speaker says only how they stand in the conversation, which no
later turn needs: an apology ("I'm sorry", "I'm so sorry for the delay"), being lost in
it or unsure ("I'm confused", "I'm not sure yet"), present or finished ("I'm back", "I'm
here", "I'm done for now"), or why they ask ("I'm just asking", "I'm curious"); or that
they forget what is only pointed at ("I forgot that", "I forget that every time", not
"I forgot my keys"), or insist on what was said ("I meant it", "I really mean it"), or
thanks for anything ("Thanks a lot for nothing"). Said with more, it is a fact again:
"I'm back from vacation", "I'm done with the migration", "I'm not sure the backup ran",
and an apology followed by a clause of its own ("I'm sorry if I was unclear, my name is
Dana", "I'm sorry to say I'm moving").

A denial of someone that leaves what it denies unsaid ("Tom doesn't") is
memory/text/unsaid_denials.py's.

``corrects_nothing(text)``: "I meant Portland" (after "sorry", "oops", "no" or such) with
no "not Seattle" names a slip without the word it corrects, so it states nothing of its
own; "I meant that I live in Portland" and "I meant Bob is on call" still do. Nor does
"Sorry, it's not 4321" (``denied_alone``), what something is not with nothing it is of.

``without_asides(text)``: ``text`` less the asides among its own clauses ("I'm back, and
I moved to Porto" says "I moved to Porto", as "I'm sorry for the delay-I was sick", a dash
typed with no spaces, says "I was sick"), but with one after a statement that qualifies
it ("I moved to Berlin but I'm back": came back; "..., but I'm not sure": ``qualifies``)
or a doubt before one ("I'm not sure, but I think my wife is vegan": ``doubted``),
and less an apology for what a clause of the speaker's says: "I'm sorry I missed the
standup" says "I missed the standup", the apology itself being no fact.

Words that also name things are not in the list ("in May", "of my own free will",
"a must", "for the time being"), nor are prepositions that stand as adverbs ("the
results are in", "the lights are on").
"""

from __future__ import annotations

import re

__all__ = ["corrects_nothing", "denied_alone", "doubted", "is_aside", "is_heading", "meant_alone",
           "meant_mine", "no_then", "qualifies", "stops_short", "without_asides", "without_doubt"]

#: Prepositions waiting for their object.
_PREPOSITIONS = frozenset({"to", "of", "from", "with", "at", "for", "by", "into", "onto", "than",
                           "about"})
_DANGLING = frozenset({
    # verbs of being and having, modals: waiting for what they say
    "is", "are", "was", "were", "am", "be", "been", "has", "have", "had", "would", "could",
    "should", "shall", "not",
    # articles and possessives: waiting for their noun
    "a", "an", "the", "my", "your", "our", "their",
    # conjunctions: waiting for their second half
    "and", "or", "but", "because", "nor",
}) | _PREPOSITIONS
#: Words that let a clause end on a verb or preposition ("I know where it is").
_CLAUSE_OPENERS = frozenset({
    "what", "where", "who", "whom", "whose", "which", "when", "why", "how", "whatever",
    "wherever", "whoever", "that", "than", "as", "if", "whether",
})
_PRONOUNS = frozenset({"i", "you", "we", "they", "he", "she", "it",
                       "i'm", "you're", "we're", "they're", "he's", "she's", "it's", "that's",
                       "i've", "we've", "you've", "they've", "i'd", "we'd", "i'll", "we'll"})
#: Words after which a clause ends where it may: "I'm not vegan but my wife is".
_SECOND_HALF = frozenset({"but", "and", "like", "as", "so", "though", "although"})
#: A statement of the speaker's, then a comma before someone of theirs or a name, which
#: joins a denial as "and" does: "I'm vegan, my husband is not" (not "..., my name is").
_SAID_BEFORE_COMMA = re.compile(
    r"^(?:i|i['’]m|my)\s+[^,]*[^\W_](?<!\bis)(?<!\bam)(?<!\bnot),\s+(?:my\s|(?-i:[A-Z][a-z]+\s))",
    re.IGNORECASE)
#: Longer sentences that end on such a word are nearly always complete: "Acme is the
#: company my wife works for", "Spiders are the one thing my son is afraid of". What is
#: typed cut off is short: "My name is", "I am allergic to", "The prod region is".
MAX_CUT_OFF_WORDS = 6
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
#: What an apology is for ("for the delay", "if I was unclear"), up to where a clause of its
#: own would start: past a comma, a dash or a "but" ("I'm sorry if I was unclear, my name
#: is Dana"), or after "sorry to say" ("... I'm moving to Berlin"), the sentence goes on
#: to state something, and is no aside.
#: The words of a clause up to where another may open (a comma, a dash, "and", "but").
_TO_CLAUSE_END = (r"(?:(?!\s-\s|-(?-i:I)(?:\b|['’])|\b(?:and|but|because|though|although)\b)"
                  r"[^,;:\u2013\u2014])*")
#: Words by which what one is thanked for states something of the speaker's or of how
#: things are ("my wife is vegan"): a fact, not an aside.
_STATES = (r".*\b(?:i|i['’]m|my|mine|we|our|ours|is|are|was|were|has|have|had|am|lives?"
           r"|works?)\b")
_APOLOGY_FOR = (
    r"(?:\s+(?:for|about|if|to(?!\s+(?:say|tell|report|admit|inform|announce|share"
    rf"|confess|let)\b))\b{_TO_CLAUSE_END})?")
#: An aside (``is_aside``): "I'm" (after "sorry," or "oh,"), how much, the state, and words
#: that only say when or of what in the conversation; an apology for anything.
_ASIDE = re.compile(
    r"^(?:(?:sorry|oh|oops|ok|okay|hmm|um|uh|ah|well|wait)\W+)*"
    r"i(?:['’]?m|\s+am)\s+(?:(?:so|really|very|truly|terribly|just|still|kind\s+of|kinda"
    r"|a\s+(?:bit|little))\s+)*"
    rf"(?:sorry{_APOLOGY_FOR}"
    r"|(?:confused|back|here|done|not\s+(?:sure|certain)|asking|wondering|curious"
    r"|checking)(?:\s+(?:now|again|then|yet|though|anyway|about\s+(?:that|this|it)"
    r"|by\s+(?:that|this|it)|for\s+(?:now|today|the\s+day)))*)\W*$"
    # "I forgot that": what was forgotten is only pointed at, so nothing is told
    r"|^(?:(?:sorry|oh|oops|ok|okay|hmm|um|uh|ah|well|wait)\W+)*"
    r"i\s+(?:(?:totally|completely|just|always|often|sometimes|still|keep)\s+)?forg[eo]t"
    r"\s+(?:about\s+)?(?:that|this|it)(?:\s+(?:every\s+time|all\s+the\s+time|again|always"
    r"|sometimes))?\W*$"
    # "No wait.", "Hold on a sec": a slip noticed, before saying what it was
    r"|^(?:(?:no|oh|hmm+|um+|uh+)\W+)*(?:wait|h(?:old|ang)\s+on)(?:\s+(?:a|one)\s+"
    r"(?:sec(?:ond)?|minute|moment|mo))?\W*$"
    # "No wait, that's wrong.", "Sorry, my mistake": a slip noticed, what it was unsaid
    r"|^(?:(?:no|nope|oh|oops|w?hoops|sorry|hmm+|um+|uh+|wait|h(?:old|ang)\s+on)\W+)*"
    r"(?:(?:that|this|it)(?:['’]s|\s+(?:is|was))\s+(?:(?:all|so|totally|completely)\s+)?"
    r"(?:wrong|incorrect|not\s+(?:right|correct)|an?\s+(?:typo|mistake|slip))"
    r"|my\s+(?:mistake|bad)|i(?:['’]m|\s+(?:am|was))\s+(?:wrong|mistaken))\W*$"
    # "I meant it": insisting on what was said, which it only points at
    r"|^(?:(?:no|oh|well)\W+)*i\s+(?:(?:really|truly|honestly)\s+)?meant?\s+it"
    r"(?:,?\s+(?:really|seriously))?\W*$"
    # "Thanks a lot for nothing": thanks for anything, as an apology for anything, but
    # for what states something ("Thanks for reminding me I'm allergic to peanuts")
    r"|^(?:many\s+)?(?:thanks|thank\s+you|thx|ty)(?:\s+(?:so|very)\s+much|\s+a\s+(?:lot|bunch"
    rf"|ton))?(?:\s+again)?\s+for\b(?!{_STATES}){_TO_CLAUSE_END}\W*$",
    re.IGNORECASE | re.DOTALL)

#: Where a clause of the speaker's own opens ("I'm back, and I moved to Porto", "I'm back -
#: I moved to Porto"); the separator is kept, so the clauses left are joined as they were
#: said.
_SPEAKERS_OPENING = r"(?=(?:i|i['’](?:m|ve|d|ll)|my|we)\b)"
#: A dash between clauses: spaced, or typed with none ("the delay—I was sick"); a hyphen
#: with none only before a capital "I" ("the delay-I was sick"), as words joined by one
#: ("well-my") are more often one word than two clauses.
_DASH = r"\s[-–—]|(?<=\w)[–—]|(?<=\w)-(?=(?-i:I)(?:\b|['’]))"
_OWN_CLAUSE = re.compile(
    rf"(\s*(?:[,;]|{_DASH})\s*(?:(?:and|but|so)\s+)?|\s+(?:and|but|so)\s+){_SPEAKERS_OPENING}",
    re.IGNORECASE)
#: An aside that, after a statement, qualifies it: "I moved to Berlin but I'm back" says the
#: speaker came back from there, "I'm allergic to penicillin, but I'm not sure" doubts it.
#: Said of the speaker as the fact tells it too ("User is back").
_QUALIFIER = re.compile(
    r"^(?:i(?:['’]?m|\s+am)|user\s+is)\s+(?:(?:still|just|really|so)\s+)*"
    r"(?:back|not\s+(?:sure|certain))(?:\s+(?:now|again|yet|though|anyway|about\s+(?:that"
    r"|this|it)))*\W*$", re.IGNORECASE)
#: A doubt said before a statement, of it: "I'm not sure, but I think my wife is vegan".
_DOUBT = re.compile(r"^i(?:['’]?m|\s+am)\s+(?:(?:still|just|really)\s+)*not\s+(?:sure|certain)"
                    r"(?:\s+yet)?\W*$", re.IGNORECASE)
#: An apology for what the clause after it says: "I'm so sorry (that) I missed the standup".
_SORRY_THAT = re.compile(
    r"^i(?:['’]?m|\s+am)\s+(?:(?:so|really|very|truly|terribly)\s+)*sorry\s+(?:that\s+)?"
    + _SPEAKERS_OPENING, re.IGNORECASE)

#: "(Sorry,) I meant (to say) X": what X is follows.
_MEANT = re.compile(
    r"^\W*(?:(?:sorry|oops|whoops|oh|no|nope|wait|h(?:old|ang)\s+on|um+|uh+|hmm+|my\s+bad|correction|actually)\b[\s,:;!.–—-]*)*"
    r"i\s+meant(?:\s+to\s+(?:say|write|type))?\s*[:,]?\s+(?P<meant>\S.*?)\W*$",
    re.IGNORECASE | re.DOTALL)
#: "It's X" after a slip noticed ("Sorry, it's 4321", "Wait, it's Porto", "No, it's hunter3
#: actually") or said to be so now ("It's hunter3 now"): X is what was meant, as in "Sorry,
#: I meant 4321"; stored as said, "It's 4321" stood beside the PIN.
_MEANT_IT = re.compile(
    r"^\W*(?:(?P<slip>(?:(?:sorry|oops|whoops|no|nope|oh|actually|wait|h(?:old|ang)\s+on"
    r"|my\s+bad|correction)\b[\s,:;!.–—-]*)+)|(?=it\S*\s+(?:is\s+)?now\s|.*\bnow\W*$))"
    r"it(?:['’]s|\s+is)\s+(?:now\s+|actually\s+)?(?P<meant>\S.*?)"
    r"(?:,?\s+(?:now|actually|instead))?\W*$", re.IGNORECASE | re.DOTALL)
#: "It's not X" after a slip noticed ("Sorry, it's not 4321", "Wait, it isn't Porto", "Err,
#: it's not Porto"): what X is not, with nothing said of what is so; stored as said, "It's
#: not 4321" denied nothing.
_NOT_IT = re.compile(
    r"^\W*(?:(?:sorry|oops|whoops|no|nope|oh|actually|wait|h(?:old|ang)\s+on|my\s+bad"
    r"|correction|err+|erm|um+|uh+|hmm+|well)\b[\s,:;!.–—-]*)+it(?:['’]s\s+not|\s+is\s+not|\s+isn['’]t)\s+"
    r"(?P<meant>\S.*?)\W*$", re.IGNORECASE | re.DOTALL)
#: What "it's" is after a slip noticed when it says how things are, not what was meant:
#: an hour or a day ("Sorry, it's 2am", "Wait, it's Monday") or a word on the thing ("Sorry,
#: it's OK"); a word in small letters ("it's late") is none either.
_NOT_MEANT_IT = re.compile(r"^(?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?|\d{1,2}:\d{2}|noon|midnight"
                           r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day|ok(?:ay)?|fine|alright"
                           r"|tmi|none|nothing|gone|over)$", re.IGNORECASE)
#: A name or a number: capitalized words or ones that hold a digit ("Porto", "4321",
#: "hunter3").
_VALUE_WORD = r"(?:[A-Z\d][\w'’.@/-]*|[\w'’.@/-]*\d[\w'’.@/-]*)"
_MEANT_IT_VALUE = re.compile(rf"^{_VALUE_WORD}(?:\s+{_VALUE_WORD})*$")
#: Or, after a slip noticed ("No, it's hunter 3"), a word in small letters and a number after
#: it ("hunter 3", "room 5"), a name said in two parts; not one that says where, when or how
#: near ("at 5", "in 2", "almost 5").
_MEANT_IT_TWO_PARTS = re.compile(
    r"^(?!(?:at|in|on|by|for|to|from|about|around|after|before|until|till|under|over|past"
    r"|like|just|only|not|almost|nearly|maybe|perhaps|probably|possibly|exactly|roughly"
    r"|approximately|still|also|already|even|due|up|down|again|back)\s)[a-z]+\s+\d+$")
#: Words that make what follows "I meant" a clause or an explanation ("I meant it", "I
#: meant that I live in Portland", "I meant Bob is on call") or name what it corrects ("not
#: Seattle", "rather than", "instead of"), not a slip's word alone.
_MEANT_MORE = frozenset({
    "it", "that", "this", "what", "to", "well", "nothing", "everything", "you", "him", "her",
    "them", "us", "me", "myself", "so", "as", "i", "we", "he", "she", "they", "my",
    "is", "are", "was", "were", "am", "be", "has", "have", "had", "do", "does", "did",
    "will", "would", "can", "could", "should", "not", "rather", "instead", "never",
})
#: A thing of the speaker's named bare ("my brother", "my brother's car", "our dog Rex"),
#: no clause ("my brother is Tom").
_MINE_BARE = re.compile(r"(?:my|our)(?:\s+(?!(?:is|are|was|were|has|have|had|does|did)\b)"
                        r"[\w'’-]+){1,3}", re.IGNORECASE)
#: The most words of a slip's correction: a word or a name, not a clause.
_MAX_MEANT_WORDS = 5


def is_heading(sentence: str) -> bool:
    """Whether ``sentence`` introduces what follows (it ends with a colon, quotes aside)
    rather than stating something; an emoticon's colon (":)") is not one."""
    return sentence.strip().rstrip("\"'”’»」 ").endswith((":", "："))


def stops_short(text: str) -> bool:
    """Whether ``text`` stops before saying what it is about (module docstring)."""
    typed = _WORD.findall(text)
    words = [w.casefold().replace("’", "'") for w in typed]
    if not words or len(words) > MAX_CUT_OFF_WORDS or words[-1] not in _DANGLING:
        return False
    if typed[-1] == "A":  # "My blood type is A", "Building A": a name, not an article
        return False
    before = words[:-1]
    if any(w in _CLAUSE_OPENERS or w in _SECOND_HALF for w in before) or any(
            w in _PRONOUNS for w in before[1:]) or (
            words[-1] == "not" and _SAID_BEFORE_COMMA.match(text)):
        return False
    # "someone to talk to": an infinitive's "to" leaves its preposition at the end.
    return words[-1] not in _PREPOSITIONS or "to" not in before


def is_aside(text: str) -> bool:
    """Whether ``text`` only says how the speaker stands in the conversation (module
    docstring): "I'm sorry", "I'm confused", "I'm back"."""
    return _ASIDE.match(text.strip()) is not None


def qualifies(clause: str) -> bool:
    """Whether ``clause``, said after a statement, says how that statement holds rather
    than how the speaker stands in the conversation: "I'm back" (from where it says),
    "I'm not sure" (of it); "User is back" as a fact tells it."""
    return _QUALIFIER.match(clause.strip()) is not None


def doubted(text: str) -> bool:
    """Whether ``text`` opens with a doubt of the statement after it ("I'm not sure, but I
    think my wife is vegan"), which is the speaker's words whole, the doubt with them."""
    first, *rest = _OWN_CLAUSE.split(text.strip())
    return bool(rest) and _DOUBT.match(first) is not None


def without_doubt(text: str) -> str:
    """``text`` as read before a doubt that opens it was kept: without that doubt, the
    other asides left out as ever ("I think my wife is vegan" of "I'm not sure, but I
    think my wife is vegan"); ``text`` when no doubt opens it."""
    first, *rest = _OWN_CLAUSE.split(text.strip())
    if not rest or _DOUBT.match(first) is None:
        return text
    kept = without_asides("".join(rest[1:]))
    return kept[:1].upper() + kept[1:]


def corrects_nothing(text: str) -> bool:
    """Whether ``text`` only says what was meant by a slip it does not name ("Sorry, I
    meant Portland"; module docstring): with no fact to correct, it states none; nor does
    a thing of the speaker's named bare ("I meant my brother"), stored as "User's brother"."""
    return (meant_alone(text) is not None or meant_mine(text) is not None
            or denied_alone(text) is not None)


#: With no slip word, what counts how far things are ("It's day 3 now", "It's week 2 now")
#: tells how things are; "It's hunter 3 now" or "It's room 5 now" is still a value meant.
_COUNTED = re.compile(r"^(?:day|week|month|year|hour|minute|level|page|chapter|step|stage"
                      r"|phase|part|round|season|episode|sprint|lap|grade)\s", re.IGNORECASE)


def _value_meant(meant: str, *, slip: bool) -> bool:
    """Whether ``meant``, what "it's" is, is a value that was meant, not how things are."""
    return not _NOT_MEANT_IT.match(meant) and bool(
        _MEANT_IT_VALUE.match(meant)
        or (_MEANT_IT_TWO_PARTS.match(meant) and (slip or not _COUNTED.match(meant))))


def denied_alone(text: str) -> str | None:
    """The value ``text`` says something is not after a slip noticed ("4321" of "Sorry,
    it's not 4321"), naming nothing it is said of, or None: it states no fact."""
    match = _NOT_IT.match(text.strip())
    if match is None or not _value_meant(match["meant"], slip=True):
        return None
    return match["meant"]


def meant_mine(text: str) -> str | None:
    """The thing of the speaker's ``text`` names bare as meant ("my brother" of "Sorry, I
    meant my brother"), or None."""
    match = _MEANT.match(text.strip())
    return match["meant"] if match and _MINE_BARE.fullmatch(match["meant"]) else None


def meant_alone(text: str) -> str | None:
    """What ``text`` says was meant ("Portland" of "Sorry, I meant Portland") when it names
    no slip it corrects (``corrects_nothing``), else None: the reply asks for the slip."""
    match = _MEANT.match(text.strip())
    if match is None:
        it = _MEANT_IT.match(text.strip())
        if it is None or not _value_meant(it["meant"], slip=it["slip"] is not None):
            return None
        match = it
    words = [w.casefold().replace("’", "'") for w in _WORD.findall(match["meant"])]
    if (0 < len(words) <= _MAX_MEANT_WORDS
            and not any(w in _MEANT_MORE or w.endswith("n't") for w in words)):
        return match["meant"]
    return None


#: "No, X": a word or two said in place of another with no "I meant" ("No, pgcat.", "No
#: wait, coffee.", "Hold on, 31."); after "Sorry," only a number ("Sorry, 31."), as "Sorry,
#: Tom" speaks to Tom.
_NO_THEN = re.compile(r"^\W*(?:(?:no|nope)(?:\s+wait)?|wait|h(?:old|ang)\s+on|w?hoops|oops"
                      r"|(?P<sorry>sorry))\s*[,:;–—-]\s*"
                      r"(?P<meant>[^\W_](?:[\w.+#-]*[\w+#])?(?:\s+[\w.+#-]*[\w+#]){0,2})\W*$",
                      re.IGNORECASE)
#: What follows "No," as an answer, not a word put in place of another ("No, thanks").
_NO_ANSWER = frozenset({"thanks", "thank", "problem", "worries", "way", "idea", "sorry",
                        "please", "yes", "no", "ok", "okay", "fine", "wait", "really", "sir",
                        "maam", "none", "nobody", "nowhere", "not", "never", "just", "all",
                        "nothing", "seriously", "honestly", "actually", "absolutely",
                        "definitely", "certainly", "kidding", "joking", "rush", "hurry",
                        "ahead", "thx", "nah", "good", "great", "cool", "everyone",
                        "everybody", "guys", "folks", "mate", "second", "minute", "moment"})


def no_then(text: str) -> str | None:
    """X of "No, X" said alone ("pgcat" of "No, pgcat.", "31" of "No wait, 31."), a word or
    name that may be put in place of a slip it does not name; None for an answer ("No,
    thanks") or a clause."""
    match = _NO_THEN.match(text.strip())
    if match is None:
        return None
    words = [w.casefold() for w in _WORD.findall(match["meant"])]
    if not words or any(w in _MEANT_MORE or w in _NO_ANSWER for w in words) or (
            match["sorry"] and not any(c.isdigit() for c in match["meant"])):
        return None
    return match["meant"]


def without_asides(text: str) -> str:
    """``text`` without the asides among its own clauses or an apology before what it
    says (module docstring); "" when all of it is an aside, ``text`` when none is."""
    unsorry = _SORRY_THAT.sub("", text.strip(), count=1)
    split = _OWN_CLAUSE.split(unsorry)
    said: list[tuple[str, str]] = []
    for joint, clause in zip(["", *split[1::2]], split[0::2], strict=True):
        # "I'm back" after a statement says how it holds; before one, or alone, it is an
        # aside like any other, as an apology or "I'm confused" stays one beside it. A
        # doubt before one doubts it, as one after it does.
        if (not is_aside(clause) or (said and qualifies(clause))
                or (not said and len(split) > 1 and _DOUBT.match(clause))):
            said.append((joint, clause))
    if not said:
        return ""
    if unsorry == text.strip() and 2 * len(said) - 1 == len(split):
        return text
    kept = said[0][1] + "".join(joint + clause for joint, clause in said[1:])
    return kept[:1].upper() + kept[1:]
