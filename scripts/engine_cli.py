"""`cardarena engine BOTSPEC --game GAME`: one of our bots as an engine.

It speaks docs/engine_protocol.md on its standard input and output, so any
harness that speaks the protocol can play it, a shipped bot file included
(`cardarena engine "neural(path=bots/mine.safetensors)" --game ...`), and our own
harness can rate our bots through the protocol (`engine(cmd=cardarena engine
rules --game ...)`) to check both ends against each other.

Our bots play on a full game state. It asks for a world at hello (a harness that
draws one, ours, spares it the rebuild below; `--no-world`: it never asks), but
with a harness of protocol version 2 that sends none the engine needs nothing but
what a seat may know, in words: from each turn's events,
the hand in its view and the legal actions' words it rebuilds a world the seat
cannot tell from the true one (games.rebuild: the game's own resampler draws the
hidden cards), keeps it from turn to turn, and answers with the action's id and
words; no world, no information-state text, no ids are needed. With a version-1
harness it asks for a world at hello, replays it and checks that the seat's
information state is the one it was sent. Every bot of ours moves on the seat's
information only (the hidden-information tests), so it moves as it would in the
harness's process.

Anything our bots write goes to stderr: stdout carries only the protocol.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from importlib import metadata
from typing import Any, BinaryIO

import pyspiel

from agents.engine import VERSIONS
from games.rebuild import RebuildError, SeatWorld


class ProtocolError(ValueError):
    """A message the engine cannot act on; it says so and exits."""


def _version() -> str:
    try:
        return metadata.version("cardarena")
    except metadata.PackageNotFoundError:
        return "unknown"


class EngineServer:
    """One bot spec at one game, answering the harness's messages one by one."""

    def __init__(self, spec: str, game: pyspiel.Game, newest: int = max(VERSIONS), worlds: bool = True):
        self.spec = spec
        self.newest = newest                           # the newest version it agrees to speak
        self.worlds = worlds                           # version 2: ask for worlds (a harness may send none)
        self.game = game
        self.short_name = game.get_type().short_name
        self.deal_games: dict[str, pyspiel.Game] = {}
        self.bot: pyspiel.Bot | None = None
        self.deal_game: pyspiel.Game | None = None
        self.state: pyspiel.State | None = None       # the world of the last turn
        self.seat = -1
        self.protocol = 1                              # the version agreed at hello
        self.world: SeatWorld | None = None            # version 2: the seat's rebuilt world
        self.events: list[str] = []                    # version 2: the seat's events this deal

    def handle(self, message: Any) -> dict | None:
        """The reply to one message (None: none is due). Raises ProtocolError."""
        kind = message.get("type") if isinstance(message, dict) else None
        if kind == "hello":
            return self._hello(message)
        if kind == "deal":
            self._deal(message)
            return None
        if kind == "turn":
            if self.protocol >= 2:
                return self._turn_v2(message)
            return {"action": self._turn(message)}
        if kind == "deal_end":
            self.bot = None
            return None
        raise ProtocolError(f"unexpected message {json.dumps(message)[:120]}")

    def _load(self, text: Any) -> pyspiel.Game:
        if not isinstance(text, str):
            raise ProtocolError(f"game {text!r} is not a game string")
        game = self.deal_games.get(text)
        if game is None:
            try:
                game = pyspiel.load_game(text)
            except pyspiel.SpielError as e:
                raise ProtocolError(f"cannot load game {text!r}: {e}") from None
            if game.get_type().short_name != self.short_name:
                raise ProtocolError(f"this engine plays {self.short_name}, not {text}")
            self.deal_games[text] = game
        return game

    def _hello(self, message: dict) -> dict:
        offered = message.get("versions")
        offered = offered if isinstance(offered, list) else [message.get("protocol")]
        common = [v for v in VERSIONS if v in offered and v <= self.newest]
        if not common:
            raise ProtocolError(f"protocol {message.get('protocol')!r}: this engine speaks protocol "
                                f"{' or '.join(map(str, VERSIONS))}")
        self.protocol = max(common)
        game = self._load(message.get("game"))
        seat = message.get("seat")
        self._make(game, seat if type(seat) is int and 0 <= seat < game.num_players() else 0, 0)
        if self.protocol >= 2:
            # A world, where the harness sends one, spares the rebuild (games.rebuild costs tens of
            # milliseconds a turn); without one the engine plays from the events all the same.
            return {"type": "hello", "protocol": self.protocol, "name": f"cardarena {self.spec}",
                    "version": _version(), "world": self.worlds, "info_state": self.worlds}
        return {"type": "hello", "name": f"cardarena {self.spec}", "version": _version(),
                "tensor": False, "world": True}

    def _make(self, game: pyspiel.Game, seat: int, seed: int) -> pyspiel.Bot:
        """The bot at `game`, or a ProtocolError saying why it cannot play there (a
        network made for another number of players, say), as make_bot in process
        refuses it: at hello, so that the harness refuses the engine before any game."""
        from agents import make_bot
        try:
            return make_bot(self.spec, game, seat, seed)
        except ValueError as e:
            raise ProtocolError(f"{self.spec} cannot play {game}: {e}") from None

    def _deal(self, message: dict) -> None:
        game = self._load(message.get("game"))
        seat, seed = message.get("seat"), message.get("seed")
        if type(seat) is not int or not 0 <= seat < game.num_players() or type(seed) is not int:
            raise ProtocolError(f"deal: bad seat {seat!r} or seed {seed!r}")
        self.deal_game, self.seat, self.state = game, seat, None
        self.bot = self._make(game, seat, seed)
        self.world = SeatWorld(game, seat, random.Random(seed ^ 0x5EED)) if self.protocol >= 2 else None
        self.events = []
        self.bot.restart_at(game.new_initial_state() if self.world is None else self.world.state)

    def _turn(self, message: dict) -> int:
        if self.bot is None:
            raise ProtocolError("turn before any deal")
        world = message.get("world", "missing")
        if world is None:                       # the last world, with the seat's own moves since
            if self.state is None:
                raise ProtocolError("turn with world null, but there is no earlier world to extend")
            state, actions = self.state, [m.get("action") if isinstance(m, dict) else m
                                          for m in message.get("moves") or []]
        elif isinstance(world, list):
            state, actions = self.deal_game.new_initial_state(), world
        else:
            raise ProtocolError("turn without a world (this engine asks for one at hello)")
        try:
            for action in actions:
                state.apply_action(action)
        except (pyspiel.SpielError, ValueError, TypeError) as e:
            raise ProtocolError(f"the world's history does not replay: {e}") from None
        if state.current_player() != self.seat or state.information_state_string(self.seat) != message.get("info_state"):
            raise ProtocolError("the world does not match the information state it came with")
        # The same state object from move to move while only this seat moves, as in process:
        # a bot may remember its plan by it (the Canasta rule bot does).
        self.state = state
        return int(self.bot.step(state))

    def _turn_v2(self, message: dict) -> dict:
        """A version-2 turn, played from the seat's events, hand and legal actions in words."""
        if self.bot is None or self.world is None:
            raise ProtocolError("turn before any deal")
        events, legal, view = message.get("events"), message.get("legal"), message.get("view")
        if not isinstance(events, list) or not isinstance(legal, list):
            raise ProtocolError("turn without its events and legal actions")
        for event in events:
            if not isinstance(event, dict) or not isinstance(event.get("text"), str):
                raise ProtocolError(f"event {json.dumps(event)[:120]} has no text")
            if event.get("i", len(self.events)) != len(self.events):
                raise ProtocolError(f"event {event.get('i')!r} came where event {len(self.events)} was due")
            self.events.append(event["text"])
        words = [a.get("text") if isinstance(a, dict) else None for a in legal]
        if not all(isinstance(w, str) for w in words):
            raise ProtocolError("a legal action without its words (text)")
        if "world" in message and isinstance(message.get("info_state"), str):
            action = self._turn(message)        # the harness's world, replayed and checked
            state = self.state
            return {"id": message.get("id"), "action": action, "text": state.action_to_string(self.seat, action)}
        hand = None
        if isinstance(view, dict) and isinstance(view.get("hand"), list):
            hand = [c.get("text") for c in view["hand"] if isinstance(c, dict)]
        try:
            state = self.world.advance(self.events, hand, words)
        except RebuildError as e:
            raise ProtocolError(f"the events cannot be played: {e}") from None
        action = int(self.bot.step(state))
        return {"id": message.get("id"), "action": action, "text": state.action_to_string(self.seat, action)}


