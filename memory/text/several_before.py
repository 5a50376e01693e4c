"""Who a "they" opening a statement is, from the statement right before it.

"The servers are down. They restarted at 5pm.", "I work with Tom and Ana. They are on
call this week.", "I have two kids. They go to school in Porto.": the several said right
before are those a "they" goes on about. Read as no one, what was said of them was asked
about and lost. ``several_before`` says them as a subject, or None when that statement
says no one several, or several groups a "they" may be any of.
Pure functions over strings.
"""

from __future__ import annotations

import re

__all__ = ["each_of", "others_beside", "several_before"]

_I = re.IGNORECASE
#: A plural noun, not one ending in "s" of its own ("status", "boss", "analysis"), nor a
#: word of how or when: read as one, "The servers always crash. They are old." stored
#: "The servers always are old".
_PLURAL = (r"(?:(?!(?:always|sometimes|perhaps|nowadays|afterwards|besides|towards"
           r"|backwards|whereas|as|has|does|was|yes|ours|yours|theirs|hers|its)\b)"
           r"[a-z][\w-]*(?<![sui])s|children|people|men|women)")
#: What a plural subject is followed by: a verb, never another plural noun ("the read
#: replicas lag", not "the read"), a name or acronym ("the on call SRE"), nor "and"
#: ("My kids and Tom's kids", not "My kids").
_FOLLOWED_BY_VERB = (r"(?=\s+(?!(?:is|was|has|does|isn['’]t|wasn['’]t|hasn['’]t|doesn['’]t"
                     rf"|and|or)\b)(?!{_PLURAL}\b)(?-i:[a-z]))")
#: A verb said only after a plural subject, which ends it: "Tom and the on call engineer
#: are on it".
_SAID_OF_SEVERAL = (r"(?:are|were|have|had|do|did|will|would|can|could|should|must|may"
                    r"|might|aren['’]t|weren['’]t|haven['’]t|don['’]t|didn['’]t|won['’]t|can['’]t)")
_PLURAL_VERB = rf"(?=\s+{_SAID_OF_SEVERAL}\b)"
#: Where some are, said after them: "the servers in us-east-1".
_PLACE = r"\s+(?:in|on|at|of|from|near)\s+(?:the\s+)?[\w.-]+"
#: A verb said of one that ends in "s" as a plural does, and is seldom one: read as one,
#: "The server keeps crashing. They restarted." stored "The server keeps restarted", and
#: "The app crashes and the users are angry. They want refunds." "The app crashes and the
#: users want refunds".
_SAID_OF_ONE = (r"(?:keeps|seems|looks|stays|goes|gets|becomes|remains|appears|says|wants"
                r"|needs|tends|likes|loves|hates|knows|thinks|feels|sounds|means|makes|takes"
                r"|gives|comes|lives|works|tries|happens|uses|lets|puts|sees|shows|crashes"
                r"|fails|barks|breaks|hangs|freezes|dies|stops|starts|runs|loads|spikes|lags"
                r"|leaks|drops|rings|jams|spins|restarts|stalls|yells|cries|sleeps|times)")
#: What one of several is said as after "the", "my" or a name's: a few words up to a verb
#: ("the web server are"), or up to a plural noun or acronym and where they are ("the
#: worker pods", "the primary DB", "the servers in us-east-1"), or else the one word
#: (a verb said of one is no plural: "the app crashes and").
_WORD_OF_ONE = r"(?!(?:and|or)\b)[\w-]+"
_SAID_AS = (rf"(?:(?:{_WORD_OF_ONE}\s+){{0,3}}?{_WORD_OF_ONE}{_PLURAL_VERB}"
            rf"|(?:(?=[a-z]){_WORD_OF_ONE}\s+){{0,2}}?(?:(?!{_SAID_OF_ONE}\b){_PLURAL}"
            rf"|(?-i:[A-Z]{{2,}}s?))\b"
            rf"(?:{_PLACE}(?=\s*,|\s+and\s))?"
            r"|[a-z][\w-]*)")
