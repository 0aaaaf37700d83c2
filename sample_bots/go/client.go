package main

// The connection side of the kit: one stream, Hello, queues, many games at once, retries after a
// rejection and reconnects after a dropped connection. Strategy lives in strategy.go.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"slices"
	"time"

	pb "conquestbot/gen/conquest/v1"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

const (
	clientName    = "conquest-go-kit"
	clientVersion = "0.1.0"
	firstBackoff  = 500 * time.Millisecond
	maxBackoff    = 15 * time.Second
)

// Config says where to connect and what to play.
type Config struct {
	Addr     string   // host:port of the server
	Token    string   // registered bot token; empty for practice play under Name
	Name     string   // practice name
	Capacity int32    // games played at once
	Queues   []string // queues to join; empty: the first queue the server offers
	Games    int      // stop after this many games; 0: play forever
}

// Game is what the kit remembers of one game in progress.
type Game struct {
	ID      string
	Seat    int32
	Players []*pb.Player
	Map     *pb.MapInfo
	Rules   *pb.RulesInfo
	last    *pb.DecisionRequest // the request being answered, for a retry after a rejection
}

// Headquarters is our headquarters territory id (Capital Risk), or -1 before we have chosen and in
// other games.
func (g *Game) Headquarters(obs *pb.Observation) int32 {
	if hq := obs.GetHeadquarters(); int(g.Seat) < len(hq) {
		return hq[g.Seat]
	}
	return -1
}

// Mission is our Secret Mission card, or nil in other games.
func (g *Game) Mission(obs *pb.Observation) *pb.Mission {
	if id := obs.GetMission(); id >= 0 && int(id) < len(g.Rules.GetMissions()) {
		return g.Rules.GetMissions()[id]
	}
	return nil
}

// Client plays games for one bot; its games outlive a dropped connection.
type Client struct {
	cfg      Config
	games    map[string]*Game
	started  int
	finished int
}

// errFatal marks a session error that reconnecting cannot fix (a bad token or name).
var errFatal = errors.New("fatal")

// NewClient makes a client; call Run to play.
func NewClient(cfg Config) *Client {
	return &Client{cfg: cfg, games: map[string]*Game{}}
}

func (c *Client) wantMore() bool { return c.cfg.Games == 0 || c.started < c.cfg.Games }

func (c *Client) done() bool { return !c.wantMore() && len(c.games) == 0 }

