"""The Canasta family: what Modern American Canasta and classic Canasta share,
written once (the card kinds, the rules core's turn basics, meld table and
information, scoring figures, and the belief over the unseen cards). Each game's
package (games.modern_canasta, games.classic_canasta) keeps its registration, its
OpenSpiel wrapper and the rules that make it that game, as a subclass of
games.canasta_family.core.CanastaFamilyState."""
