"""Evaluation: playing games between bots and summarising the results."""
