"""One game at the table: the human's seat, the bots, the match, the record of every deal.

The game is played by the harness's referee (eval/referee.py), stepped a move at a time: the
human's seat is the one without a bot, whose moves `act` feeds it, and the referee judges the
bots' moves, their time and their faults as it does in a tournament. Chance comes from
`games.chance.DealChance` with the harness's seeds, so a seed plays the same deal again. Bots move one at a time in a background thread, each after a short pause, with
`thinking` naming the seat while it chooses; a bot that raises, returns an illegal action or
takes longer than the per-move limit faults as docs/tournament.md says: its side forfeits, the
deal is recorded with the fault and the match ends with a message that says why. An engine the
operator offered (play/engines.py) plays as `engine(cmd=...)` with the per-move limit as its
time limit, and faults the same way, with the engine's own kind (crashed, illegal, timeout).
A deal's bots are let go when it ends, so an engine's process goes back to its pool. Every finished
deal is saved in `<records>/<id>.jsonl` as it ends and the deal in progress in
`<id>.unfinished.json` after each human move, each file replaced whole (`records.record.write_records`:
a temporary file, flushed, fsynced and renamed), so a file on disk is always whole and a restart
loses no finished deal; an unfinished one can be continued (`Session.from_record`). A save that
fails (a full disk) loses nothing either: the game goes on in memory, the view says what is not
saved, and the save is tried again at the next move, the next deal and the next view. A lock makes
each request and each bot move atomic.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pyspiel

from agents import make_bot
from agents.base import rules_core
from agents.faults import RAISED
from eval.referee import BotFault, Match, Referee, forfeit_returns, seat_seed
from games import registry
from games.chance import DealChance
from games.seeding import derive_seed
from play.options import FieldError, GameSpec, shown
from play.review import DEFAULT_ANALYSIS_WORLDS
from games.view import seat_view
from play.words import table_log

MAX_HINT_WORLDS = 2000      # the most worlds a hint may ask for (a stage; the analysis confirms on as many)
WATCHDOG_FACTOR = 2.0       # a move still running at 2 x limit + 1 s is abandoned (docs/tournament.md)
_BOT_SEED, _RESUMED = 101, 102


class SessionError(ValueError):
    """A request the session refuses: `status` is the HTTP status (400 illegal, 409 stale)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def seat_sides(game: str, players: int) -> list[int]:
    """Each seat's side, as the game declares its partnerships (games.registry); else each seat its own."""
    return registry.lookup(game).sides(players)


def table_match(spec: GameSpec, history: list[list[float]]) -> tuple[Match, int | None, int | None]:
    """The deals of a game as the game's registered match offer makes them (games.registry):
    the referee's Match (one deal, several deals of the same game, or a MatchFormat's deals,
    with `history` the deals so far), its number of deals and its target (None where it has none).
    A game that scores points (Canasta) keeps its sides' points of a deal, a match or not."""
    offer = registry.lookup(spec.game).match
    fmt = keeps = None
    deals: int | None = 1
    target: int | None = None
    if spec.match is not None and offer is not None:
        kind, value = spec.match.split("=")
        if offer.table is not None:
            fmt = offer.table(spec.players, spec.params, int(value), spec.seed)
        if kind == "target":
            deals, target = None, int(value)
        else:
            deals = int(value)
    if fmt is None and offer is not None and offer.points:
        keeps = offer.table(spec.players, spec.params, offer.default_for(spec.players), spec.seed)
    return Match(spec.game, spec.params, fmt, deals=deals or 1, keeps=keeps, history=history), deals, target


