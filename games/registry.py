"""The registry of games: what each game declares once, in its own package, for the floors above.

The rules cores and their OpenSpiel wrappers (games/<game>/) are all a search or a harness
needs. The table, `cardarena list`, the search's static values, the neural bots' symmetries
and the default tournament need more: a title, the parameters a player may choose (typed,
with their ranges and help), the match format, which seats are partners, what a seat sees,
the game's rule bot and its strongest measured bots. Each game states these once, in a
`GameEntry` registered next to its `pyspiel.register_game` (games/<game>/game.py), and the
floors above ask `lookup(name)`; none of them keeps a table of game names, so a new game is
one package (and one `register` call) with no edit elsewhere (tests/test_registry_new_game.py).

Bots declare their settings with the same `Param` type (agents.bot_settings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

if TYPE_CHECKING:                # games.view imports this module: its ViewShape is named here for the type only
    from games.view import ViewShape

PARAM_TYPES = ("int", "float", "bool", "choice", "str", "spec")


@dataclass(frozen=True)
class Param:
    """One typed parameter of a game, or one setting of a bot.

    `min`/`max` bound an int (or float); `choices` list a choice's values. `type` "spec"
    is a bot spec (a setting whose value names another bot). A game's rules core checks
    the same ranges (games/params.py): the declaration is what a form or a listing offers."""

    name: str
    type: str
    default: Any
    help: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] | None = None
    bound: str | None = None      # the range in words where it depends on another parameter: "[0, players - 1]"

    def __post_init__(self) -> None:
        if self.type not in PARAM_TYPES:
            raise ValueError(f"parameter {self.name!r}: type {self.type!r} is not one of {', '.join(PARAM_TYPES)}")
        if (self.type == "choice") != (self.choices is not None):
            raise ValueError(f"parameter {self.name!r}: choices go with type 'choice', and only with it")

    def accepts(self) -> str:
        """What the parameter accepts, in a listing's words: `[lo, hi]`, the choices, or `any`."""
        if self.type == "bool":
            return "true, false"
        if self.type == "choice":
            return ", ".join(self.choices or ())
        if self.bound is not None:
            return self.bound
        if self.min is not None and self.max is not None:
            return f"[{self.min}, {self.max}]"
        if self.min is not None:
            return f"at least {self.min}"
        return "any"

    def to_json(self) -> dict[str, Any]:
        """The parameter as the table's GameOption lists it (docs/play-api.md)."""
        out: dict[str, Any] = {"name": self.name, "default": self.default, "help": self.help, "type": self.type}
        if self.type in ("int", "float"):
            out.update(min=self.min, max=self.max)
        elif self.type == "choice":
            out["choices"] = list(self.choices or ())
        return out


@dataclass(frozen=True)
class MatchOffer:
    """How the game's deals make a match, for the table and the harness.

    kind "deals" (a number of deals) or "target" (points to reach): the table offers
    `choices`, `default` (`defaults` by player count where it differs). `sets` are the game
    parameters a match sets for each deal (not the player's to choose). `table(players,
    params, value, seed)` is the MatchFormat (games.protocol) of a match of `value`, or None
    where the deals are simply repeated. `points`: a deal's record is its sides' points
    (read through the default match's format) even when no match is played. `harness(game,
    **settings)` is the MatchFormat the harness plays for `--match key=value,...` (None: the
    game has none of its own; a format can still be named as module:factory(...))."""

    kind: str
    choices: tuple[int, ...]
    default: int
    defaults: Mapping[int, int] = field(default_factory=dict)
    sets: tuple[str, ...] = ()
    table: Callable[[int, dict[str, Any], int, int], Any] | None = None
    points: bool = False
    harness: Callable[..., Any] | None = None

    def default_for(self, players: int) -> int:
        return self.defaults.get(players, self.default)

    def to_json(self) -> dict[str, Any]:
        """The match as the table's GameOption lists it."""
        out: dict[str, Any] = {"kind": self.kind, "choices": list(self.choices), "default": self.default}
        if self.defaults:
            out["defaults"] = {str(k): v for k, v in self.defaults.items()}
        return out


@dataclass(frozen=True)
class SuitLayout:
    """How relabelling the suits maps the game to itself (agents/neural/symmetry.py): which
    information-state views are indexed by card (`card_views`, 0-51 suit-major, jokers
    above) or by suit (`suit_views`), and where an action goes under a suit permutation."""

    card_views: tuple[str, ...]
    suit_views: tuple[str, ...]
    action: Callable[[int, tuple[int, ...]], int]


@dataclass(frozen=True)
class BotOffer:
    """A bot the table offers at this game beside the generic ones: its spec and its title."""

    spec: str
    title: str


@dataclass(frozen=True)
class Level:
    """A strength the table offers at this game, by name ("beginner", "club", "strong",
    "strongest"): one of the game's presets, and the run records (experiments/runs/NAME.json)
    that measured it against `rules` and `random`. The table shows each level's Elo from those
    records (play/levels.py), never a figure typed here; a level that is `rules` or `random`
    itself needs no record against itself."""

    name: str
    preset: str
    records: tuple[str, ...] = ()


def _own_sides(players: int) -> list[int]:
    return list(range(players))