#: One of several joined by "and": "my wife", "the worker pods", "Tom's kids", "Tom". Not
#: "I", which with another is "we".
_ONE_OF_SEVERAL = (rf"(?:(?:(?:my|our|the|his|her)|(?-i:[A-Z][a-z-]+)['’]s)\s+{_SAID_AS}"
                   r"|(?-i:[A-Z][a-z-]+)(?![\w'’]))")
_JOINED = rf"{_ONE_OF_SEVERAL}(?:\s*,\s*{_ONE_OF_SEVERAL})*,?\s+and\s+{_ONE_OF_SEVERAL}"
#: Where some are, followed by others joined to them: "The servers in the EU region and
#: the DB are down." is not said of the servers alone, whom a "they" after it was read as;
#: nor is "... and Redis", "... and two nodes". Another place ("in us-east-1 and
#: eu-west-1") joins no one.
#: A word of that place is no verb: "The pods in staging are down and the team is on it"
#: is said of the pods alone.
_WORD_OF_PLACE = rf"(?!(?:{_SAID_OF_SEVERAL}|\w+ed)\b)[\w.-]+"
_NOT_ONE_OF_SEVERAL = (rf"(?!\s+(?:in|on|at|of|from|near)\s+(?:{_WORD_OF_PLACE}\s+){{0,5}}?"
                       rf"{_WORD_OF_PLACE}(?:\s*,|\s+and\s+(?:(?:the|my|our|his|her|a|an|two"
                       r"|three|four|five|several|some|\d+)\b|(?-i:[A-Z]))))")
#: Said right after a plural, what a verb does to something, so that plural was one's
#: verb: "The analysis shows a leak", "The bot pings me".
_DONE_TO = r"\s+(?:a|an|him|me|us|them)\b"
#: A verb of the past without "-ed": "The server froze", "The CPU spikes hit 100%"; in
#: lower case only, as "Rose" or "Hung" is a name and "LED" a light.
_PAST = (r"(?-i:got|went|came|left|took|broke|fell|ran|hit|became|froze|hung|died|stuck|blew"
         r"|shut|quit|lost|sank|spun|burst|slept|woke|shook|tore|split|sent|made|said|told"
         r"|held|kept|felt|met|paid|built|caught|brought|sold|won|began|drove|rose|wrote"
         r"|spoke|stole|gave|ate|threw|grew|knew|flew|saw|sat|stood|led|hid|bit|shot|struck"
         r"|shrank|rang|sang|swam|drank)")
#: What happened to several, said right after them, so that they were no verb of one:
#: "The test runs failed.", "The CPU spikes lasted an hour", "The page loads got slower";
#: a closed list, as a word after one's verb may say how one is ("The container runs
#: privileged", "The page loads cached", "The report shows improved"); followed by no
#: thing of its own ("The script runs failed tests" is the script's doing).
_HAPPENED = (r"(?-i:failed|crashed|stopped|started|began|lasted|ended|finished|passed|broke"
             r"|hung|froze|died|fell|timed\s+out|got|took|went|kept|happened|continued"
             r"|changed|improved|slowed|increased|caused|fixed|woke)(?=\s*(?:[.!?,;]|$)"
             r"|\s+(?:[a-z]+ed|\d|a|an|the|it|me|us|them|him|her|my|our|his|their|on|in|at"
             r"|for|to|after|before|again|today|yesterday|last|this|every|all|worse|better"
             r"|slower|faster|well|badly|twice|once)\b)")
#: A verb of how one is, whose word after it says so, whatever it is: "The build shows
#: failed", "The status looks stopped", "The pod gets restarted".
_OF_HOW_ONE_IS = (r"(?:keeps|seems|looks|stays|goes|gets|becomes|remains|appears|sounds"
                  r"|feels|shows)")
