"""``conquest match``: given bots play N games on a local server; a progress bar, then a results table.

A bot is a sample bot name (``random``, ``aggressive``, ``strategist``: run as ``python -m
conquest_bots.<module>``), ``house:<policy>`` (an engine policy played in the server process), or a shell
command containing ``{address}`` (and optionally ``{name}``, ``{queue}``, ``{capacity}``) for a bot in any
language. The server is the real one (Lobby, GameRunner) on a free loopback port with one queue sized to
the bots; every bot process joins it and standing membership re-seats them game after game, in a random
seat order each time. Each bot's output goes to ``<replay dir>/bots/<name>.log``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from engine import Rules, RulesConfigError, preset
from engine.r2210.rules import PLAYER_COUNTS, Rules2210
from server.app import build_lobby, build_server, dashboard_secret, start_recorder, start_web
from server.cli.numbers import whole_number
from server.cli.output import outcome, result_line, say, stop_on_signals
from server.cli.practice import SAMPLE_BOTS
from server.ops import runtime
from server.ops.config import QueueConfig, ServerConfig, TimeControl
from server.play.lobby import Lobby
from server.play.runner_2210 import AnyRunner
from server.play.seats import HOUSE_POLICIES, RemoteSeat, numbered
from server.storage import Store

QUEUE = "match"
PLACEHOLDERS = ("{address}", "{name}", "{queue}", "{capacity}")
TOKEN_VARIABLE = "CONQUEST_TOKEN"
"""A registered bot's token reaches its process in this environment variable, never on its command line
(which every local user can read with ``ps``); the SDK and the starter kits read it."""
STOP_GRACE_S = 5.0
"""How long a bot gets to exit after SIGTERM before it is killed."""
TAIL_LINES = 12
"""Lines of a failed bot's output quoted in the error."""
BAR_WIDTH = 30


class MatchError(Exception):
    """The match cannot go on (a bot failed to start, exited or never joined); the message says which
    bot and why."""


@dataclass
class Entrant:
    """One bot of the match."""

    spec: str
    """As given on the command line."""
    name: str
    """The name its games are played under; for a command without ``{name}``, the name it sends (set
    once it connects)."""
    command: str | None = None
    """Shell command with placeholders; None for a house seat."""
    house: str | None = None
    """The HOUSE_POLICIES name of a house seat."""
    log: Path | None = None
    process: subprocess.Popen[bytes] | None = None


def parse_entrants(specs: Sequence[str]) -> list[Entrant]:
    """The bots named by ``specs``, each under a distinct name.

    Raises:
        MatchError: a spec that is no bot, or a match the results could not tell apart.
    """
    house_kinds = []
    commands: list[tuple[str, str, str]] = []  # (spec, name base, command)
    for spec in specs:
        if spec in SAMPLE_BOTS:
            module = SAMPLE_BOTS[spec]
            commands.append(
                (
                    spec,
                    spec,
                    f"{shlex.quote(sys.executable)} -m {module} --address {{address}} --name {{name}} "
                    "--queue {queue} --capacity {capacity}",
                )
            )
        elif spec.startswith("house:"):
            kind = spec.removeprefix("house:")
            if kind not in HOUSE_POLICIES:
                raise MatchError(
                    f"{spec!r}: no house policy {kind!r}; use {', '.join(sorted(HOUSE_POLICIES))}"
                )
            house_kinds.append(kind)
        elif "{token}" in spec:
            raise MatchError(
                f"{spec!r}: {{token}} is not a placeholder, since a command line is visible to every "
                "local user (ps): a registered bot's token is passed in the environment variable "
                f"{TOKEN_VARIABLE}, which the SDK and the starter kits read; remove {{token}} from the "
                "command"
            )
        elif "{address}" in spec:
            commands.append((spec, _command_name(spec), spec))
        else:
            raise MatchError(
                f"{spec!r} is not a bot: give a sample bot ({', '.join(SAMPLE_BOTS)}), house:<policy> "
                f"({', '.join(sorted(HOUSE_POLICIES))}) or a shell command containing {{address}}"
            )
    if not commands:
        raise MatchError("a match needs at least one bot process: house seats only play against bots")
    unnamed = [command for _, _, command in commands if "{name}" not in command]
    if len(unnamed) > 1:
        raise MatchError(
            f"{len(unnamed)} commands have no {{name}}, so their results could not be told apart: add "
            "{name} to all but one (passed as the bot's practice name)"
        )
    house_names = numbered([f"house-{kind}" for kind in house_kinds])
    names = numbered([base for _, base, _ in commands])
    entrants = [
        Entrant(spec, name, command=command) for name, (spec, _, command) in zip(names, commands, strict=True)
    ]
    entrants += [
        Entrant(f"house:{kind}", name, house=kind)
        for name, kind in zip(house_names, house_kinds, strict=True)
    ]
    return entrants


