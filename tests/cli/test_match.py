"""``conquest match``: bots play each other on a local server, with progress and a results table.

Issue 3: "`conquest match` (run a local match or a batch between given bots with a progress bar and a
results table)".
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli.match import MatchError, match_rules, parse_entrants
from server.play.replays import load_any_replay_file, verify_record

PYTHON = shlex.quote(sys.executable)
ROW = re.compile(r"^(\S+) +(\d+) +(\d+) +([\d.]+|-) +(\d+) +(\d+) +(\d+)$", re.MULTILINE)


def conquest_match(
    tmp_path: Path, *args: str, turn_cap: int | None = 15
) -> tuple[subprocess.CompletedProcess[str], dict[str, tuple]]:
    """Run ``conquest match ARGS`` (fast games: a turn cap of 15 unless None); the result and the table's
    rows by bot: (games, wins, average place, timeouts, rejections, forfeits)."""
    command = [sys.executable, "-m", "server.cli.main", "match", *args]
    command += [] if turn_cap is None else ["--turn-cap", str(turn_cap)]
    done = subprocess.run(
        [*command, "--replay-dir", str(tmp_path / "replays")], capture_output=True, text=True, timeout=120
    )
    rows = {
        m[0]: (int(m[1]), int(m[2]), m[3], int(m[4]), int(m[5]), int(m[6])) for m in ROW.findall(done.stdout)
    }
    return done, rows


def check_replays(tmp_path: Path, games: int) -> None:
    files = sorted((tmp_path / "replays").glob("*.json"))
    assert len(files) == games
    for path in files:
        verify_record(*load_any_replay_file(path))


def test_two_sample_bots_play_the_games_asked_for_and_get_a_table(tmp_path: Path):
    """Issue 3: `conquest match random aggressive --games 2` runs a local batch between the given bots
    and prints a results table (games, wins, average place, timeouts, rejections, forfeits)."""
    done, rows = conquest_match(tmp_path, "random", "aggressive", "--games", "2")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^bot +games  wins  avg place  timeouts  rejections  forfeits$", done.stdout, re.M)
    assert set(rows) == {"random", "aggressive"}
    for games, _, average, timeouts, rejections, forfeits in rows.values():
        assert games == 2 and 1.0 <= float(average) <= 2.0
        assert (timeouts, rejections, forfeits) == (0, 0, 0)
    assert sum(float(row[2]) for row in rows.values()) == 2 * 1.5 or any(r[1] == 2 for r in rows.values())
    assert len(re.findall(r"^\[\d/2\] game \w+: 1\. ", done.stdout, re.MULTILINE)) == 2  # one line a game
    assert f"replays: {tmp_path / 'replays'}/" in done.stdout
    check_replays(tmp_path, 2)


def test_a_house_policy_plays_in_the_server_process(tmp_path: Path):
    """The brief: BOT may be `house:<policy>` for an in-process engine policy."""
    done, rows = conquest_match(tmp_path, "random", "house:aggressive", "--games", "2")
    assert done.returncode == 0, done.stderr
    assert set(rows) == {"random", "house-aggressive"}
    assert all(row[0] == 2 for row in rows.values())
    assert not (tmp_path / "replays" / "bots" / "house-aggressive.log").exists()  # no process
    check_replays(tmp_path, 2)


def test_command_templates_run_any_bot_and_a_nameless_one_is_known_by_the_name_it_sends(tmp_path: Path):
    """The brief: BOT may be a shell command containing {address} (and optionally {name}, {queue}) for
    any bot in any language; three bots play the classic rules."""
    named = f"{PYTHON} -m conquest_bots.aggressive --address {{address}} --name {{name}} --queue {{queue}}"
    nameless = f"cd . && {PYTHON} -m conquest_bots.random_bot --address {{address}} --queue match --name me"
    done, rows = conquest_match(tmp_path, named, nameless, "random", "--games", "1")
    assert done.returncode == 0, done.stderr
    assert set(rows) == {"aggressive", "me", "random"}
    assert sorted(float(row[2]) for row in rows.values()) in (
        [1.0, 2.0, 3.0],
        [1.0, 1.0, 3.0],
        [1.0, 2.0, 2.0],
    )
    assert "game " in (tmp_path / "replays" / "bots" / "aggressive.log").read_text()
    check_replays(tmp_path, 1)


def test_a_bot_command_that_fails_to_start_is_reported_with_its_output(tmp_path: Path):
    """The brief: a bot process that exits early is reported with a clear message and its stderr tail."""
    done, _ = conquest_match(tmp_path, "random", "no-such-bot-program --address {address}", "--games", "1")
    assert done.returncode == 1
    assert "bot no-such-bot-program (no-such-bot-program --address {address}) exited with code 127" in (
        done.stderr
    )
    assert "no-such-bot-program: not found" in done.stderr  # the shell's own complaint, quoted
    assert "random" not in done.stdout  # no game was played: no table


def test_a_bot_that_never_connects_is_reported_after_the_connect_timeout(tmp_path: Path):
    """The brief: a bot process that never connects is reported with a clear message and its stderr tail."""
    silent = "echo starting up >&2; sleep 30 # {address}"
    done, _ = conquest_match(tmp_path, "random", silent, "--games", "1", "--connect-timeout", "1")
    assert done.returncode == 1
    assert re.search(
        r"bot \S+ \(echo starting up .*\) did not connect and join the match queue within 1 s", done.stderr
    )
    # Issue 32: the README's bot "fails ... after 30 s (`no queue 'classic-4'; queues: match`: it needs
    # `--queue {queue}`)": a command without {queue} is told so.
    assert "its command has no {queue}, so the bot likely joined its default queue" in done.stderr
    assert "    starting up" in done.stderr


@pytest.mark.parametrize(
    ("specs", "complaint"),
    [
        (["random", "randon"], "'randon' is not a bot: give a sample bot (random, aggressive, strategist)"),
        (["random", "house:smart"], "no house policy 'smart'; use aggressive, random"),
        (["house:random", "house:aggressive"], "at least one bot process"),
        (["./a {address}", "./b {address}"], "2 commands have no {name}"),
    ],
)
def test_bad_bots_are_refused_with_what_would_be_right(specs: list[str], complaint: str):
    """House rule: bad input gets a clear error saying what was wrong and what would be right."""
    with pytest.raises(MatchError) as refused:
        parse_entrants(specs)
    assert complaint in str(refused.value)


def test_entrants_get_distinct_names_that_match_their_seats():
    """Seats are named by the bot: a sample bot's name, a command's program, house-<policy>; repeats are
    numbered so the table can tell them apart."""
    specs = ["random", "random", "house:random", "house:random", "./my_bot {address} {name}"]
    specs += ["node dist/fast.js --address {address} --name {name}", "java -jar bot.jar {address} {name}"]
    names = [e.name for e in parse_entrants(specs)]
    assert names == ["random", "random-2", "my_bot", "fast", "java", "house-random", "house-random-2"]


def test_rules_follow_the_player_count_unless_chosen():
    """The brief: rules chosen by player count: 2 -> classic_two_player, 3-6 -> classic; overridable."""
    assert match_rules(2).name == "classic_two_player"
    assert match_rules(5, turn_cap=9).turn_cap == 9
    assert match_rules(4, "classic_dealt").name == "classic_dealt"
    with pytest.raises(MatchError, match="'classic_two_player' are for 2 players, and the match has 3 bots"):
        match_rules(3, "classic_two_player")
    with pytest.raises(MatchError, match=r"no rules preset 'clasic'.*or '2210' for RISK 2210 A\.D\."):
        match_rules(3, "clasic")


def test_2210_rules_are_checked_for_seats_and_refuse_a_turn_cap():
    """Issue 19: 2210 is played "for every player count" (2 to 5); its games end after 5 years, so a turn
    cap is refused with what to do instead."""
    assert [match_rules(n, "2210").name for n in (2, 5)] == ["2210", "2210"]
    with pytest.raises(MatchError, match="rules '2210' are for 2, 3, 4, 5 players, and the match has 6 bots"):
        match_rules(6, "2210")
    with pytest.raises(MatchError, match="ends after its 5 years; drop --turn-cap"):
        match_rules(3, "2210", turn_cap=9)


def test_a_2210_match_plays_whole_games_whose_replays_verify(tmp_path: Path):
    """Issue 19: "`make test` on a fresh clone plays 2210 end to end over gRPC for every player count with
    Python bots": `conquest match --queue-rules 2210` seats bot processes and house seats in a 2210 queue."""
    done, rows = conquest_match(
        tmp_path, "random", "random", "house:random", "--games", "2", "--queue-rules", "2210", turn_cap=None
    )
    assert done.returncode == 0, done.stderr
    assert set(rows) == {"random", "random-2", "house-random"}
    assert all(row[0] == 2 and row[3:] == (0, 0, 0) for row in rows.values())
    assert len(re.findall(r"year_5 after 5 years$", done.stdout, re.MULTILINE)) == 2
    check_replays(tmp_path, 2)


