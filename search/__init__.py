"""Search agents on the game protocol: information-set MCTS, determinized search
(PIMC) and a cheating MCTS, written against our rules cores for speed and
working on any pyspiel game whose states can resample. docs/search.md describes
them; agents.make_bot builds them from specs such as `ismcts(iterations=1000)`."""