def _command_name(command: str) -> str:
    """A name for a command's bot, from its program: ``./my_bot``, ``node my_bot.js`` or ``python -m
    pkg.my_bot`` give my_bot."""
    words = shlex.split(command)
    if "-m" in words[:-1]:
        program = words[words.index("-m") + 1].rpartition(".")[2]
    else:
        end = next((i for i, w in enumerate(words) if w.startswith("-") or "{" in w), len(words))
        program = Path(words[end - 1]).stem if end else "bot"
    return re.sub(r"[^A-Za-z0-9_.\-]", "", program)[:24] or "bot"


RULES_2210 = "2210"
"""``--queue-rules 2210``: RISK 2210 A.D. under its default rules (``engine.r2210.rules.Rules2210``)."""


def match_rules(players: int, name: str | None = None, turn_cap: int | None = None) -> Rules | Rules2210:
    """The rules preset ``name`` (by default the neutral two-player game for 2 bots, else classic), with
    ``turn_cap`` if given; ``"2210"``: RISK 2210 A.D.

    Raises:
        MatchError: no such preset, a bad turn cap, or rules not made for ``players`` players.
    """
    if name == RULES_2210:
        if turn_cap is not None:
            raise MatchError(
                "--turn-cap is for classic rules: a RISK 2210 A.D. game ends after its 5 years; "
                "drop --turn-cap"
            )
        if players not in PLAYER_COUNTS:
            counts = ", ".join(str(c) for c in PLAYER_COUNTS)
            raise MatchError(f"rules '2210' are for {counts} players, and the match has {players} bots")
        return Rules2210()
    name = name or ("classic_two_player" if players == 2 else "classic")
    try:
        rules = preset(name, **({} if turn_cap is None else {"turn_cap": turn_cap}))
    except RulesConfigError as bad:
        raise MatchError(f"{bad}; or {RULES_2210!r} for RISK 2210 A.D.") from None
    if players not in rules.player_counts():
        counts = ", ".join(str(c) for c in rules.player_counts())
        raise MatchError(f"rules {name!r} are for {counts} players, and the match has {players} bots")
    return rules


@dataclass
class Standing:
    """One bot's results over the match."""

    name: str
    games: int = 0
    wins: int = 0
    """Games it placed first in (ties at a turn cap count for each tied seat)."""
    places: int = 0
    timeouts: int = 0
    rejections: int = 0
    forfeits: int = 0

    @property
    def average_place(self) -> float:
        return self.places / self.games if self.games else 0.0


