"""How a request to forget opens, said to the assistant: the courtesies and wishes before
"forget" ("Please", "I want you to"), asking not to be remembered ("Stop remembering that
..."), and a request that names what to forget ("Forget my sister", "Delete my address").
What such a request then asks is memory/text/forget_requests.py's.
"""

from __future__ import annotations

import re

from tiermem.memory.text.secret_names import names_a_secret

__all__ = ["FORGET_NAMED", "FORGET_OPENING", "FROM_ELSEWHERE", "MATE", "NOT_KEPT", "THANKS",
           "WHAT_I_SAID", "places_apart"]

_I = re.IGNORECASE
_APOS = "['’]"

#: The words that may open a request to forget before "forget" itself.
FORGET_OPENING = (r"^\W*(?:(?:oh|ok(?:ay)?|please|pls|just|actually|sorry|no\s+worries"
                   r"|never\s*mind|no\s+problem|no"
                   # a slip noticed ("No wait, forget that"): read as a statement, the
                   # request was lost and the value it took back kept
                   r"|wait|hold\s+on|oops|whoops|hmm+|um+|uh+|ah"
                   # an acknowledgement of the reply, as a statement may open with one
                   # ("Thanks, ...")
                   r"|thanks|thank\s+you|thx|cheers|great|cool|nice|perfect|awesome|got\s+it"
                   r"|sounds\s+good"
                   # who it is said to ("Cheers mate, forget my PIN"): read as what opens a
                   # statement, the request was stored as one, and the PIN kept
                   r"|mate|buddy|pal|dude|bro"
                   # asked as a wish ("I want you to forget my password")
                   r"|i\s+(?:want|need)\s+you\s+to"
                   rf"|i{_APOS}d\s+like\s+you\s+to)\b[\s,!]*)*")
#: Asking not to be remembered is asking to forget ("Stop remembering that I work at
#: Globex", "I don't want you to remember where I work", "Don't store my address"): only
#: at the start and said to the assistant, since "I don't remember my PIN" asks nothing.
NOT_KEPT = (rf"(?:(?:i\s+)?(?:don{_APOS}?t|do\s+not)\s+want\s+you\s+to\s+"
             r"(?:remember|keep|store|save)"
             rf"|(?:don{_APOS}?t|do\s+not|never)\s+(?:remember|keep|store|save)"
             r"|stop\s+(?:remembering|keeping|storing|saving))\s+")

#: What the speaker just said, named as such ("what I just said"): "that", as it points.
WHAT_I_SAID = r"what\s+i\s+(?:just\s+)?(?:said|told\s+you|wrote)"

#: Where or how a file is to be saved ("Stop saving my report to the desktop", "Never
#: store my password in plain text"): an instruction about files, not about memory. Only
#: a place files go counts ("in Dropbox", "in /tmp"): "Stop remembering my trip to Paris"
#: and "Don't keep my address on file" still ask to forget.
_KEPT_WHERE = (r"[^,;.!?]*\s(?:to|in|into|on|onto|as|under)\s+(?:(?:the|my|our|a|an)\s+)?"
               r"(?:desktop|disk|drive|folder|directory|clipboard|downloads|documents"
               r"|plain\s*text|clear\s*text|(?<=a\s)file|(?<=the\s)file|pdf|csv|json|txt"
               r"|[\w-]+\.[a-z]{2,4}|dropbox|google\s+drive|icloud|one\s*drive|s3|bucket"
               r"|git(?:hub)?|repo(?:sitory)?|~?/[\w.-]*\w)\b")


#: A request that opens by naming what to forget ("Forget my sister", "Forget about the
#: deploy freeze", "Forget Tom", "Please delete my address"): only at the start, where it
#: is said to the assistant, since "My wife will forget my birthday" asks nothing of it.
#: "delete", "erase" and "remove" ask only of what is the speaker's and not from elsewhere:
#: "Remove the cache before deploying" and "Remove my phone number from the invoice" are tasks.
#: A character of a clause, where a dot inside a word ("a@b.com") does not end it: read as
#: an end, "Remove my email a@b.com from the CRM" lost the CRM and forgot the email held.
#: Nor does one before a word in lower case ("3 Oak St. from the CRM"): read as an end, the
#: CRM was lost and the address held forgotten.
_IN_CLAUSE = r"(?:[^,;.!?]|\.(?=\w|\s+(?-i:[a-z])))"
#: An app named after memory's words ("my notes app") is the speaker's, not memory: read
#: as memory, "Delete my seed phrase ... from my notes app" forgot the phrase held.
_IN_MEMORY = (r"(?:your\b|(?:(?:the|my)\s+)?(?:memory|mind|head|notes|database|system"
              r"|records?|files?)\b(?!\s+(?:app|application)s?\b))")
