"""A three-day production incident: durable facts stay in core, shell and log noise rotates."""

from tiermem.scenarios.model import Day, Question, Scenario

SCENARIO = Scenario(
    name="long-running-incident",
    description=(
        "Multi-day DevOps incident: the production region, on-call rotation, incident commander "
        "and SLA must stay in core while shell commands, log tails and pod states rotate "
        "through core into archival."
    ),
    core_limit=140,
    days=(
        Day("day 1", (
            "The production region is eu-west-1.",
            "The on-call rotation this week is Alice then Bob.",
            "The incident commander is Priya.",
            "The SLA for Acme is 99.95% uptime.",
            "Right now the api pod is restarting.",
            "$ kubectl get pods -n prod",
            "tail of the log: 12:03:55 ERROR upstream timeout from payments",
            "To mitigate we ran kubectl rollout undo deploy/api right now.",
            "The error rate is spiking at the moment.",
            Question("Which region is production?", "eu-west-1"),
        )),
        Day("day 2", (
            "$ kubectl describe pod api-7f9c -n prod",
            "tail of the log: 09:14:02 WARN connection pool exhausted",
            "Right now the database replica is lagging by 40 seconds.",
            "$ ssh bastion-1 -- uptime",
            "The canary deploy is running at the moment.",
            "tail of the log: 09:31:47 ERROR deadlock detected on orders",
            "$ grep -c timeout /var/log/api/app.log",
            "Currently the queue depth is 12000 messages.",
            Question("Which region is production?", "eu-west-1"),
            Question("Who is on call this week?", "Alice"),
        )),
        Day("day 3", (
            "$ kubectl top pods -n prod",
            "tail of the log: 16:02:11 INFO latency back to normal",
            "Right now the api pod is healthy again.",
            "$ kubectl scale deploy/api --replicas=6",
            "The cache hit rate is at 91% at the moment.",
            Question("Who is the incident commander?", "Priya"),
            Question("Who is on call this week?", "Alice"),
        )),
    ),
    questions=(
        Question("Which region is production?", "eu-west-1", tier="core"),
        Question("Who is on call this week?", "Alice", tier="core"),
        Question("Who is the incident commander?", "Priya", tier="core"),
        Question("What did we run to mitigate on day 1?", "rollout undo",
                 any_of=("archival", "recall"), present=False),
    ),
    durable_in_core=(
        "production region is eu-west-1",
        "on-call rotation",
        "incident commander is Priya",
        "SLA for Acme",
    ),
    rotated_to_archival=(
        "kubectl get pods",
        "api pod is restarting",
        "upstream timeout",
        "rollout undo",
    ),
    not_in_core=("kubectl get pods", "upstream timeout"),
)
