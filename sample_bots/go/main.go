// Command conquestbot is the Go starter kit for Conquest: it connects to a server and plays.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	cfg := Config{}
	var queues string
	capacity := 0
	flag.StringVar(&cfg.Addr, "server", "localhost:50051", "server address, host:port")
	flag.StringVar(&cfg.Token, "token", os.Getenv("CONQUEST_TOKEN"), "bot token for ranked play (default $CONQUEST_TOKEN)")
	flag.StringVar(&cfg.Name, "name", "go-aggressive", "bot name for practice play (without a token)")
	flag.StringVar(&queues, "queue", "", "queues to join, comma-separated (default: the server's first queue)")
	flag.IntVar(&capacity, "capacity", 4, "games to play at the same time (1-64)")
	flag.IntVar(&cfg.Games, "games", 0, "stop after this many games (0: play until interrupted)")
	flag.Parse()
	cfg.Capacity = int32(capacity)
	if queues != "" {
		cfg.Queues = strings.Split(queues, ",")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := NewClient(cfg).Run(ctx); err != nil && ctx.Err() == nil {
		log.Fatal(err)
	}
}