// Run plays until the game count is reached, the context ends or the server refuses the bot,
// reconnecting with exponential backoff (and jitter) whenever the stream drops.
func (c *Client) Run(ctx context.Context) error {
	conn, err := grpc.NewClient(c.cfg.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("bad server address %q: %w", c.cfg.Addr, err)
	}
	defer conn.Close()
	backoff := firstBackoff
	for {
		welcomed, err := c.session(ctx, pb.NewBotServiceClient(conn))
		if c.done() || errors.Is(err, errFatal) || ctx.Err() != nil {
			return err
		}
		if welcomed {
			backoff = firstBackoff
		}
		wait := backoff/2 + rand.N(backoff/2+1)
		log.Printf("connection lost (%v); reconnecting in %v", err, wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// session runs one stream; it reports whether the server welcomed us, and why the stream ended.
func (c *Client) session(ctx context.Context, api pb.BotServiceClient) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := api.Connect(ctx)
	if err != nil {
		return false, err
	}
	send := func(m *pb.ConnectRequest) error { return stream.Send(m) }
	hello := &pb.Hello{
		Token: c.cfg.Token, Name: c.cfg.Name, ClientName: clientName, ClientVersion: clientVersion,
		Capacity: c.cfg.Capacity,
	}
	if err := send(&pb.ConnectRequest{Message: &pb.ConnectRequest_Hello{Hello: hello}}); err != nil {
		return false, err
	}
	welcomed := false
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return welcomed, errors.New("the server closed the stream")
		}
		if err != nil {
			return welcomed, err
		}
		switch m := msg.GetMessage().(type) {
		case *pb.ConnectResponse_Welcome:
			welcomed = true
			w := m.Welcome
			log.Printf("welcome %s (session %s, server %s, ranked %v, resumed games %v)",
				w.GetBotName(), w.GetSessionId(), w.GetServerVersion(), w.GetRanked(), w.GetResumedGameIds())
			c.forgetGamesNotResumed(w.GetResumedGameIds())
			if c.done() {
				return welcomed, stream.CloseSend()
			}
			if len(c.cfg.Queues) == 0 && len(w.GetQueues()) > 0 {
				c.cfg.Queues = []string{w.GetQueues()[0].GetName()}
			}
			err = c.joinQueues(send, w.GetResumedGameIds())
		case *pb.ConnectResponse_GameStarted:
			// Sent again for each game resumed after a reconnect.
			g := m.GameStarted
			if c.games[g.GetGameId()] == nil {
				c.started++
				log.Printf("game %s started: seat %d of %d (%s)", g.GetGameId(), g.GetSeat(), len(g.GetPlayers()), g.GetQueue())
			}
			c.games[g.GetGameId()] = &Game{
				ID: g.GetGameId(), Seat: g.GetSeat(), Players: g.GetPlayers(), Map: g.GetMap(), Rules: g.GetRules(),
			}
			if !c.wantMore() {
				err = c.leaveQueues(send)
			}
		case *pb.ConnectResponse_DecisionRequest:
			err = send(c.decide(m.DecisionRequest))
		case *pb.ConnectResponse_DecisionRejected:
			err = c.retry(m.DecisionRejected, send)
		case *pb.ConnectResponse_GameEvents:
			// Public events; the next DecisionRequest carries the whole observation anyway.
		case *pb.ConnectResponse_GameOver:
			c.gameOver(m.GameOver)
			if c.done() {
				return welcomed, stream.CloseSend()
			}
		case *pb.ConnectResponse_QueueStatus:
			// Our membership stands until we leave, reach JoinQueue.games or disconnect: nothing to do.
		case *pb.ConnectResponse_Error:
			e := m.Error
			log.Printf("server error %s: %s", e.GetCode(), e.GetMessage())
			// A refused Hello is final; a server shutting down may come back.
			if e.GetFatal() && e.GetCode() != "shutting_down" {
				return welcomed, fmt.Errorf("%w: %s: %s", errFatal, e.GetCode(), e.GetMessage())
			}
			if e.GetCode() == "not_resumed" {
				c.notResumed(e.GetGameId())
				if c.done() {
					return welcomed, stream.CloseSend()
				}
			}
		}
		if err != nil {
			return welcomed, err
		}
	}
}

// forgetGamesNotResumed drops the games that ended while we were disconnected: the server resumes
// only the games still in progress, and we will get no GameOver for the others.
func (c *Client) forgetGamesNotResumed(resumed []string) {
	for id := range c.games {
		if !slices.Contains(resumed, id) {
			delete(c.games, id)
		}
	}
}

// notResumed stops waiting for a game the Welcome listed as resumed that will not come back (it ended,
// or our seat forfeited, while we were away: Error "not_resumed"). One we never saw start counts as
// started, as joinQueues counted it.
func (c *Client) notResumed(id string) {
	if c.games[id] == nil {
		c.started++
	}
	delete(c.games, id)
}

// joinQueues joins every configured queue once per connection (membership stands until we leave, reach
// JoinQueue.games or disconnect) for the games still to start: Games minus those started, counting a
// resumed game we never saw start (seated as the connection dropped; its GameStarted follows). The
// server seats us in at most that many, so it never starts a game we would abandon.
func (c *Client) joinQueues(send func(*pb.ConnectRequest) error, resumed []string) error {
	left := 0 // JoinQueue.games 0: no limit
	if c.cfg.Games > 0 {
		left = c.cfg.Games - c.started
		for _, id := range resumed {
			if c.games[id] == nil {
				left--
			}
		}
		if left <= 0 {
			return nil
		}
	}
	for _, q := range c.cfg.Queues {
		join := &pb.ConnectRequest_JoinQueue{JoinQueue: &pb.JoinQueue{Queue: q, Games: int32(left)}}
		if err := send(&pb.ConnectRequest{Message: join}); err != nil {
			return err
		}
	}
	return nil
}