def serve(spec: str, game: pyspiel.Game, source: BinaryIO, sink: BinaryIO, newest: int = max(VERSIONS),
          worlds: bool = True) -> int:
    """Answers messages from `source` until quit or its end; 0, or 1 after a protocol error."""
    server = EngineServer(spec, game, newest, worlds)
    for raw in source:
        try:
            message = json.loads(raw)
        except ValueError:
            print(f"cardarena engine: malformed line {raw[:120]!r}", file=sys.stderr)
            return 1
        if isinstance(message, dict) and message.get("type") == "quit":
            return 0
        try:
            reply = server.handle(message)
        except ProtocolError as e:
            sink.write((json.dumps({"type": "error", "message": str(e)}) + "\n").encode())
            sink.flush()
            print(f"cardarena engine: {e}", file=sys.stderr)
            return 1
        if reply is not None:
            sink.write((json.dumps(reply, separators=(",", ":")) + "\n").encode())
            sink.flush()
    return 0


def _engine(args: argparse.Namespace) -> None:
    from agents import make_bot
    from scripts.cli_checks import load_game
    game = load_game(args.game)
    make_bot(args.bot, game, 0, 0)                 # a bad spec is refused here, in one line
    sink = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())   # what a bot prints cannot reach the protocol
    sys.stdout = sys.stderr
    code = serve(args.bot, game, sys.stdin.buffer, sink, args.protocol, not args.no_world)
    sys.stderr.flush()
    os._exit(code)                                  # no interpreter teardown: the harness waits on the exit


def add_commands(sub: argparse._SubParsersAction) -> None:
    """engine."""
    from scripts import cli_checks
    p = sub.add_parser("engine", help="run a bot as an engine speaking the engine protocol on stdin/stdout",
                       description="Runs BOTSPEC (any bot spec, a bot file included) at GAME as an engine "
                                   "speaking docs/engine_protocol.md on its standard input and output: rate "
                                   "it in any harness that speaks the protocol, or in ours with "
                                   "--agent 'e=engine(cmd=cardarena engine BOTSPEC --game GAME)'.")
    p.add_argument("bot", metavar="BOTSPEC", help="the bot, e.g. rules or 'ismcts(iterations=200)'")
    p.add_argument("--game", required=True, type=cli_checks.game_string,
                   help="the game it plays (a deal of another variant of it is played too; another game is refused)")
    p.add_argument("--protocol", type=int, choices=VERSIONS, default=max(VERSIONS),
                   help="the newest protocol version it speaks (1: it asks for a world at each turn)")
    p.add_argument("--no-world", action="store_true",
                   help="never ask for a world (version 2): rebuild the seat's world from the events at every "
                        "turn, as with a harness that sends none")
    p.set_defaults(func=_engine)
