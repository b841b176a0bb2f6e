"""The strategy lab for partnership Canasta (docs/studies/canasta.md): paired
experiments between rule-bot strategies on the tournament harness
(`paired.py`, `cardarena study canasta`), what happened in their hands
(`stats.py`, `cardarena study stats`), and players whose one decision class a
strategy makes while the shipped network makes the rest (`guided.py`)."""
