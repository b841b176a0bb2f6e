"""The lab's own tests: the research scripts' measures checked on set cases.

    python -m pytest experiments/tests

Apart from the product's suite (tests/), which imports nothing from experiments/ and
runs the research scripts only as commands (tests/test_research_scripts.py).
"""