#: Memory named with no "from" before it, in words that name nothing else ("memory",
#: "your notes").
_MEMORY_ALONE = r"(?:(?:your|the|my)\s+)?(?:memory|mind|head|notes|database|records?)"
#: Who a request is said to, closing it (", mate"), or the thanks (", cheers mate").
MATE = r"(?:mate|buddy|pal|dude|bro)\b"
#: Thanks closing a request, however warm: "so much", "many" or "for your patience" left
#: behind was read as words of what to forget, and the request matched nothing. Whatever
#: follows "for your" is thanked for, never forgotten; "thanks for the team" may be a task.
#: "cheers", "tyvm", and "ty" or "ta" typed lower case, are thanks too: left behind,
#: "Forget my PIN ty" matched no PIN. Capitalized, or named right after "forget", "about",
#: "from" or "and" ("Forget ty"), "ty" may be a name.
_NAMED_NEXT = (r"(?<!\bforget\s)(?<!\bdelete\s)(?<!\bremove\s)(?<!\berase\s)(?<!\babout\s)"
               r"(?<!\bfrom\s)(?<!\band\s)")
THANKS = (r"(?:(?:many\s+)?thanks|thank\s+you|thx|cheers|tyvm"
          rf"|{_NAMED_NEXT}(?-i:ty|ta)\b)"
          r"(?:\s+(?:so\s+much|very\s+much|a\s+lot|a\s+bunch|a\s+ton|heaps|loads"
          r"|a\s+million|again))?"
          r"(?:\s+for\s+(?:everything|(?:all\s+)?(?:that|this)|(?:all\s+)?the\s+help"
          r"|(?:all\s+)?your\s+[^,;.!?]*))?"
          rf"(?:,?\s+{MATE})?")
#: How a request may close ("!", ", please"): read as part of the place, "... from the
#: shared doc, please" was no task on it, and the secret it gave was stored.
_COURTESY_END = rf"(?:,?\s+(?:please|pls|{THANKS}))*\W*"
#: A place other than memory a thing is deleted from, later in the clause ("... from the
#: invoice"): the request is a task on it.
FROM_ELSEWHERE = rf"{_IN_CLAUSE}*\s(?:from|off|out\s+of)\s+(?!{_IN_MEMORY})"
FORGET_NAMED = re.compile(
    FORGET_OPENING + rf"(?:forget\s+(?!(?:about\s+)?(?:that|it|this)\b|{WHAT_I_SAID}\W*$)"
    r"(?:(?:all\s+|everything\s+)?about\s+"
    # "Forget what I said about Tom" names Tom, not what was said
    rf"|(?:what|everything|all)\s+(?:(?:i|we)(?:{_APOS}ve)?\s+(?:said|told\s+you|mentioned)"
    r"|you\s+know)\s+about\s+(?!(?:that|it|this)\b))?(?=\w)"
    rf"|(?:delete|erase|remove)\s+(?=(?:my|our)\s+\w)(?!{FROM_ELSEWHERE})"
    rf"|{NOT_KEPT}(?:(?=(?:my|our)\s+\w)(?!{_KEPT_WHERE})"
    r"|(?=(?:that|where|what|who|when|how)\s+(?:i|my|we|our)\b)))",
    _I)


#: A request to delete a thing from memory and from a place of the speaker's ("Delete my
#: address from memory and from the CRM"), in either order.
#: The second may be memory with no "from" of its own ("from the shared doc and memory"):
#: read as one place, the password went on being held. After memory, "the ..." is the
#: other place ("from memory and the shared doc"): read as a thing, "Delete the shared
#: doc" was kept as the task.
_TWO_PLACES = re.compile(
    FORGET_OPENING + rf"(?P<request>(?:delete|erase|remove)\s+(?:my|our)\s+\w{_IN_CLAUSE}*?)"
    rf"\s+(?P<first>from\s+{_IN_CLAUSE}+?),?\s+and\s+(?:also\s+)?"
    rf"(?P<second>from\s+{_IN_CLAUSE}+?|{_MEMORY_ALONE}|the\s+{_IN_CLAUSE}+?)"
    rf"(?P<end>{_COURTESY_END})$", _I)
