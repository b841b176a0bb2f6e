"""The strategy lab for partnership Canasta (docs/studies/canasta.md): paired
experiments between rule-bot strategies on the tournament harness
(`paired.py`, `cardarena study canasta`) and what happened in their hands
(`stats.py`, `cardarena study stats`)."""
