"""A customer-support agent: the customer's profile in core, last week's tickets in archival."""

from tiermem.scenarios.model import Day, Question, Scenario

SCENARIO = Scenario(
    name="customer-support",
    description=(
        "Customer support: what we know about the customer (plan, account manager, contract) "
        "stays in core; a week of tickets passes through core into archival and stays searchable."
    ),
    core_limit=80,
    days=(
        Day("monday", (
            "The customer account is Acme Corp.",
            "Acme is on the Enterprise plan.",
            "The account manager for Acme is Dana Scully.",
            "The contract with Acme renews every March.",
            "Ticket 4411: right now Acme sees duplicated invoices in the billing page.",
            Question("Which plan is the customer on?", "Enterprise"),
        )),
        Day("wednesday", (
            "Ticket 4412: the login page is timing out for Acme users today.",
            "Ticket 4413: currently the CSV export is missing the tax column.",
            "Ticket 4414: right now webhooks are delayed by five minutes.",
            Question("Which plan is the customer on?", "Enterprise"),
            Question("Who is the account manager for Acme?", "Dana Scully"),
        )),
        Day("friday", (
            "Ticket 4415: today the mobile app crashes on the invoices screen.",
            "Ticket 4416: right now two seats are locked after password resets.",
            Question("Who is the account manager for Acme?", "Dana Scully"),
        )),
    ),
    questions=(
        Question("Which plan is the customer on?", "Enterprise", tier="core"),
        Question("Who is the account manager for Acme?", "Dana Scully", tier="core"),
        Question("What was ticket 4411 about?", "duplicated invoices",
                 any_of=("archival", "recall"), present=False),
    ),
    durable_in_core=("Enterprise plan", "Dana Scully", "renews every March", "Acme Corp"),
    rotated_to_archival=("Ticket 4411", "Ticket 4412", "Ticket 4413"),
    not_in_core=("Ticket 4411",),
)