_FROM_MEMORY = re.compile(rf"^from\s+{_IN_MEMORY}", _I)
#: A word that is a value, not a name of the thing: a number, code or email ("hunter2",
#: "555-0101", "a@b.com").
_A_VALUE_WORD = re.compile(r"[\d@]")
#: A thing whose value is the user's own to reach or find them by ("my address 3 Oak St."):
#: kept in a task as said, it stayed held where the user wanted it gone.
#: So is one that identifies them ("my SSN 123-45-6789", "my IBAN GB29...").
_CONTACT_WORD = re.compile(r"^(?:address|e-?mail|phone|mobile|cell|number|ssn|iban|postcode"
                           r"|zip|birthday|birthdate|dob|birth)$", _I)
#: A month, which opens a date given of a birthday ("my birthday May 3"): cut at the day,
#: the task kept "May".
#: Only a month's name or its short form: "decorations" and "junk" named no month, and
#: "my birthday decorations photo" was cut to "my birthday".
_MONTH = re.compile(r"^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?"
                    r"|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?"
                    r"|dec(?:ember)?)[.,]?$", _I)
#: A word before an email that makes it another's ("my note about bob@z.com"): cut at it,
#: the task was "Remove my note about from the CRM".
_OF_ANOTHER = re.compile(r"^(?:about|to|for|from|with|cc|by|re:?)$", _I)
_BIRTH_WORD = re.compile(r"^(?:birthday|birthdate|dob|birth)$", _I)


#: A word after a secret's name that names another thing with it ("my password manager",
#: "my PIN pad") or the rest of its name ("my secret key"), not the secret's value: cut
#: there, the task named only the password, or "my AWS secret" for the key.
_NAMES_WITH_IT = re.compile(r"^(?:manager|vault|hint|reset|policy|pad|code|field|prompt"
                            r"|generator|file|list|entry|key|token|phrase|number)$", _I)
#: Words that only lead up to the value left out ("my card ending 4242", "my PIN as 1234",
#: "my address at 3 Oak St.": left in, the task was "Remove User's address at from ...").
_LEADING_TO_IT = re.compile(r"(?:\s+(?:ending|in|with|as|of|is|at|on|=|:))+$", _I)


def _words_of(request: str) -> list[str]:
    """``request``'s words, a colon closing one a word of its own: "password:" was no
    secret's name, and "Delete my password: swordfish from the wiki" stored the password."""
    return re.sub(r"(?<=\w):(?=\s)", " :", request).split()


_ADDRESS_WORD = re.compile(r"^address$", _I)
#: What closes a street's name ("St.", "Road").
_STREET_WORD = re.compile(r"^(?:st|street|rd|road|ave|avenue|lane|ln|blvd|boulevard|drive|dr"
                          r"|way|court|ct|place|pl|terrace|close|crescent)\.?$", _I)


