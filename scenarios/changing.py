"""A working week in which the user's facts keep changing: only the latest may be quoted as current.

Twenty-one updates, negations and corrections, phrased the ways people
phrase them ("I moved to", "now", "no longer", "not ... anymore",
"actually", "changed my X to", "my new X is", "My city is"), with the
questions about the present asked again after each change.
"""

from tiermem.scenarios.model import Day, Question, Scenario

HOME = "Where do I live?"
WORK = "Where do I work?"
PHONE = "What is my phone number?"
ALLERGY = "What am I allergic to?"
MANAGER = "Who is my manager?"
EMAIL = "What is my email?"
SEAT = "Which seat do I prefer on flights?"
COLOUR = "What is my favourite colour?"
DENTIST = "Who is my dentist?"
BAND = "What is my favourite band?"
GYM = "Which day do I go to the gym?"

SCENARIO = Scenario(
    name="changing-facts",
    description=(
        "Five days of moves, job changes, new numbers, retracted allergies and corrections: "
        "every question about the present is answered with the latest fact, never a replaced one."
    ),
    core_limit=150,
    days=(
        Day("monday", (
            "My name is Ines Duarte.",
            "I live in Lisbon.",
            "I work at Acme Robotics.",
            "My phone number is 555-0101.",
            "I'm allergic to peanuts.",
            "I'm allergic to shellfish.",
            "I am vegetarian.",
            "I prefer window seats on flights.",
            "My favourite colour is blue.",
            "My favourite band is Muse.",
            "Remember that my manager is Alice Moreira.",
            "My email is ines@old-mail.example.",
            "Remember that my dentist is Dr. Silva.",
            "Remember that I go to the gym on Mondays.",
            "Right now I'm waiting for the tram.",
            Question(HOME, "Lisbon"),
            Question(WORK, "Acme"),
            Question(ALLERGY, "peanuts"),
        )),
        Day("tuesday", (
            "I moved to Porto.",
            Question(HOME, "Porto", stale=("Lisbon",)),
            "Right now I'm unpacking boxes.",
            "I changed my phone number to 555-0199.",
            Question(PHONE, "555-0199", stale=("555-0101",)),
            "I'm not allergic to peanuts anymore, forget that.",
            Question(ALLERGY, "shellfish", stale=("peanuts",)),
            "Actually, I prefer aisle seats on flights.",
            Question(SEAT, "aisle", stale=("window",)),
            "Today I'm having lunch by the river.",
            Question(HOME, "Porto", stale=("Lisbon",)),
        )),
        Day("wednesday", (
            "I live in Braga now.",
            "I no longer work at Acme Robotics.",
            "I work at Globex now.",
            Question(WORK, "Globex", stale=("Acme",)),
            "My favourite colour is green now.",
            "My manager is Bruno Reis now.",
            "At the moment I'm stuck in a meeting.",
            Question(MANAGER, "Bruno", stale=("Alice",)),
            Question(HOME, "Braga", stale=("Lisbon", "Porto")),
            Question(ALLERGY, "shellfish", stale=("peanuts",)),
        )),
        Day("thursday", (
            "I now live in Coimbra.",
            "Sorry, my phone number is actually 555-0123.",
            "My new email is ines@new-mail.example.",
            "Actually, I work at Initech, not Globex.",
            "Right now I'm on the train to the office.",
            Question(PHONE, "555-0123", stale=("555-0101", "555-0199")),
            Question(EMAIL, "new-mail", stale=("old-mail",)),
            Question(WORK, "Initech", stale=("Acme", "Globex")),
            "My dentist is Dr. Costa now.",
            "I go to the gym on Thursdays now.",
            Question(HOME, "Coimbra", stale=("Lisbon", "Porto", "Braga")),
        )),
        Day("friday", (
            "My city is Faro.",
            "I'm not vegetarian anymore.",
            "My manager is actually Carla Nunes.",
            "Actually, my favourite band is Blur.",
            "My favourite colour is actually teal.",
            "This morning I'm packing for the weekend.",
            "I changed my email to ines@faro-mail.example.",
            "Right now I'm queueing for coffee.",
        )),
    ),
    questions=(
        Question(HOME, "Faro", stale=("Lisbon", "Porto", "Braga", "Coimbra")),
        Question(WORK, "Initech", stale=("Acme", "Globex")),
        Question(PHONE, "555-0123", stale=("555-0101", "555-0199")),
        Question(EMAIL, "faro-mail", stale=("old-mail", "new-mail")),
        Question(ALLERGY, "shellfish", stale=("peanuts",)),
        Question(SEAT, "aisle", stale=("window",)),
        Question(COLOUR, "teal", stale=("blue", "green")),
        Question(MANAGER, "Carla", stale=("Alice", "Bruno")),
        Question(DENTIST, "Costa", stale=("Silva",)),
        Question(BAND, "Blur", stale=("Muse",)),
        Question(GYM, "Thursdays", stale=("Mondays",)),
        Question(HOME, "Faro", stale=("Lisbon", "Porto", "Braga", "Coimbra")),
        Question("Where did I live before Porto?", "Lisbon", any_of=("archival", "recall"),
                 present=False),
    ),
    durable_in_core=("Ines Duarte", "Faro", "Initech", "555-0123", "faro-mail", "shellfish",
                     "aisle seats", "teal", "Carla Nunes", "Dr. Costa", "Blur", "Thursdays"),
    rotated_to_archival=("Lisbon", "peanuts", "waiting for the tram"),
    not_in_core=("Lisbon", "Porto", "Braga", "Coimbra", "Acme", "Globex", "555-0101",
                 "555-0199", "peanuts", "vegetarian", "window seats", "blue", "green", "Alice",
                 "Bruno", "Silva", "Muse", "old-mail", "new-mail", "Mondays"),
)