// leaveQueues leaves every queue once Games games have started (with several queues, each was joined
// for all the games left, so another queue could still seat us).
func (c *Client) leaveQueues(send func(*pb.ConnectRequest) error) error {
	for _, q := range c.cfg.Queues {
		leave := &pb.ConnectRequest_LeaveQueue{LeaveQueue: &pb.LeaveQueue{Queue: q}}
		if err := send(&pb.ConnectRequest{Message: leave}); err != nil {
			return err
		}
	}
	return nil
}

// decide answers a request with the strategy's action; a game we know nothing of (or a strategy
// that panics) gets the plainest legal action instead, so the seat never times out.
func (c *Client) decide(req *pb.DecisionRequest) (reply *pb.ConnectRequest) {
	game := c.games[req.GetGameId()]
	answer := func(action *pb.Action) *pb.ConnectRequest {
		d := &pb.Decision{GameId: req.GetGameId(), RequestId: req.GetRequestId(), Action: action}
		return &pb.ConnectRequest{Message: &pb.ConnectRequest_Decision{Decision: d}}
	}
	if r := req.GetR2210(); r != nil {
		// A RISK 2210 A.D. game: answered from its Legal2210 alone (r2210.go).
		if game != nil {
			game.last = req
		}
		return decision2210(req.GetGameId(), req.GetRequestId(), Default2210(r.GetLegal()))
	}
	if game == nil {
		log.Printf("game %s: request for a game we were not told about; playing safe", req.GetGameId())
		return answer(SafeAction(req.GetLegal()))
	}
	game.last = req
	defer func() {
		if r := recover(); r != nil {
			log.Printf("game %s: strategy failed (%v); playing safe", game.ID, r)
			reply = answer(SafeAction(req.GetLegal()))
		}
	}()
	return answer(Decide(game, req))
}

// retry answers a rejected decision with the plainest legal action while time is left.
func (c *Client) retry(r *pb.DecisionRejected, send func(*pb.ConnectRequest) error) error {
	log.Printf("game %s: decision %d rejected: %s", r.GetGameId(), r.GetRequestId(), r.GetReason())
	game := c.games[r.GetGameId()]
	if !r.GetCanRetry() || game == nil || game.last == nil || game.last.GetRequestId() != r.GetRequestId() {
		return nil
	}
	if r2210 := game.last.GetR2210(); r2210 != nil {
		return send(decision2210(r.GetGameId(), r.GetRequestId(), Default2210(r2210.GetLegal())))
	}
	d := &pb.Decision{GameId: r.GetGameId(), RequestId: r.GetRequestId(), Action: SafeAction(game.last.GetLegal())}
	return send(&pb.ConnectRequest{Message: &pb.ConnectRequest_Decision{Decision: d}})
}

func decision2210(gameID string, requestID int64, action *pb.Action2210) *pb.ConnectRequest {
	d := &pb.Decision{GameId: gameID, RequestId: requestID, Game: &pb.Decision_R2210{R2210: action}}
	return &pb.ConnectRequest{Message: &pb.ConnectRequest_Decision{Decision: d}}
}

func (c *Client) gameOver(over *pb.GameOver) {
	game := c.games[over.GetGameId()]
	delete(c.games, over.GetGameId())
	c.finished++
	for _, r := range over.GetResults() {
		if game != nil && r.GetSeat() == game.Seat {
			log.Printf("game %s over after %d turns (%s): place %d, %s", over.GetGameId(), over.GetTurns(),
				over.GetReason(), r.GetPlace(), r.GetOutcome())
		}
	}
}