def _a_street_named(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` opens the name of a street after an address named before it
    ("Oak" of "my address on Oak St."): kept, the task held where the user lives."""
    return (words[at][:1].isupper() and any(map(_STREET_WORD.match, words[at + 1:at + 4]))
            and any(map(_ADDRESS_WORD.match, words[:at])))


def _a_date_of_birth(words: list[str], at: int) -> bool:
    """Whether ``words[at]`` is a month opening the date of a birthday named before it."""
    return _MONTH.match(words[at]) is not None and any(
        _BIRTH_WORD.match(word) for word in words[:at])


def _value_left_out(request: str) -> str:
    """``request`` up to the value it gives of the thing ("delete my password" of "delete
    my password hunter2"): the task kept for the other place held the secret the user had
    just asked memory to be rid of."""
    words = _words_of(request)
    for at in range(3, len(words)):
        # a secret named after another ("my SSH key passphrase") is the one meant: cut
        # at the first, the task named the key
        if (_A_VALUE_WORD.search(words[at]) or _a_date_of_birth(words, at)
                or _a_street_named(words, at)) or (
                names_a_secret(words, at - 1) and not _NAMES_WITH_IT.match(words[at])
                and not names_a_secret(words, at)):
            return _LEADING_TO_IT.sub("", " ".join(words[:at]))
    return request


#: A request to delete a secret from a place of the speaker's alone ("Delete my PIN 1234
#: from the CRM"): a task, yet no place to keep the value given.
_ONE_PLACE = re.compile(
    FORGET_OPENING + rf"(?P<request>(?:delete|erase|remove)\s+(?:my|our)\s+\w{_IN_CLAUSE}*?)"
    rf"\s+(?P<place>(?:from|off|out\s+of)\s+(?!{_IN_MEMORY}){_IN_CLAUSE}+?)"
    rf"(?P<end>{_COURTESY_END})$", _I)


#: The commas that set a value or a name apart ("my address, 5 Glass St., from the CRM",
#: "my cat, Tom, from the CRM"): read at them, the request forgot the address, or the cat,
#: from memory and kept no task.
_GIVEN_APART = re.compile(r"(?<=\w),\s+(?=[^,]+,\s+(?:from|off|out\s+of)\s)"
                          r"|(?<=[\w.]),\s+(?=(?:from|off|out\s+of)\s)", _I)
#: A remark set apart by commas there, no value or name of the thing ("my car, sadly, from
#: the insurance", "my car, which I sold, from ..."): read in, the task held "car sadly".
_REMARK_APART = re.compile(r"(?<=\w),\s+(?:(?-i:[a-z]+ly)|please|(?:which|who|that|now)\s[^,]+)"
                           r",\s+(?=(?:from|off|out\s+of)\s)", _I)


def _apart(sentence: str) -> str:
    """``sentence`` read past the commas that set a value, a name or a remark apart before
    where it is deleted from, the remark left out."""
    return _GIVEN_APART.sub(" ", _REMARK_APART.sub(" ", sentence.strip(), count=1), count=2)


def _as_task(request: str, place: str, end: str) -> str:
    """The task of deleting ``request`` from ``place``, with no courtesy before it: opened
    with "Please", it was read as a request to the assistant and no task was kept."""
    return f"{request[:1].upper()}{request[1:]} {place}{end or '.'}"


def _secret_left_out(sentence: str) -> str:
    """``sentence`` without the secret it gives, when it deletes one from a place that is
    not memory: kept as the task it is, it stored the PIN the user wanted gone from there."""
    task = _ONE_PLACE.match(_apart(sentence))
    if task is None:
        # "Remove my cat, sadly, from memory": read with its remark, no cat held matched
        told = _REMARK_APART.sub(" ", sentence.strip(), count=1)
        return told if told != sentence.strip() and FORGET_NAMED.match(told) else sentence
    words = _words_of(task["request"])
    # an email given is the user's to be reached by, whatever it is named ("my contact
    # details a@b.com"), not one a note or invite is about or to ("my reply to bob@z.com")
    if not any(names_a_secret(words, at) or _CONTACT_WORD.match(words[at])
               or ("@" in words[at] and not _OF_ANOTHER.match(words[at - 1]))
               for at in range(len(words))):
        return _as_task(task["request"], task["place"], task["end"])
    return _as_task(_value_left_out(task["request"]), task["place"], task["end"])


def places_apart(sentence: str) -> list[str]:
    """``sentence`` as one request for each place it deletes a thing from: "Delete my
    address from memory and from the CRM" -> "Delete my address from memory.", "Delete my
    address from the CRM." Read whole, the CRM made it a task on something else: nothing
    was forgotten, and it was stored as said. Any other sentence is returned alone."""
    # "Delete my address, 3 Oak St., from the CRM and memory": read at its commas, no
    # place was seen, and memory kept the address
    apart = _apart(sentence)
    both = _TWO_PLACES.match(apart)
    if both is None:
        return [_secret_left_out(sentence)]
    places = [both["first"], re.sub(r"^(?!from\s)", "from ", both["second"], flags=_I)]
    in_memory = [_FROM_MEMORY.match(place) is not None for place in places]
    if in_memory.count(True) != 1:
        # "... from the CRM and from the ATM" is a task on both, holding no secret either
        return [sentence] if any(in_memory) else [_secret_left_out(sentence)]
    memory, elsewhere = places if in_memory[0] else places[::-1]
    lead = apart[:both.start("request")]
    return [f"{lead}{both['request']} {memory}.",
            _as_task(_value_left_out(both["request"]), elsewhere, both["end"])]
