"""A name given to one of another kind than the fact's ("a cat named Rex") is not the
fact's name: of "User has a dog named Rex", a note beside "I like dogs. Mine is a cat
named Rex." would tell of a dog the message never named. A word that is always one of the
fact's kind ("mutt", "puppy") names one of it."""

from __future__ import annotations

from tiermem.memory.ops.fact_said import says
from tiermem.memory.text.mine import kinds_named, opens_with_mine, same_kind
from tiermem.memory.text.wording import concepts

DOG = "User has a dog named Rex"

NAMING_ANOTHER_KIND = [
    "We both have a dog. Mine is a cat named Rex.",
    "I like dogs. Mine is a cat named Rex.",
    "I like dogs. I have a cat named Rex.",
    "I have a dog. My cat is named Rex.",
    "We both have a dog. Ours is a kitten named Rex.",
]
#: One of the fact's kind in another word, or the kind itself.
NAMING_ITS_KIND = {
    "Everyone has a dog. Mine is a mutt named Rex.": DOG,
    "My sister has a dog. Mine's a hound named Rex.": DOG,
    "Everyone has a dog. Mine is a puppy named Rex.": DOG,
    "I have a cat. My dog is named Rex.": DOG,
    "I like cats. I have a dog named Rex.": "User's dog is named Rex",
    "I have a cat named Rex.": "User has a cat named Rex",
    "I have a pet named Rex.": "User has a pet named Rex",
}


def test_a_name_given_to_another_kind_is_not_the_facts() -> None:
    stated = [said for said in NAMING_ANOTHER_KIND
              if says(said, DOG) or says(said, "User's dog is named Rex")]
    assert stated == []


def test_a_name_given_to_one_of_its_kind_is_the_facts() -> None:
    missed = [said for said, fact in NAMING_ITS_KIND.items() if not says(said, fact)]
    assert missed == []


def test_the_kind_a_name_is_given_to() -> None:
    assert kinds_named("Mine is a cat named Rex.") == {next(iter(concepts("Rex"))): "cat"}
    assert kinds_named("User's dog is named Rex") == {next(iter(concepts("Rex"))): "dog"}
    assert kinds_named("I met Anna.") == {}


def test_words_of_one_kind() -> None:
    assert same_kind("mutt", "dog") and same_kind("puppy", "dogs") and same_kind("cat", "pet")
    assert not same_kind("cat", "dog") and not same_kind("kitten", "dog")
    assert opens_with_mine("Mine is a mutt named Rex.", "Everyone has a dog.")
    assert not opens_with_mine("Mine is a mutt named Rex.", "Everyone has a cat.")
