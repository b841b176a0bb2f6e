"""The Canasta family: what Modern American Canasta and classic Canasta share,
written once, starting with the card kinds (games.canasta_family.cards). Each
game's package (games.modern_canasta, games.classic_canasta) keeps its
registration, its OpenSpiel wrapper and the rules that make it that game."""
