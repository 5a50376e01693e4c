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

__all__ = ["is_first_name", "names_no_one", "pronoun_of_name"]

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
"""
_NO_ONES_NAMES = frozenset(_NO_ONES_WORDS.split())


def names_no_one(word: str) -> bool:
    """Whether ``word`` ("Complicated"), capitalised alone, more likely stresses a remark
    than names someone."""
    return word.casefold() in _NO_ONES_NAMES


def is_first_name(word: str) -> bool:
    """Whether ``word`` ("Tom") is a common first name."""
    return word.casefold() in _FIRST_NAMES


def pronoun_of_name(word: str) -> str | None:
    """The pronoun, "he" or "she", of ``word`` ("Tom", "Ana") when it is a common first name
    most often a man's or a woman's; None for any other word, or a name either's ("Sam")."""
    folded = word.casefold()
    return "he" if folded in _HIS else "she" if folded in _HERS else None
