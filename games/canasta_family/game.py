"""What the OpenSpiel wrappers of the Canasta family share: the game type and
information every Canasta declares, and the observer's checks, table pieces and
strings. Each game's game.py declares its name, parameters and tensor layout
and registers itself."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

import numpy as np
import pyspiel

from games.canasta_family.cards import NUM_KINDS
from games.canasta_family.core import CanastaFamilyState


def game_type(short_name: str, long_name: str, min_players: int, max_players: int,
              parameters: Mapping[str, Any]) -> pyspiel.GameType:
    """A Canasta's pyspiel.GameType: sequential, explicit chance (every card drawn
    is a chance outcome), imperfect information, zero-sum returns at the end."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(parameters),
    )


def game_info(num_actions: int, players: int, max_swing: int, max_decisions: int) -> pyspiel.GameInfo:
    """A Canasta hand's pyspiel.GameInfo: a chance outcome is a card kind, and the
    returns, in thousands of points, are bounded by the game's largest swing."""
    return pyspiel.GameInfo(
        num_distinct_actions=num_actions,
        max_chance_outcomes=NUM_KINDS,
        num_players=players,
        min_utility=-max_swing / 1000.0,
        max_utility=max_swing / 1000.0,
        utility_sum=0.0,
        max_game_length=max_decisions)


class FamilyObserver:
    """The part of a Canasta observer every game shares: the checks of the
    observation type, the table pieces of the tensor (the observer's hand, the
    known cards and sizes of the hands, the stock and the pile) and the strings.
    Seats are relative to the observer (index 0 is the observer); counts are
    divided by 8 (the most cards of a kind), sizes by 108."""

    GAME_NAME: ClassVar[str]      # for the error messages
    # The index map of the table pieces (games/tensor_layout.py): each game's observer
    # spreads these into its TENSOR_SEGMENTS and TENSOR_AXES beside its own pieces.
    TABLE_AXES: ClassVar[dict[str, str]] = {
        "kind": "0-10: the natural ranks 4 5 6 7 8 9 10 J Q K A; 11: 2; 12: Joker; 13: red 3; 14: black 3",
        "seat": "seat counted from the observer: 0 itself, k the seat k numbers above it (mod players)",
        "side": "0: the observer's side, then the others in seat order",
        "one": "a single number"}
    TABLE_SEGMENTS: ClassVar[dict[str, tuple[str, str]]] = {
        "hand": ("kind", "own hand: cards of each kind / 8"),
        "known": ("seat x kind", "cards of each kind known to be in each hand (taken from the pile in sight) / 8"),
        "hand_sizes": ("seat", "each hand's number of cards / 108"),
        "stock_size": ("one", "cards in the stock / 108"),
        "pile": ("kind", "cards of each kind in the discard pile / 8"),
        "pile_top": ("kind", "the pile's top card, one-hot"),
        "pile_size": ("one", "cards in the pile / 108")}

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType, params: Mapping[str, Any] | None):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError(f"{self.GAME_NAME} has no all-players observer: hands are private")
        self.perfect_recall = iig_obs_type.perfect_recall
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.dict: dict[str, np.ndarray] = {}

    def table_pieces(self, players: int) -> list[tuple[str, int, tuple[int, ...]]]:
        """The (name, size, shape) pieces set_table fills, in the tensor's order but
        for the pieces a game puts between them."""
        return [("hand", NUM_KINDS if self.private else 0, (NUM_KINDS,)),
                ("known", players * NUM_KINDS, (players, NUM_KINDS)),
                ("hand_sizes", players, (players,)),
                ("stock_size", 1, (1,)),
                ("pile", NUM_KINDS, (NUM_KINDS,)),
                ("pile_top", NUM_KINDS, (NUM_KINDS,)),
                ("pile_size", 1, (1,))]

    def set_table(self, core: CanastaFamilyState, player: int) -> None:
        """Fills the table pieces from `player`'s view (the tensor already zeroed)."""
        d = self.dict
        n = core.n
        if self.private:
            d["hand"][:] = np.asarray(core.hands[player], np.float32) / 8.0
        for seat in range(n):
            rel = (seat - player) % n
            d["known"][rel] = np.asarray(core.known[seat], np.float32) / 8.0
            d["hand_sizes"][rel] = core.sizes[seat] / 108.0
        d["stock_size"][0] = core.stock_size / 108.0
        for kind in core.pile:
            d["pile"][kind] += 1.0 / 8.0
        if core.pile:
            d["pile_top"][core.pile[-1]] = 1.0
        d["pile_size"][0] = len(core.pile) / 108.0

    def string_from(self, state: Any, player: int) -> str:
        core: CanastaFamilyState = getattr(state, "core", state)
        if self.perfect_recall:
            return core.information_state_string(player, self.private)
        return core.observation_string(player, self.private)


__all__ = ["FamilyObserver", "game_info", "game_type"]
