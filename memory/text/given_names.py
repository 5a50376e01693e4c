"""Common first names, which name a person more likely than a band, a film or a thing.

"Blur too." after "I like Muse." names another band the user likes, but "Tom too." more
likely says that Tom likes Muse: a capitalised word alone tells a name from a thing only
when it is a first name this list knows (memory/text/ellipses.py). The list is short on
purpose: a name it misses is read as a thing, as any capitalised word was before it. It
says too whose a name most often is, so that the "she" of "Tom is tall. She's a doctor."
is not read as Tom (memory/text/pronoun_subjects.py).
Pure functions over strings.
"""

from __future__ import annotations

from tiermem.memory.text.relations import relation_of

__all__ = ["is_first_name", "names_another", "names_no_one", "pronoun_of_name"]

#: Lower case, as a word is compared folded: those most often a man's, most often a woman's,
#: and those either's ("Sam", "Alex", "Andrea").
_HIS_NAMES = """
    adam adrian alan alexander andrew andy anthony ben benjamin bill bob brian carl carlos
    charles christian daniel david diego dan ed edward eric frank gabriel george harry henry
    hugo ian jack jacob james jason jim joe john jon jonathan jose joseph josh kevin leo liam
    lucas luis luke mark martin matt max michael mike nick noah omar oscar paul pedro peter
    raj rob robert ryan samuel steve thomas tim tom tony victor will william
"""
_HERS_NAMES = """
    aisha alice alicia amelia amy ana angela anna anne beth carla carol caroline catherine
    chloe claire diana elena elizabeth ella emily emma eva fatima grace hannah helen ines
    isabel jane jen jennifer jessica julia julie kate katie laura linda lisa lucy maria mary
    maya mia nina olivia priya rachel sara sarah sofia sophie susan zoe
"""
_EITHERS_NAMES = "alex andrea charlie chris dana eli sam"
_HIS = frozenset(_HIS_NAMES.split())
_HERS = frozenset(_HERS_NAMES.split())
_FIRST_NAMES = _HIS | _HERS | frozenset(_EITHERS_NAMES.split())


#: Words a capital may stress that name no one ("it's Complicated", "it's Private"): where
#: a person is held, any other capitalised word alone after "it's" is read as a name.
_NO_ONES_WORDS = """
    complicated important private secret personal confidential sensitive classified
    irrelevant unimportant unknown unclear uncertain different same new old changed
    pending nobody noone none nothing someone somebody anyone anybody everyone everybody
    whoever whatever gone over done finished dead retired fired leaving away busy sick ill
    fine ok okay great good bad awful terrible horrible weird strange awkward tricky messy
    difficult hard easy complex serious true false wrong right correct obvious mine yours
    ours theirs me you him her them us it that this there here later soon now never always
    tomorrow today tonight yesterday tbd tba tbc
    yes yeah yep yup no nope nah thanks thank thx ta cheers sorry please hello hi hey bye
    goodbye oops well sure maybe late early lost broken stolen expired outdated obsolete
    tired moved ended sadly really his hers its
    hmm hm hmmm um umm uh uhh er erm eh ah ahh oh meh huh ugh dunno idk
"""
_NO_ONES_NAMES = frozenset(_NO_ONES_WORDS.split())
#: Capitalised words that name something other than a person: a month, a holiday, a
#: place or a firm ("It's London." of a boss held as Ann was stored as her new name), a
#: title alone or a pet name ("It's Sir.", "It's Hubby."); "It's Dr Smith." names him.
_OTHER_WORDS = """
    january february march april june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday christmas easter xmas
    london paris berlin rome madrid lisbon porto dublin leeds york manchester liverpool
    bristol glasgow edinburgh cardiff belfast oxford cambridge birmingham brighton
    amsterdam brussels vienna prague warsaw moscow tokyo beijing delhi mumbai boston
    chicago seattle toronto vancouver england scotland wales ireland france spain portugal
    italy germany canada mexico brazil india china japan australia europe america
    lyon marseille munich hamburg milan naples turin barcelona seville valencia zurich
    geneva oslo stockholm copenhagen helsinki athens istanbul cairo dubai singapore
    google apple amazon microsoft facebook meta netflix tesla
    sir madam madame maam mr mrs ms mx miss mister missus dr prof professor doctor lord
    lady dame captain chief coach officer sergeant reverend
    hubby wifey honey hon babe bae darling sweetie sweetheart dear dearest pal buddy
"""
_OTHER_NAMES = frozenset(_OTHER_WORDS.split())
#: How a word that is no name often ends: a state ("Outdated"), a manner ("Actually") or
#: a quality ("Hopeless", "Famous", "Unusable").
_NO_ONES_ENDINGS = ("ed", "ally", "tely", "ful", "less", "ous", "able", "ible", "ing", "ness")
#: First names that end as such a word does ("It's Alfred." of a boss held as Ann went
#: unstored, as "It's Expired." rightly does).
_NAMES_ALIKE_WORDS = """
    alfred mildred winifred wilfred manfred siegfried mohammed muhammed mohamed khaled
    rasheed waleed fareed hameed naveed majeed sterling irving channing
"""
_NAMES_ENDING_ALIKE = frozenset(_NAMES_ALIKE_WORDS.split())


def names_no_one(word: str) -> bool:
    """Whether ``word`` ("Complicated"), capitalised alone, more likely stresses a remark
    than names someone: so too a word ending as an adjective does ("Expired")."""
    folded = word.casefold().rstrip(".")
    return not is_first_name(folded) and (folded in _NO_ONES_NAMES or (
        len(folded) > 5 and folded.endswith(_NO_ONES_ENDINGS)
        and folded not in _NAMES_ENDING_ALIKE))


def names_another(word: str) -> bool:
    """Whether ``word``, capitalised alone, names what is no one's name: a day, a month, a
    place, a firm, someone's relation ("Mum"), or only a letter ("Z")."""
    folded = word.casefold().rstrip(".")
    return not is_first_name(folded) and (
        folded in _OTHER_NAMES or len(folded) < 2 or relation_of(folded) is not None)


def is_first_name(word: str) -> bool:
    """Whether ``word`` ("Tom") is a common first name."""
    return word.casefold() in _FIRST_NAMES


def pronoun_of_name(word: str) -> str | None:
    """The pronoun, "he" or "she", of ``word`` ("Tom", "Ana") when it is a common first name
    most often a man's or a woman's; None for any other word, or a name either's ("Sam")."""
    folded = word.casefold()
    return "he" if folded in _HIS else "she" if folded in _HERS else None
