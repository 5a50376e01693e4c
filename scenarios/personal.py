"""A personal assistant over three weeks: preferences and an allergy persist, an address changes."""

from tiermem.scenarios.model import Day, Question, Scenario

SCENARIO = Scenario(
    name="personal-assistant",
    description=(
        "Personal assistant across weeks: the user's name, allergy and preferences stay in core "
        "through a stream of passing states; a changed address supersedes the old one."
    ),
    core_limit=80,
    days=(
        Day("week 1", (
            "Hi! My name is Ada Lovelace.",
            "I'm allergic to peanuts.",
            "I prefer window seats on flights.",
            "My address is 3 Oak Avenue, Leeds.",
            "Right now I'm having coffee at the station.",
            "This morning I went for a run in the park.",
            Question("What is my address?", "3 Oak Avenue"),
            Question("What am I allergic to?", "peanuts"),
        )),
        Day("week 2", (
            "I'm stuck in traffic right now.",
            "Today I'm working from the library.",
            "At the moment I'm reading a novel about lighthouses.",
            "Tonight I'm cooking pasta with friends.",
            "Right now the train is delayed by ten minutes.",
            Question("What is my address?", "3 Oak Avenue"),
            Question("Which seat do I prefer on flights?", "window"),
        )),
        Day("week 3", (
            "I moved last weekend. My new address is 12 Elm Street, York.",
            "This afternoon I'm at the dentist.",
            "Right now I'm listening to a podcast about chess.",
            Question("What am I allergic to?", "peanuts"),
        )),
    ),
    questions=(
        Question("What am I allergic to?", "peanuts", tier="core"),
        Question("What is my address?", "12 Elm Street", tier="core", stale=("3 Oak Avenue",)),
        Question("Which seat do I prefer on flights?", "window", tier="core"),
        Question("What was I reading about?", "lighthouses", any_of=("archival", "recall"),
                 present=False),
    ),
    durable_in_core=("allergic to peanuts", "window seats", "12 Elm Street", "Ada Lovelace"),
    rotated_to_archival=("having coffee", "stuck in traffic", "novel about lighthouses"),
    not_in_core=("3 Oak Avenue", "stuck in traffic"),
)