class Session:
    """One human's game. Public methods take the lock; the page reads `view()`."""

    def __init__(self, spec: GameSpec, session_id: str, records_dir: Path | None = None, *,
                 threaded: bool = True, analysis_worlds: int = DEFAULT_ANALYSIS_WORLDS,
                 chance_seed: int | None = None,
                 history: list[list[float]] | None = None, deal_index: int = 0, source: dict | None = None,
                 replay: tuple[Any, int] | None = None):
        """A new game, or with `replay` = (record, move) a game continued from a record's move;
        `chance_seed` (the spec's seed by default) seeds the deals after the first, `history` and
        `deal_index` are the match so far."""
        self.spec = spec
        self.id = session_id
        self.records_dir = Path(records_dir) if records_dir is not None else None
        self.threaded = threaded
        self.analysis_worlds = analysis_worlds     # the hint's and the review's budget: one evaluator
        self.lock = threading.RLock()
        self.match, self.deals, self.target = table_match(spec, history or [])   # match.history: each finished deal's
        self.chance_seed = spec.seed if chance_seed is None else chance_seed
        self.records: list = []                 # records.record.Record of each finished deal
        self.reviews: dict[int, dict] = {}
        self.thinking: int | None = None
        self.message = ""
        self.fault: dict | None = None
        self.error: str | None = None
        self.driver: threading.Thread | None = None
        self.generation = 0                     # bumped when a deal starts: a stale bot move is dropped
        self.running = False                    # the bots move once the table has the game (start)
        self.closed = False
        self.last_actor: int | None = None      # the seat of the last decision
        self.auto_played = 0                    # the human's moves played for it (its only legal action)
        self.forced_lines: list[int] = []       # where those moves' lines lie in the human's log (this deal's)
        self.source = source                    # where a game taken over from a record came from
        self.last_seen = time.monotonic()       # the last request for this game (the table forgets idle ones)
        self.saved = 0                          # how many of `records` are on disk
        self.unfinished_due = False             # the deal in progress's file is to be rewritten (or removed)
        self.save_error: str | None = None      # why the last save failed, until one succeeds
        self.save_tried = 0.0
        self.save_retry_seconds = 2.0           # a view tries a failed save again after this long
        n = spec.players
        self.names = ["You" if s == spec.seat else f"p{s}" for s in range(n)]
        self.agents = ["human" if s == spec.seat else spec.bots[s] for s in range(n)]
        self.deal_index = deal_index
        self.referee: Referee                   # the deal in play (its state, chance, bots), from _start_deal
        with self.lock:
            self._start_deal(replay)

    # ------------------------------------------------------------- deals
    @property
    def state(self) -> pyspiel.State:
        """The deal's state, the referee's: the page's view and the hint read it, only the referee plays on it."""
        return self.referee.state

    @property
    def game(self) -> pyspiel.Game:
        return self.referee.game

    @property
    def bots(self) -> list[pyspiel.Bot | None]:
        """Each seat's bot in this deal (None: the human's seat, or a bot let go)."""
        return self.referee.bots

    @property
    def times(self) -> list[float | None]:
        """Each decision's seconds, in order (the record's; None where a replayed record had none)."""
        return self.referee.seconds

    def _start_deal(self, replay: tuple[Any, int] | None = None) -> None:
        """Deals deal `self.deal_index`, its game and chance from the match; or, with `replay` =
        (record, move), the record's deal with its first `move` moves replayed into the fresh
        referee. Either way the deal's bots are made and told of its start the same way, and then
        set going if one is to move."""
        if replay is None:
            game = self.match.next_game()
            if game is None:
                raise SessionError(409, "the match is over: there is no next deal")
            self.seed = seat_seed(self.chance_seed, self.deal_index)
        else:
            record, move = replay
            game = pyspiel.load_game(record.game)
            self.seed = int(record.seed) if record.seed is not None else self.spec.seed
        self.generation += 1
        self.forced_lines = []
        self.fault = None
        self.error = None
        chance = DealChance(self.seed)
        self.referee = Referee(game, self._make_bots(game), None if replay is not None else chance,
                               time_limit=self.spec.time_limit)
        try:
            self.referee.start()
            if replay is not None:
                self._replay(*replay, chance)
        except BotFault as fault:       # a bot that cannot start the deal (or hear it replayed) names its seat
            cause = fault.__cause__
            raise FieldError(f"bots.{fault.seat}", f"bot {self.spec.bots[fault.seat]!r} for p{fault.seat}: "
                                                   f"{cause if cause is not None else fault.reason}") from None
        self.turn_started = time.monotonic()
        if replay is None:
            self.message = (f"deal {self.deal_index + 1}" + (f" of {self.deals}" if self.deals else "")
                            + " dealt")
        else:
            self.message = "continued from the record"
        self._after_move()

    def _replay(self, record, move: int, chance: Callable[[pyspiel.State], int]) -> None:
        """Replays the record's first `move` moves, chance included, into the referee; then its
        chance is the deal's own (`chance`), or fresh chance if the record did not deal this seed's
        cards (a taken-over game never deals what the game it came from deals next)."""
        referee = self.referee
        in_step = True
        for m in record.moves[:move]:
            state = referee.state
            if state.is_chance_node():
                if m.action not in dict(state.chance_outcomes()):
                    raise SessionError(400, f"the record's chance move {m.text!r} is not possible in turn")
                if in_step and chance(state) != m.action:
                    in_step = False      # the recorded deal is not this seed's: fresh chance from here
                referee.apply_chance(m.action)
            else:
                if m.action not in state.legal_actions():
                    raise SessionError(400, f"the record's move {m.text!r} is not legal in turn")
                referee.apply(state.current_player(), m.action, m.seconds)
        referee.chance = chance if in_step else DealChance(derive_seed(_RESUMED, self.seed, move))
        referee.play_chance()

    def _make_bots(self, game: pyspiel.Game) -> list[pyspiel.Bot | None]:
        """The deal's bots (None at the human's seat); a bot that cannot be made names its seat."""
        bots: list[pyspiel.Bot | None] = [None] * self.spec.players
        for s, spec in sorted(self.spec.bots.items()):
            seed = derive_seed(_BOT_SEED, self.spec.seed, s, self.deal_index)
            try:
                if spec in self.spec.engines:
                    from agents.engine import make_engine_bot
                    bots[s] = make_engine_bot(game, s, seed, cmd=self.spec.engines[spec],
                                              time_limit=self.spec.time_limit)
                else:
                    bots[s] = make_bot(spec, game, s, seed)
            except (ValueError, OSError) as e:
                raise FieldError(f"bots.{s}", f"bot {spec!r} for p{s}: {e}") from None
        return bots

    def _moved(self, seat: int, action: int) -> None:
        """After the referee played `seat`'s decision: whose it was, what it said, the next turn's clock."""
        self.last_actor = seat
        self.turn_started = time.monotonic()
        self.message = self._said(seat, action)

    def _fault_json(self, fault: BotFault) -> dict:
        """A bot's fault as the page and the record show it, the bot named by its seat and agent."""
        cause = fault.__cause__
        kind = getattr(cause, "fault_kind", None)         # an engine's fault names its own kind
        if kind:
            reason = f"faulted ({kind}): {cause}"
        elif cause is not None and fault.kind == RAISED:
            reason = f"raised {type(cause).__name__}: {cause}"
        else:
            reason = fault.reason
        return {"seat": fault.seat, "kind": fault.kind,
                "error": f"p{fault.seat}'s bot ({self.agents[fault.seat]}) {reason}"}

    def _after_move(self) -> None:
        """Ends the deal if it is over; else sets the bots going if one is to move."""
        if self.state.is_terminal():
            self._finish_deal()
        elif self.state.current_player() != self.spec.seat or self._forced() is not None:
            self._kick()

    def _finish_deal(self, fault: dict | None = None) -> None:
        """Records the finished (or forfeited) deal; the match goes on at `next` unless it is over."""
        self.fault = fault
        returns = (forfeit_returns(self.game, self._sides(), fault["seat"]) if fault
                   else list(self.state.returns()))
        record = self._record(returns, finished=True)
        self.records.append(record)
        self._let_bots_go()
        self.unfinished_due = True              # the deal's unfinished file goes once the record is saved
        self._save()
        if fault is None:
            self.match.finish(self.state)
            self.message = self._deal_summary(returns)
        else:
            self.message = f"{fault['error']}: p{fault['seat']}'s side forfeits the game"

    def _let_bots_go(self) -> None:
        """Drops the deal's bots (the next deal makes its own): an engine's process is
        told the deal ended and goes back to its pool, a finished game keeps none."""
        self.referee.release()

    def _sides(self) -> list[int]:
        return seat_sides(self.spec.game, self.spec.players)

    def _deal_summary(self, returns: list[float]) -> str:
        me = self.spec.seat
        offer = registry.lookup(self.spec.game).match
        if offer is not None and offer.points:       # a hand's points, side by side
            points = [int(v) if float(v).is_integer() else v for v in self.match.record(self.state)]
            sides = self._sides()
            if len(points) == 2 and len(set(sides)) < len(sides):          # two partnerships
                mine = sides[me]
                return f"hand over: your side {points[mine]}, theirs {points[1 - mine]}"
            return "hand over: " + ", ".join(f"{'you' if s == me else f'p{s}'} {v}" for s, v in enumerate(points))
        best = max(returns)
        won = [s for s, r in enumerate(returns) if r == best]
        who = "you win" if me in won else "p" + ", p".join(map(str, won)) + " win" + ("s" if len(won) == 1 else "")
        return f"deal over: {who} ({returns[me]:+.4g} for you)"

    @property
    def deal_over(self) -> bool:
        return self.state.is_terminal() or self.fault is not None

    @property
    def match_over(self) -> bool:
        return self.deal_over and (self.fault is not None or self.match.next_params() is None)

    # ------------------------------------------------------------ records
    def _players_info(self) -> list:
        from records.record import PlayerInfo
        from play.engines import Engine
        engines = self.spec.engines
        return [PlayerInfo(seat=s, agent=self.agents[s], sha256=None,
                           spec=Engine(self.agents[s], engines[self.agents[s]]).spec(self.spec.time_limit)
                           if self.agents[s] in engines else self.agents[s])
                for s in range(self.spec.players)]

    def _match_info(self) -> dict:
        return {"format": self.spec.match, "deal": self.deal_index, "scores": self._totals(),
                "history": [list(r) for r in self.match.history]}

    def _totals(self) -> list[float]:
        """Each side's running total over the finished deals (Canasta: its points)."""
        return [sum(r[s] for r in self.match.history) for s in range(len(set(self._sides())))]

    def _record(self, returns: list[float] | None, finished: bool):
        from records.record import Record
        record = Record.from_state(self.state, self._players_info(), seconds=self.times, seed=self.seed,
                                   match=self._match_info(), fault=self.fault, returns=returns,
                                   source=self.source)
        record.annotations = {**(record.annotations or {}),
                              "play": {**self.spec.to_json(), "id": self.id, "human": self.spec.seat,
                                       "unfinished": not finished, "chance_seed": self.chance_seed}}
        return record

    def unfinished_path(self) -> Path:
        """Where the deal in progress is kept (under the records folder)."""
        return self.records_dir / f"{self.id}.unfinished.json"

    def save(self) -> None:
        """Saves what is not on disk yet (see `_save`)."""
        with self.lock:
            self._save()

    def _save(self) -> None:
        """Puts on disk what is not there yet: the finished deals (the game's .jsonl replaced whole)
        and then the deal in progress (its file replaced, or removed once the deal's record is
        saved). A failure (a full disk) is kept in `save_error` for the view and tried again
        later; the game goes on in memory meanwhile, and a file on disk is never half-written."""
        if self.records_dir is None:
            return
        from records.record import write_records
        try:
            if self.saved < len(self.records):
                write_records(self.records_dir / f"{self.id}.jsonl", self.records)
                self.saved = len(self.records)
            if self.unfinished_due:
                if self.deal_over:
                    self.unfinished_path().unlink(missing_ok=True)
                else:
                    write_records(self.unfinished_path(), [self._record(None, finished=False)])
                self.unfinished_due = False
            self.save_error = None
        except OSError as e:
            unsaved = f"{len(self.records) - self.saved} finished deal(s)" if self.saved < len(self.records) \
                else "your last move"
            self.save_error = (f"{unsaved} not saved to {self.records_dir} ({e.strerror or e}): the game goes "
                               f"on here and the save is tried again as it goes on")
            self.save_tried = time.monotonic()

    # --------------------------------------------------------------- bots
    def start(self) -> None:
        """Lets the bots play: in their thread, or here and now when the session is synchronous."""
        with self.lock:
            self.running = True
            self._kick()
        if not self.threaded:
            self.run_bots()

    def _kick(self) -> None:
        """Sets the bots going in the background, once started (a synchronous session's caller
        runs them)."""
        if not self.threaded or not self.running:
            return
        if self.driver is not None and self.driver.is_alive():
            return
        self.driver = threading.Thread(target=self.run_bots, name=f"bots-{self.id[:6]}", daemon=True)
        self.driver.start()

    def run_bots(self, pause: float | None = None) -> None:
        """Plays bot moves until the human is to move or the deal ends: each bot asked on a copy
        of the state outside the lock (the page reads the game meanwhile), its answer judged and
        played by the referee under the lock."""
        pause = self.spec.pause if pause is None else pause
        while not self.closed:
            with self.lock:
                if self.deal_over or self.error:
                    self._driver_done()
                    return
                if self.state.current_player() == self.spec.seat:
                    forced = self._forced()
                    if forced is None:
                        self._driver_done()
                        return
                    self._play_forced(forced)
                    continue
                seat = self.state.current_player()
                generation = self.generation
                referee = self.referee
                state = self.state.clone()
            if pause > 0:     # a shorter pause within one bot's turn (Canasta: draw, melds, discard)
                time.sleep(pause if seat != self.last_actor else pause / 3)
            with self.lock:
                self.thinking = seat
            answer, elapsed, fault = self._bot_step(referee, state, seat)
            with self.lock:
                self.thinking = None
                if generation != self.generation or self.closed:
                    return
                try:
                    if fault is None:
                        try:
                            action = referee.decide(seat, answer, elapsed)
                        except BotFault as caught:
                            fault = caught
                    if fault is not None:
                        self._finish_deal(self._fault_json(fault))
                        return
                    self._moved(seat, action)
                    if self.state.is_terminal():
                        self._finish_deal()
                        return
                except Exception as e:     # the game or the disk failed, not a bot: say so, keep serving
                    self.error = f"game error after p{seat}'s move: {type(e).__name__}: {e}"
                    self.message = self.error
                    return

    def _driver_done(self) -> None:
        """Under the lock, as the bots' thread stops for the human: it is no longer the driver, so
        the human's next move (made before this thread has quite ended) starts a new one."""
        if self.driver is threading.current_thread():
            self.driver = None

    def _forced(self) -> int | None:
        """The human's only legal action, where it is the human's turn, it has one and the game
        plays such moves for it (`auto`, on unless the NewGame turned it off); else None. A
        forced click ("no Dobon", "draw from the stock") asks nothing of the player."""
        if not self.spec.auto or self.deal_over or self.error or self.fault is not None \
                or self.state.is_terminal() or self.state.current_player() != self.spec.seat:
            return None
        legal = self.state.legal_actions()
        return legal[0] if len(legal) == 1 else None

    def _play_forced(self, action: int) -> None:
        """Plays the human's only legal action for it (under the lock), as its own move, and says
        so. The lines the move itself adds to the human's log (chance held back meanwhile, so a
        card it then draws keeps its own line) are noted: the log says all such moves in one line."""
        referee, seat = self.referee, self.spec.seat
        before = self._log_length()
        chance, referee.chance = referee.chance, None
        try:
            referee.apply(seat, action, 0.0)
        except BotFault as fault:   # a bot told of the move faulted
            self.unfinished_due = True
            self._finish_deal(self._fault_json(fault))
            return
        finally:
            referee.chance = chance
        self.forced_lines.extend(range(before, self._log_length()))
        referee.play_chance()
        self._moved(seat, action)
        self.auto_played += 1
        self.message = f"played for you (your only move): {self.message}"
        self.unfinished_due = True
        if self.state.is_terminal():
            self._finish_deal()
        self._save()

    def _log_length(self) -> int:
        """How many lines the human's information state has now (its log's raw lines)."""
        return rules_core(self.state).information_state_string(self.spec.seat).count("\n") + 1

    def _said(self, seat: int, action: int) -> str:
        log = table_log(rules_core(self.state), self.spec.seat, [])
        return log[-1]["text"] if log else ("you moved" if seat == self.spec.seat else f"p{seat} moved")

    def _bot_step(self, referee: Referee, state, seat: int) -> tuple[Any, float, BotFault | None]:
        """The bot's answer on a copy of the state (the referee's `ask`) in a thread of its own,
        watched: a move still running at WATCHDOG_FACTOR x the limit + 1 s is abandoned, and
        the referee, handed no answer after that long, rules it a timeout."""
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["answer"], box["elapsed"] = referee.ask(seat, state)
            except BotFault as fault:   # the bot's fault, reported, never the server's
                box["fault"] = fault

        start = time.monotonic()
        worker = threading.Thread(target=call, name=f"bot-{seat}", daemon=True)
        worker.start()
        worker.join(WATCHDOG_FACTOR * self.spec.time_limit + 1.0)
        if "fault" in box:
            return None, time.monotonic() - start, box["fault"]
        if "answer" in box:
            return box["answer"], box["elapsed"], None
        return None, time.monotonic() - start, None

    # ----------------------------------------------------------- requests
    def view(self) -> dict:
        with self.lock:
            if self.save_error and time.monotonic() - self.save_tried >= self.save_retry_seconds:
                self._save()
            v = seat_view(self.spec.game, self.state, self.spec.seat, self.names, self.agents)
            # The log as the table says it (`log` stays the seat view's): the person as "you", the
            # moves played for it in one line. Read from the seat's information state only.
            v["said"] = table_log(rules_core(self.state), self.spec.seat, self.forced_lines)
            if self.fault is not None:
                v["actions"] = []
            if self.deal_over:
                status = "match_over" if self.match_over else "deal_over"
            elif self.error:
                status = "error"
            else:
                # a forced move of the human's is the table's to play (run_bots): not the human's turn yet
                mine = self.state.current_player() == self.spec.seat and self._forced() is None
                status = "your_turn" if mine else "bot_turn"
            totals = self._totals()
            v.update(id=self.id, status=status, thinking=self.thinking, message=self.message,
                     match={"deal": self.deal_index + 1, "deals": self.deals, "target": self.target,
                            "totals": totals, "over": self.match_over, "format": self.spec.match},
                     fault=self.fault, save_error=self.save_error, auto=self.spec.auto, auto_played=self.auto_played)
            if self.fault is not None:
                v["score"] = {"lines": [], "total": self.records[-1].returns, "returns": self.records[-1].returns}
            return v

    def act(self, action: Any, turn: Any) -> dict:
        """The human's action: refused with 409 when stale or not its turn, 400 when illegal."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise SessionError(400, f"action {shown(action)}: must be an action id (an integer)")
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise SessionError(400, f"turn {shown(turn)}: must be the view's turn number (an integer)")
        with self.lock:
            now = len(self.state.history())
            if self.deal_over:
                raise SessionError(409, "the deal is over: ask for the next deal")
            if self.error:
                raise SessionError(409, f"the game stopped ({self.error}); continue it from its record")
            if turn != now:
                raise SessionError(409, f"turn {turn} is stale: the game is at turn {now}")
            if self.state.current_player() != self.spec.seat:
                raise SessionError(409, f"it is p{self.state.current_player()}'s turn, not yours")
            legal = self.state.legal_actions()
            if action not in legal:
                raise SessionError(400, self._why_illegal(action, legal))
            elapsed = time.monotonic() - self.turn_started
            try:
                self.referee.apply(self.spec.seat, action, elapsed)
            except BotFault as fault:   # a bot told of the move faulted
                self.unfinished_due = True
                self._finish_deal(self._fault_json(fault))
            else:
                self._moved(self.spec.seat, action)
                self.unfinished_due = True
                self._after_move()      # a deal it ends is recorded (and saved) first
            self._save()
        if not self.threaded:
            self.run_bots()
        return self.view()

    def _why_illegal(self, action: int, legal: list[int]) -> str:
        n = self.game.num_distinct_actions()
        if not 0 <= action < n:
            return f"action {action} is not an action of {registry.lookup(self.spec.game).title} (ids 0..{n - 1})"
        name = self.state.action_to_string(self.spec.seat, action)
        shown = ", ".join(self.state.action_to_string(self.spec.seat, a) for a in legal[:12])
        return f"action {action} ({name}) is not legal now; legal: {shown}" + (" ..." if len(legal) > 12 else "")

    def next_deal(self) -> dict:
        with self.lock:
            if not self.deal_over:
                raise SessionError(409, "the deal is still being played")
            if self.match_over:
                raise SessionError(409, "the match is over: start a new game")
            self.deal_index += 1
            self._start_deal()
            if self.save_error:
                self._save()
        if not self.threaded:
            self.run_bots()
        return self.view()

    def hint(self, worlds: Any = None) -> dict:
        """The analysis of the human's decision now, from its information only: the review's
        evaluator (search.analysis.review_evaluator), at the table's budget unless `worlds` is given."""
        if worlds is not None and (isinstance(worlds, bool) or not isinstance(worlds, int)
                                   or not 0 < worlds <= MAX_HINT_WORLDS):
            raise SessionError(400, f"worlds={shown(worlds)}: must be a whole number in [1, {MAX_HINT_WORLDS}]")
        with self.lock:
            if self.deal_over or self.state.current_player() != self.spec.seat:
                raise SessionError(409, "a hint is for your own decision: it is not your turn")
            state = self.state.clone()
        from search.analysis import analyse, review_evaluator
        result = analyse(state, self.spec.seat,
                         evaluator=review_evaluator(state.get_game(), worlds or self.analysis_worlds))
        return hint_json(result, self.spec.game, state, self.spec.seat, self.names, self.agents)

    def review(self, deal: int | None = None) -> dict:
        with self.lock:
            if deal is None:
                if not self.records:
                    raise SessionError(409, "no deal has finished yet")
                deal = len(self.records) - 1
            if not isinstance(deal, int) or not 0 <= deal < len(self.records):
                raise SessionError(400, f"deal={shown(deal)}: finished deals are 0..{len(self.records) - 1}")
            if deal in self.reviews:
                return self.reviews[deal]
            record = self.records[deal]
        from play.review import review_record
        result = review_record(record, self.spec.seat, deal=deal, names=self.names, agents=self.agents,
                               worlds=self.analysis_worlds)
        with self.lock:
            self.reviews[deal] = result
        return result

    def close(self) -> None:
        """Stops the bots and lets them go; a save that failed is tried once more."""
        with self.lock:
            self.closed = True
            self._let_bots_go()
            if self.save_error:
                self._save()

    # ------------------------------------------------------------ resume
    @classmethod
    def from_record(cls, record, session_id: str, records_dir: Path | None, *, seat: int | None = None,
                    move: int | None = None, bots: dict[int, str] | None = None, threaded: bool = True,
                    pause: float = 0.6, engines: dict | None = None, continuing: bool = False) -> "Session":
        """A game continued from `record` before moves[move] (the end by default), the human at
        `seat` (the record's human by default) and bots at the other seats (the record's bots,
        else the game's default bot; an engine's seat keeps the engine if the table still offers
        its name in `engines`).

        The rest of a finished deal comes from the deal's own chance (the whole deal is open in
        its review already) and the match's later deals from fresh chance, so the new game never
        deals what the game it came from (perhaps still in play) deals next. `continuing` goes on
        with an unfinished deal instead: its human only, from its end, with the chance the game
        would have had, later deals included. An unfinished deal is taken over no other way, for
        its hands are still secret; the caller makes sure it is continued only once."""
        from play.options import (DEFAULT_TIME_LIMIT, MAX_TIME_LIMIT, check_bot, check_match, check_number,
                                  default_bot)
        from records.record import game_of
        from play.review import human_seat
        game = game_of(record)
        name = game.get_type().short_name
        entry = registry.find(name)
        if entry is None:
            raise SessionError(400, f"the record's game {name!r} is not one the table plays")
        play = (record.annotations or {}).get("play")
        play = play if isinstance(play, dict) else {}
        n = game.num_players()
        own = human_seat(record)
        seat = own if seat is None else seat
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise SessionError(400, f"seat={shown(seat)}: the record's seats are 0..{n - 1}")
        if move is None:
            move = len(record.moves)
        if isinstance(move, bool) or not isinstance(move, int) or not 0 <= move <= len(record.moves):
            raise SessionError(400, f"move={shown(move)}: the record's moves are 0..{len(record.moves)}")
        if not record.finished and not (continuing and seat == own and move == len(record.moves)):
            raise SessionError(403, f"the deal is unfinished: only its player (p{own}) continues it, from "
                                    f"where it stopped (its other hands are still secret)")
        match_info = record.match if isinstance(record.match, dict) else {}
        try:
            limit = check_number(play, "time_limit", DEFAULT_TIME_LIMIT, 0.05, MAX_TIME_LIMIT, False)
            base = check_number(play, "seed", record.seed or 0, 0, 2**63 - 1, True)
            chance = check_number(play, "chance_seed", base, 0, 2**63 - 1, True)
            match = check_match(name, match_info.get("format")) if play else None
        except ValueError as e:
            raise SessionError(400, f"the record's annotations.play: {e}") from None
        sides = len(set(seat_sides(name, n)))
        history, deal_index = _match_so_far(match_info, sides) if match else ([], 0)
        sets = entry.match.sets if entry.match else ()
        params = {k: v for k, v in game.get_parameters().items() if k not in sets}
        chosen: dict[int, str] = {}
        engines = engines or {}
        for p in record.players:
            if p.seat != seat and 0 <= p.seat < n:
                try:
                    chosen[p.seat] = check_bot(p.agent if p.agent in engines else p.spec, name, limit,
                                               f"bots.{p.seat}", engines)
                except ValueError:
                    chosen[p.seat] = default_bot(name, str(game))
        for s, spec in (bots or {}).items():
            if not 0 <= s < n or s == seat:
                raise FieldError(f"bots.{s}", f"bots: seat {s} is not a bot's seat (seats 0..{n - 1}, the human "
                                              f"at {seat})")
            chosen[s] = check_bot(spec, name, limit, f"bots.{s}", engines)
        for s in range(n):
            if s != seat and s not in chosen:
                chosen[s] = default_bot(name, str(game))
        spec = GameSpec(name, params, seat, chosen, match, base, limit, pause,
                        {b: engines[b].cmd for b in chosen.values() if b in engines})
        session = cls(spec, session_id, records_dir, threaded=threaded,
                      chance_seed=chance if continuing else secrets.randbelow(2**63),
                      history=history, deal_index=deal_index,
                      source={"game": play.get("id"), "seed": record.seed, "move": move, "from": record.source},
                      replay=(record, move))
        session.unfinished_due = continuing      # the continued deal's file, written at once (`save`)
        if not continuing:                       # "move k" as the review numbered it
            from play.review import step_number
            session.message = f"taken over at move {step_number(record, seat, move)} of the review"
        return session