@dataclass
class Match:
    """A match: its bots, how many games, and the standings as games finish."""

    entrants: list[Entrant]
    rules: Rules | Rules2210
    games: int
    replay_dir: Path
    parallel: int = 1
    """Games played at once (each bot process is asked for this capacity)."""
    time_control: TimeControl = field(default_factory=TimeControl)
    connect_timeout_s: float = 30.0
    out: TextIO = field(default_factory=lambda: sys.stdout)
    store: Store | None = None
    """The database of a rated ladder (bots registered, games recorded with ratings); None: practice."""
    address: str = "127.0.0.1:0"
    queue_name: str = QUEUE
    tokens: dict[str, str] = field(default_factory=dict)
    """Each registered bot's token, by name: its process gets it in ``$CONQUEST_TOKEN``."""
    dashboard_port: int = 0
    """Serve the web dashboard over HTTP on this port while the match runs; 0: none."""
    extra_queues: tuple[QueueConfig, ...] = ()
    """Served beside the match's queue for bots that are not in the match (``conquest demo``'s practice
    queues): their games count towards ``games`` and are reported, but not in the standings."""
    finished: int = 0
    standings: dict[str, Standing] = field(default_factory=dict)
    _started_at: float = 0.0
    _bar_shown: bool = False

    async def run(self) -> None:
        """Start the server and the bots, play the games, then stop the bots and the server.

        Raises:
            MatchError: a bot failed to start, exited early or never joined (everything is stopped).
            OSError: the server or its dashboard could not listen on its port (the message says which).
        """
        house = tuple(e.house for e in self.entrants if e.house)
        queue = QueueConfig(
            self.queue_name,
            preset("classic") if isinstance(self.rules, Rules2210) else self.rules,
            len(self.entrants),
            self.time_control,
            house_opponents=house,
            r2210=self.rules if isinstance(self.rules, Rules2210) else None,
        )
        config = ServerConfig(
            address=self.address,
            replay_dir=self.replay_dir,
            metrics_port=0,
            dashboard_port=self.dashboard_port,
            queues=(queue, *self.extra_queues),
        )
        lobby = build_lobby(config, self.store)
        lobby.on_game_over = self._game_over
        lobby.games_left = self.games
        dashboard_token = dashboard_secret(config)
        server, port, health_servicer, _ = build_server(
            config, config.address, lobby, self.store, dashboard_token
        )
        recording = await start_recorder(lobby, health_servicer)  # results wait while a database is down
        await server.start()
        self._started_at = time.monotonic()
        dashboard = None
        try:
            if self.dashboard_port:
                dashboard = await start_web(config, port, self.store, lobby.metrics, dashboard_token)
            self._serving(port)
            for entrant in self.entrants:
                if entrant.command is not None:
                    await self._launch(entrant, f"127.0.0.1:{port}")
            await self._watch(lambda: not self._missing(lobby), self.connect_timeout_s, lobby)
            self._progress()
            await self._watch(lambda: self.finished >= self.games, None, lobby)
        finally:
            if self._bar_shown:
                print(file=self.out)
            await self._stop_bots()
            await lobby.shutdown(0)
            if recording is not None:
                recording.cancel()
            if dashboard is not None:
                await dashboard.stop()
            await server.stop(grace=None)

    async def _launch(self, entrant: Entrant, address: str) -> None:
        assert entrant.command is not None
        values = {
            "{address}": address,
            "{name}": entrant.name,
            "{queue}": self.queue_name,
            "{capacity}": str(self.parallel),
        }
        env = {k: v for k, v in os.environ.items() if k != TOKEN_VARIABLE}  # a practice bot plays by name
        if entrant.name in self.tokens:
            env[TOKEN_VARIABLE] = self.tokens[entrant.name]
        command = entrant.command
        for placeholder, value in values.items():
            command = command.replace(placeholder, shlex.quote(value))
        entrant.log = self.replay_dir / "bots" / f"{entrant.name}.log"
        entrant.log.parent.mkdir(parents=True, exist_ok=True)
        # subprocess.Popen, not the event loop's subprocess support: the loop (uvloop's libuv) fork()s, which
        # runs gRPC's fork handlers while the server's gRPC threads are busy, and the gRPC core prints
        # "Other threads are currently calling into gRPC, skipping fork() handlers" for each bot. Popen
        # starts the child with vfork(), which runs no fork handlers; the child only exec()s the shell.
        with entrant.log.open("wb") as log:  # the child keeps its own copy of the descriptor
            entrant.process = subprocess.Popen(
                command,
                shell=True,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                env=env,
            )

    def _missing(self, lobby: Lobby) -> list[Entrant]:
        """The bot processes not yet in the match queue; a command without ``{name}`` is known by the one
        name in the queue that no other bot has."""
        joined = {s.identity.name for s in lobby.sessions if self.queue_name in s.queues}
        named = {e.name for e in self.entrants if e.command is not None and "{name}" in e.command}
        for entrant in self.entrants:
            if entrant.command is not None and "{name}" not in entrant.command:
                entrant.name = next(iter(sorted(joined - named)), entrant.name)
        return [e for e in self.entrants if e.command is not None and e.name not in joined]

    async def _watch(self, ready: Callable[[], bool], timeout_s: float | None, lobby: Lobby) -> None:
        """Wait until ``ready()`` while every bot process keeps running.

        Raises:
            MatchError: a bot process exited, or ``timeout_s`` passed with bots not in the queue.
        """
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not ready():
            for entrant in self.entrants:
                if entrant.process is not None and entrant.process.poll() is not None:
                    raise MatchError(
                        f"bot {entrant.name} ({entrant.spec}) exited with code {entrant.process.returncode} "
                        f"before the match ended{_tail(entrant)}"
                    )
            if deadline is not None and time.monotonic() > deadline:
                raise MatchError(
                    "\n".join(
                        f"bot {e.name} ({e.spec}) did not connect and join the match queue within "
                        f"{timeout_s:g} s{_queue_hint(e)}{_tail(e)}"
                        for e in self._missing(lobby)
                    )
                )
            await asyncio.sleep(0.05)

    async def _stop_bots(self) -> None:
        """SIGTERM every bot's process group (its shell and all it started), give them ``STOP_GRACE_S``
        to finish, then SIGKILL what is left."""
        processes = [e.process for e in self.entrants if e.process is not None]
        for process in processes:
            _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        # Until the shells have exited and so have the bots they started (a shell may be gone while its bot
        # still exits).
        while any(p.poll() is None or _group_alive(p) for p in processes) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for process in processes:
            _signal_group(process, signal.SIGKILL)
            while process.poll() is None:
                await asyncio.sleep(0.01)

    def _serving(self, port: int) -> None:
        """Told once the server listens on ``port`` (and the dashboard, if any), before the bots start."""

    def _in_match(self, runner: AnyRunner) -> bool:
        """Whether ``runner`` is one of the match's games (not an extra queue's) and is over."""
        return runner.queue.name == self.queue_name and runner.state.is_over()

    def _game_over(self, runner: AnyRunner) -> None:
        if not runner.state.is_over():
            return
        self.finished += 1
        if runner.queue.name != self.queue_name:
            self._progress(f"{runner.queue.name}: {result_line(runner)}")
            return
        for index, seat in enumerate(runner.seats):
            standing = self.standings.setdefault(seat.name, Standing(seat.name))
            place = runner.state.places[index]
            standing.games += 1
            standing.wins += place == 1
            standing.places += place
            standing.forfeits += outcome(runner, index).startswith("forfeit")
            if isinstance(seat, RemoteSeat):
                standing.timeouts += seat.timeouts
                standing.rejections += seat.rejections
        self._progress(result_line(runner))

    def _progress(self, line: str = "") -> None:
        """On a terminal a bar redrawn in place; otherwise a line per finished game."""
        if not self.out.isatty():
            if line:
                say(self.out, f"[{self.finished}/{self.games}] {line}")
            return
        filled = round(BAR_WIDTH * self.finished / self.games)
        elapsed = time.monotonic() - self._started_at
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        self.out.write(f"\r[{bar}] {self.finished}/{self.games} games  {elapsed:.0f} s")
        self.out.flush()
        self._bar_shown = True

    def table(self) -> str:
        """The results per bot, best average place first, and where the replays are."""
        for entrant in self.entrants:
            self.standings.setdefault(entrant.name, Standing(entrant.name))
        rows = sorted(self.standings.values(), key=lambda s: (s.games == 0, s.average_place, -s.wins))
        width = max(len("bot"), *(len(s.name) for s in rows))
        lines = [f"{'bot':<{width}}  games  wins  avg place  timeouts  rejections  forfeits"]
        for s in rows:
            average = f"{s.average_place:.2f}" if s.games else "-"
            lines.append(
                f"{s.name:<{width}}  {s.games:>5}  {s.wins:>4}  {average:>9}  {s.timeouts:>8}  "
                f"{s.rejections:>10}  {s.forfeits:>8}"
            )
        lines.append(
            f"replays: {self.replay_dir}/ (conquest replay show FILE); bot logs: {self.replay_dir}/bots/"
        )
        return "\n".join(lines)