#: Several as the subject opening a statement, before a verb not said of one ("The status
#: is red" is no several); a verb said of one after one's noun is no plural of it, unless
#: a verb said of several, or what happened to them, follows ("My needs are simple", "The
#: test runs failed"); right after "the" or "my" it is ("The shows start at nine", "Our
#: lives changed").
_OPENING = re.compile(
    rf"^\s*(?P<several>{_JOINED}|(?:the|my|our|these|those|both|all)\s+(?:the\s+)?"
    rf"(?:{_PLURAL}|(?:[a-z][\w-]*\s+){{1,2}}?"
    rf"(?!{_SAID_OF_ONE}\s+(?!{_SAID_OF_SEVERAL}\b|{_HAPPENED})"
    rf"|{_OF_HOW_ONE_IS}\s+(?!{_SAID_OF_SEVERAL}\b))"
    rf"{_PLURAL})(?!{_DONE_TO})){_FOLLOWED_BY_VERB}{_NOT_ONE_OF_SEVERAL}", _I)
#: A word of how one is or what one did, never part of what one of several is called:
#: "The web server crashed and the DB are ..." joins no "web server crashed", nor "The
#: server froze and the pods are down" a "server froze" to the pods.
_DID = (r"(?:is|was|has|had|does|did|its|his|her|their|seems?|looks?|keeps?|stays?|goes"
        rf"|gets?|remains?|down|up|out|off|back|over|again|too|now|still|already|{_PAST})")
#: One of several said in more than one word before "and" or a comma, ended by no
#: plural ("the web server", "the primary database"): read as only "the" and one word,
#: "The web server and the DB are down." said no one a "they" after it is.
_WORDED_ONE = (rf"(?:(?:my|our|the|his|her|(?-i:[A-Z][a-z-]+)['’]s)\s+"
               rf"(?:(?!{_DID}\b)(?![a-z]+(?<![sui])s\b)[\w-]+\s+){{1,2}}?"
               rf"(?!{_DID}\b)(?![a-z]+(?:ed|ing|ly|(?<![sui])s)\b)[\w-]+(?=\s*,|\s+and\s)"
               rf"|{_ONE_OF_SEVERAL})")
#: Several so said, the first ones worded, as a subject a verb said only of several
#: follows ("The web server and the DB are down").
_WORDED_OPENING = re.compile(
    rf"^\s*(?P<several>{_WORDED_ONE}(?:\s*,\s*{_WORDED_ONE})*,?\s+and\s+"
    rf"{_ONE_OF_SEVERAL}){_PLURAL_VERB}", _I)
#: A name's own said after another name ("Tom and Ana's kids"): the kids of both, or Tom
#: and the kids, whom a "they" after it may as well be.
_OWNED_BY_BOTH = re.compile(r"(?-i:[A-Z][a-z-]+),?\s+and\s+(?-i:[A-Z][a-z-]+)['’]s\b")
#: Several the user has: "I have two kids", "We've got a son and a daughter".
_HAD = re.compile(
    r"^\s*(?P<who>i|we)(?:\s+(?:also\s+)?(?:have|had)|['’]ve)\s+(?:got\s+)?"
    rf"(?:(?P<count>two|three|four|five|six|\d+)\s+(?P<plural>{_PLURAL})"
    r"|(?P<ones>an?\s+[a-z][\w-]*(?:\s*,\s*an?\s+[a-z][\w-]*)*,?\s+and\s+an?\s+[a-z][\w-]*))"
    r"\s*[.!]*\s*$", _I)
#: Names joined by "and" anywhere in a statement ("I work with Tom and Ana").
_NAMES_JOINED = re.compile(r"(?-i:[A-Z][a-z-]+)(?:\s*,\s*(?-i:[A-Z][a-z-]+))*,?\s+and\s+"
                           r"(?-i:[A-Z][a-z-]+)(?![\w'’])")
_CAPITALISED = re.compile(r"(?<![\w'’])(?-i:[A-Z][a-z-]+)")
#: Several things or people said anywhere in a statement ("the servers", "my kids").
_PLURAL_ANYWHERE = re.compile(
    rf"(?<![\w'’])(?:the|my|our|these|those)\s+(?:[a-z][\w-]*\s+){{0,2}}{_PLURAL}\b", _I)
