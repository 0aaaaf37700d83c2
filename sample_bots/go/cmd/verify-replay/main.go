// Command verify-replay re-derives every roll and shuffle of a recorded game from its revealed seed and
// compares them with the game's events (docs/protocol.md, "Randomness"), for classic and RISK 2210 A.D.
// replays alike (a 2210 replay says "game": "2210"), of games played on one server (format 1) or taken over
// by another (format 2: each reseed checked, the draws after it from its fresh seed).
//
//	bin/verify-replay REPLAY.json EVENTS.jsonl
//
// EVENTS.jsonl is `conquest replay events REPLAY.json` (GameEvent lines, or GameEvent2210 lines for a
// 2210 replay). Exit status: 0 all match, 1 a mismatch (each printed), 2 unreadable input.
package main

import (
	"fmt"
	"os"

	"conquestbot/verify"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: verify-replay REPLAY.json EVENTS.jsonl   (EVENTS: `conquest replay events REPLAY.json`)")
		return 2
	}
	notes, mismatches, err := check(args[0], args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", args[0], err)
		return 2
	}
	for _, note := range notes {
		fmt.Printf("%s: %s\n", args[0], note)
	}
	for _, m := range mismatches {
		fmt.Println(m)
	}
	if len(mismatches) > 0 {
		fmt.Printf("FAIL %s: %d mismatch(es)\n", args[0], len(mismatches))
		return 1
	}
	fmt.Printf("OK   %s\n", args[0])
	return 0
}

// check reads both files; verify.VerifyFiles dispatches on the replay's "game" (classic or 2210).
func check(replayPath, eventsPath string) ([]string, []verify.Mismatch, error) {
	replay, err := os.ReadFile(replayPath)
	if err != nil {
		return nil, nil, err
	}
	events, err := os.ReadFile(eventsPath)
	if err != nil {
		return nil, nil, err
	}
	return verify.VerifyFiles(replay, events)
}