def _signal_group(process: subprocess.Popen[bytes], signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)  # the bot's shell and everything it started


def _group_alive(process: subprocess.Popen[bytes]) -> bool:
    try:
        os.killpg(process.pid, 0)
    except ProcessLookupError:
        return False
    return True


def _queue_hint(entrant: Entrant) -> str:
    """What a command without ``{queue}`` most likely got wrong: its bot joined its own default queue."""
    if entrant.command is None or "{queue}" in entrant.command:
        return ""
    return (
        "; its command has no {queue}, so the bot likely joined its default queue, which a match does not "
        "serve: add --queue {queue} to the command"
    )


def _tail(entrant: Entrant) -> str:
    """``; its output (LOG) ends with:`` and the last lines, for an error message."""
    if entrant.log is None:
        return ""
    try:
        lines = entrant.log.read_text(errors="replace").splitlines()[-TAIL_LINES:]
    except OSError:
        return ""
    if not lines:
        return f"; it printed nothing ({entrant.log})"
    return f"; its output ({entrant.log}) ends with:\n" + "\n".join(f"    {line}" for line in lines)


def cmd_match(args: argparse.Namespace) -> int:
    from server.ops.logs import configure_logging

    try:
        entrants = parse_entrants(args.bots)
        rules = match_rules(len(entrants), args.queue_rules, args.turn_cap)
    except MatchError as bad:
        print(f"conquest match: {bad}", file=sys.stderr)
        return 2
    replay_dir = args.replay_dir or Path("replays") / time.strftime("match-%Y%m%d-%H%M%S")
    match = Match(
        entrants, rules, args.games, replay_dir, args.parallel, connect_timeout_s=args.connect_timeout
    )
    configure_logging("console", logging.WARNING)  # the table is the output; server notes stay quiet
    failure = ""
    stop_on_signals()
    try:
        runtime.run(match.run())
    except MatchError as bad:
        failure = str(bad)
    except OSError as bad:
        print(f"conquest match: {bad}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        failure = "interrupted"
    if match.finished or not failure:
        print(match.table())
    if failure:
        print(f"conquest match: {failure}", file=sys.stderr)
        return 1
    return 0


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``match`` on the ``conquest`` parser."""
    match = commands.add_parser("match", help="play bots against each other locally (docs/cli.md)")
    match.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="random, aggressive, strategist, house:<policy>, or a shell command containing {address}",
    )
    match.add_argument(
        "--games", type=whole_number(1), default=10, help="games to play (default %(default)s)"
    )
    match.add_argument(
        "--queue-rules",
        help="rules preset, or 2210 for RISK 2210 A.D. (default: classic_two_player for 2 bots, else "
        "classic)",
    )
    match.add_argument("--parallel", type=whole_number(1), default=1, help="games at once (default 1)")
    match.add_argument("--turn-cap", type=int, help="end each game after this many turns")
    match.add_argument("--replay-dir", type=Path, help="(default replays/match-<date>-<time>)")
    match.add_argument(
        "--connect-timeout", type=float, default=30.0, help="seconds for the bots to join (default 30)"
    )
    match.set_defaults(run=cmd_match)
