"""How a position maps to a node of the search table.

The search walks from the root, so a node can be named relative to the root by
`path`, a running hash of the steps taken since (search.mcts). What else goes
into the key decides what the tree shares:

* `HistoryKeys` (PIMC, the cheating search): the exact history since the root,
  chance outcomes included. Perfect-information search in one world.
* `InformationKeys` (ISMCTS): an information state. Strings are what OpenSpiel
  keys by, but Page One's takes 30 µs to build, longer than a rollout step
  costs a hundred times over. A core that offers the fast path
  `private_view(player)` (games.protocol) is keyed instead by
  (path of public steps, acting player, private view): the path holds every
  player action and the fact, not the outcome, of each chance event, and the
  private view holds what the player knows beyond that (in Page One its hand and the trick count).
  Any other game is keyed by (player, information_state_string(player)).

`viewer` chooses whose information state keys a node:
* "acting" (default): the acting player's own, as the issue and OpenSpiel's
  ISMCTS do. An opponent's node is its information state in the determinization,
  so the opponent decides with what it would know there.
* "observer": the searching player's, for every node: Cowling, Powley and
  Whitehouse's single-observer ISMCTS proper. Opponents' nodes gather statistics
  across determinizations, and availability counts keep an action's statistics
  to the iterations where it was legal.
"""

from __future__ import annotations

from typing import Hashable

from games.protocol import GameState

VIEWERS = ("acting", "observer")


class HistoryKeys:
    """Nodes are histories since the root: perfect-information search."""

    reveal_chance = True

    def key(self, world: GameState, player: int, path: int) -> Hashable:
        return path


class InformationKeys:
    """Nodes are information states, of the acting player or of the searching one."""

    reveal_chance = False

    def __init__(self, root: GameState, observer: int | None = None):
        """`observer`: the seat whose information state keys every node ("observer"
        viewing), or None for the acting player's ("acting")."""
        self.observer = observer
        fast = getattr(type(root), "private_view", None) is not None
        self.key = self._fast_key if fast else self._string_key

    def _fast_key(self, world, player: int, path: int) -> Hashable:
        viewer = player if self.observer is None else self.observer
        return path, player, world.private_view(viewer)

    def _string_key(self, world, player: int, path: int) -> Hashable:
        viewer = player if self.observer is None else self.observer
        return player, world.information_state_string(viewer)
