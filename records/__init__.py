"""Game records: every game kept move by move, replayed exactly (`record.py`), and
the checks every command makes before it reads or writes a file (`files.py`).
Records depend on the games only, so the harness, the table, training and any
other program read and write them without one another."""