def _match_so_far(match_info: dict, sides: int) -> tuple[list[list[float]], int]:
    """A record's match: each finished deal's numbers (one a side) and the deal's number, checked."""
    history, deal = match_info.get("history", []), match_info.get("deal", 0)
    def number(x: Any) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

    if not isinstance(history, list) or not all(isinstance(r, list) and len(r) == sides and all(map(number, r))
                                                for r in history):
        raise SessionError(400, "the record's match.history must be a list of each deal's numbers")
    if isinstance(deal, bool) or not isinstance(deal, int) or not 0 <= deal <= 10_000:
        raise SessionError(400, "the record's match.deal must be a deal number")
    return history, deal


def hint_verdict(values: list, i: int, noticeable: float, points_per_unit: float | None) -> str:
    """A hint row in plain words, from the paired gap's interval against the least loss the
    review calls a mistake (the game's `noticeable_loss`): the same test the review flags a
    move by. One place for the page and the terminal."""
    if i == 0:
        others = values[1:]
        return "clearly best" if others and all(o.gap_low > noticeable for o in others) else "best"
    v = values[i]
    if v.gap_high <= noticeable:
        return "about equal"
    if v.gap_low > noticeable:
        return (f"mistake, about {round(v.gap * points_per_unit)} points" if points_per_unit
                else f"mistake, about {v.gap:.2f} of a place")
    return "perhaps worse"


def hint_json(result, game: str, state, seat: int, names: list[str], agents: list[str]) -> dict:
    """The contract's Hint from a search.analysis.Analysis, each value with its action's label
    and its verdict in words."""
    labels = {a["action"]: a["label"] for a in seat_view(game, state, seat, names, agents)["actions"]}
    noticeable = registry.lookup(game).noticeable_loss      # the least loss the review calls a mistake
    values = list(result.values)
    return {"player": result.player, "worlds": result.worlds, "policy": result.policy,
            "seconds": round(result.seconds, 3), "evaluator": result.evaluator,
            "points_per_unit": result.points_per_unit, "noticeable": noticeable,
            "values": [{"action": v.action, "label": labels.get(v.action, v.text), "mean": v.mean, "low": v.low,
                        "high": v.high, "gap": v.gap, "gap_low": v.gap_low, "gap_high": v.gap_high,
                        "verdict": hint_verdict(values, i, noticeable, result.points_per_unit)}
                       for i, v in enumerate(values)]}
