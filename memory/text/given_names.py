"""Common first names, which name a person more likely than a band, a film or a thing.

"Blur too." after "I like Muse." names another band the user likes, but "Tom too." more
likely says that Tom likes Muse: a capitalised word alone tells a name from a thing only
when it is a first name this list knows (memory/text/ellipses.py). The list is short on
purpose: a name it misses is read as a thing, as any capitalised word was before it.
Pure functions over strings.
"""

from __future__ import annotations

__all__ = ["is_first_name"]

#: Lower case, as a word is compared folded.
_NAMES = """
    adam adrian aisha alan alex alexander alice alicia amelia amy ana andrea andrew andy
    angela anna anne anthony ben benjamin beth bill bob brian carl carla carlos carol
    caroline catherine charles charlie chloe chris christian claire daniel david diana
    diego dan dana ed edward elena eli elizabeth ella emily emma eric eva fatima frank
    gabriel george grace hannah harry helen henry hugo ian ines isabel jack jacob james
    jane jason jen jennifer jessica jim joe john jon jonathan jose joseph josh julia julie
    kate katie kevin laura leo liam linda lisa lucas lucy luis luke maria mark martin mary
    matt max maya mia michael mike nick nina noah olivia omar oscar paul pedro peter priya
    rachel raj rob robert ryan sam samuel sara sarah sofia sophie steve susan thomas tim
    tom tony victor will william zoe
"""
_FIRST_NAMES = frozenset(_NAMES.split())


def is_first_name(word: str) -> bool:
    """Whether ``word`` ("Tom") is a common first name."""
    return word.casefold() in _FIRST_NAMES
