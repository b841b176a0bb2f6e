"""`cardarena play`: a table where a person plays the bots, with hints, reviews and records."""
