"""The card kinds under the modern game's name: the deck is the Canasta family's
(games.canasta_family.cards); the tools, views and tests that read the modern
game's cards import them from here."""

from games.canasta_family.cards import *  # noqa: F401,F403 (the family's kinds, re-exported)