_SAID_TO_BE = re.compile(r"\b(?:are|were)\s+$", _I)
#: Spans of time, said as plural nouns ("for the next two weeks") but never who a "they"
#: is: counted as another several, "Tom and Ana are on call for the next two weeks. They
#: know the DB." left out what they know.
_SPANS = frozenset({"seconds", "minutes", "hours", "days", "nights", "weeks", "weekends",
                    "months", "years", "mornings", "evenings"})
#: What parts the several of a subject: "The servers and the pods", "Tom, Ana and Sam".
_PARTED = re.compile(r"\s*,?\s+and\s+|\s*,\s*", _I)
_UNPLACED = re.compile(rf"{_PLACE}$", _I)
#: What puts a firm or a place after it, whose name is no one a "they" may be.
_PLACED = re.compile(r"(?:at|in|near|from|for|to|into)\s+$", _I)
#: How far before a name "at" or "are" is looked for: searched from the start, each name
#: of a long message rescanned all before it.
_REACH = 40


def several_before(sentence: str) -> str | None:
    """The several ``sentence`` says, as the subject of a statement after it ("The
    servers", "My kids", "Tom and Ana"); None when it says none, or more than one group."""
    if (opening := _OPENING.match(sentence) or _WORDED_OPENING.match(sentence)) is not None:
        return None if _OWNED_BY_BOTH.search(opening["several"]) else opening["several"]
    if (had := _HAD.match(sentence)) is not None:
        whose = "My" if had["who"].casefold() == "i" else "Our"
        if had["plural"]:
            return f"{whose} {had['plural']}"
        ones = re.split(r"\s*,?\s+and\s+|\s*,\s*", had["ones"])
        said = [f"{whose.casefold()} {one.split(None, 1)[1]}" for one in ones]
        return f"{said[0][:1].upper()}{said[0][1:]}" + "".join(
            f", {one}" for one in said[1:-1]) + f" and {said[-1]}"
    joined = list(_NAMES_JOINED.finditer(sentence))
    if len(joined) != 1:
        return None
    # Anyone else named may be among them: after "Sam met Tom and Ana." a "they" may be
    # all three.
    others = [name for name in _CAPITALISED.finditer(sentence)
              if name.start() > 0 and not joined[0].start() <= name.start() < joined[0].end()
              and not _PLACED.search(sentence, max(0, name.start() - _REACH), name.start())]
    first_word_a_name = sentence.lstrip()[:1].isupper() and not re.match(
        r"\s*(?:i|we|my|our|the|a|an)\b", sentence, _I) and joined[0].start() > 0
    return None if others or first_word_a_name else joined[0][0]


def others_beside(message: list[str], several: str) -> bool:
    """Whether ``message``, the statements of one message so far, says several other than
    ``several``, which the last of them says, that a "they" after it may as well be: after
    "The servers are down. Tom and Ana are on it." the "they" of "They restarted at 5pm"
    was read as Tom and Ana, and after "My parents visited Tom and Ana." that of "They
    live in Porto" as the parents."""
    # Each of the several is no other: "The servers and the pods are down." counted the
    # servers as another group beside the pods, and what was done to them all was lost.
    themselves = each_of(several)
    others = {found[0].split()[-1].casefold() for said in message
              for found in _PLURAL_ANYWHERE.finditer(said)} - _SPANS
    # Names said to be them ("My parents are Tom and Ana") are no others.
    others |= {found[0].split()[-1].casefold() for said in message
               for found in _NAMES_JOINED.finditer(said)
               if not _SAID_TO_BE.search(said, max(0, found.start() - _REACH), found.start())}
    others |= {group.split()[-1].casefold() for said in message[:-1]
               if (group := several_before(said)) is not None}
    return bool(others - themselves)


def each_of(several: str) -> set[str]:
    """The last word of each one ``several`` joins, casefolded: "The servers and the
    pods" is {"servers", "pods"}, "Tom, Ana and Sam" {"tom", "ana", "sam"}; where they
    are is not them ("the nodes in us-east-1" is "nodes")."""
    return {_UNPLACED.sub("", one).split()[-1].casefold()
            for one in _PARTED.split(several) if one}