STUBBORN = """
from conquest_sdk import Bot, actions, run


class Stubborn(Bot):
    name = "stubborn"

    def decide(self, game, turn):
        if not game.notes.get("refused"):  # one illegal decision a game; the SDK retries with the default
            game.notes["refused"] = True
            return actions.fortify(0, 0, 99)
        return turn.legal.default()


raise SystemExit(run(Stubborn()))
"""


def test_rejected_decisions_are_counted_per_bot(tmp_path: Path):
    """The brief: the results table shows per bot ... rejections."""
    script = tmp_path / "stubborn.py"
    script.write_text(STUBBORN)
    command = f"{PYTHON} {script} --address {{address}} --name {{name}} --queue {{queue}}"
    done, rows = conquest_match(tmp_path, command, "house:random", "--games", "2")
    assert done.returncode == 0, done.stderr
    assert rows["stubborn"][0] == 2 and rows["stubborn"][4] == 2
    assert rows["house-random"][4] == 0


def test_the_readmes_match_line_plays_the_readmes_bot(tmp_path: Path):
    """Issue 32: "The README's `conquest match ... "./my_bot --address {address} --name {name}"` fails with
    the README's own bot after 30 s"; every command the README gives a newcomer must work as written."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    code = readme.split("## Write a bot", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "my_bot.py").write_text(code)
    line = re.search(r"conquest match (.*?) --games 20", readme.replace("\\\n", " "), re.S)
    assert line, "the README's conquest match example moved"
    specs = [spec.replace(".venv/bin/python", PYTHON) for spec in shlex.split(line.group(1))]
    assert specs[-1].endswith("my_bot.py --address {address} --name {name} --queue {queue}")
    specs[-1] = specs[-1].replace("my_bot.py", str(tmp_path / "my_bot.py"))
    done, rows = conquest_match(tmp_path, "random", specs[-1], "--games", "1", "--connect-timeout", "20")
    assert done.returncode == 0, done.stderr
    assert rows["my_bot"][0] == 1 and rows["my_bot"][3:] == (0, 0, 0)
