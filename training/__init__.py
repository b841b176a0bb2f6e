"""Training: self-play data and the networks learnt from it (value and belief
networks here; the policy networks' training is still in agents/neural). The
bots never import this package: what they read is the files it writes."""