@dataclass(frozen=True)
class GameEntry:
    """What the floors above need of one game. `name` is its OpenSpiel short name."""

    name: str
    title: str                                  # the table's and the listing's name for it
    example: str                                # a game string to start from (a command's default)
    params: tuple[Param, ...]                   # every game parameter, typed, with its range and help
    rules: Callable[[Mapping[str, Any]], Any]   # validates parameters: the core's from_params (ValueError)
    view: Callable[[Any, int, bool], dict]      # (core, seat, open_hands) -> the seat's view pieces (games.view)
    players: tuple[int, int]                    # the fewest and most players
    match: MatchOffer | None = None
    view_shape: ViewShape | None = None         # the words its view uses, for its schema (games.view.view_schema)
    sides: Callable[[int], list[int]] = _own_sides   # players -> each seat's side (partners share one)
    core: type | None = None                    # the rules core's class, for search's static values
    leaf_value: Callable[[Any], Sequence[float]] | None = None   # a world's static value (search.rollout)
    search_defaults: Mapping[str, int] = field(default_factory=dict)  # what search's `auto` stands for
    rule_bot: str | None = None                 # "module:Class" of its rule bot (agents.rules)
    presets: Mapping[str, str] = field(default_factory=dict)   # short names of its measured bots -> specs
    strongest: str | None = None                # its strongest measured fair bot: a preset's name
    levels: tuple[Level, ...] = ()              # the table's strengths, weakest first (each a preset)
    bots: tuple[BotOffer, ...] = ()             # the table's offers at this game beside the generic bots
    default_field: tuple[str, ...] | None = None   # the default tournament's field, where not the generic one
    points_per_unit: float | None = None        # game points in one unit of the returns (None: not points)
    noticeable_loss: float = 0.0                # the least loss, in returns, the review calls a mistake
    symmetry: SuitLayout | None = None          # suit relabelling, to multiply training data
    network: Mapping[str, Any] | None = None    # its network's settings (agents.neural.config.NetworkConfig)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def num_players(self, params: Mapping[str, Any]) -> int:
        """The number of players these parameters give (its `players` parameter, else its only count)."""
        declared = self.param("players")
        if declared is None:
            return self.players[0]
        return int(params.get("players", declared.default))

    def chosen_params(self) -> tuple[Param, ...]:
        """The parameters a player chooses: all but those a match sets for each deal."""
        sets = self.match.sets if self.match else ()
        return tuple(p for p in self.params if p.name not in sets)


_REGISTRY: dict[str, GameEntry] = {}
_BY_CORE: dict[type, GameEntry] = {}     # by rules core class: a search asks at every rollout's leaf


def register(entry: GameEntry) -> GameEntry:
    """Adds `entry` (once per name: registering a name again replaces it, as a reload does).
    ValueError where one of its presets' names is another game's."""
    for other in _REGISTRY.values():
        taken = set(other.presets) & set(entry.presets) if other.name != entry.name else set()
        if taken:
            raise ValueError(f"game {entry.name!r}: preset {sorted(taken)[0]!r} is already game {other.name!r}'s")
    for level in entry.levels:
        if level.preset not in entry.presets:
            raise ValueError(f"game {entry.name!r}: level {level.name!r} names {level.preset!r}, not one of its presets")
    _REGISTRY[entry.name] = entry
    if entry.core is not None:
        _BY_CORE[entry.core] = entry
    return entry


def registered() -> list[GameEntry]:
    """Every registered game, in the order registered (`import games` registers ours)."""
    return list(_REGISTRY.values())


def names() -> list[str]:
    """The registered games' names, in the order registered."""
    return list(_REGISTRY)


def lookup(name: str) -> GameEntry:
    """The entry of game `name` (a short name, or a game string: its parameters are ignored).
    KeyError naming the registered games when there is none."""
    short = name.split("(")[0].strip()
    entry = _REGISTRY.get(short)
    if entry is None:
        raise KeyError(f"no registered game {short!r}; registered: {', '.join(_REGISTRY) or 'none'}")
    return entry


def find(name: str) -> GameEntry | None:
    """The entry of game `name`, or None for a game not registered here (hearts, say)."""
    return _REGISTRY.get(name.split("(")[0].strip())


def of_game(game: Any) -> GameEntry | None:
    """The entry of a pyspiel game, or None."""
    return find(game.get_type().short_name)


def of_core(world: Any) -> GameEntry | None:
    """The entry whose rules core `world` is (a search's determinized world), or None."""
    return _BY_CORE.get(type(world))


def partnerships(game: Any) -> tuple[tuple[int, ...], ...] | None:
    """The seats of each side of a pyspiel game where partners share a side (its entry's
    `sides`), else None: the harness's teams, the search's allies."""
    entry = of_game(game)
    if entry is None:
        return None
    side_of_seat = entry.sides(game.num_players())
    grouped: dict[int, list[int]] = {}
    for seat, side in enumerate(side_of_seat):
        grouped.setdefault(side, []).append(seat)
    if all(len(seats) == 1 for seats in grouped.values()):
        return None
    return tuple(tuple(seats) for _, seats in sorted(grouped.items()))


def default_game() -> str:
    """The game string commands default to: the first registered game's example."""
    return registered()[0].example
