package main

// The client's session logic against a scripted server stream (no network).

import (
	"context"
	"io"
	"testing"

	pb "conquestbot/gen/conquest/v1"

	"google.golang.org/grpc"
)

// scriptedStream plays the server's messages in order, then ends the stream, and records what the
// client sent.
type scriptedStream struct {
	grpc.ClientStream
	replies    []*pb.ConnectResponse
	sent       []*pb.ConnectRequest
	closedSend bool
}

func (s *scriptedStream) Send(m *pb.ConnectRequest) error {
	s.sent = append(s.sent, m)
	return nil
}

func (s *scriptedStream) Recv() (*pb.ConnectResponse, error) {
	if len(s.replies) == 0 {
		return nil, io.EOF
	}
	m := s.replies[0]
	s.replies = s.replies[1:]
	return m, nil
}

func (s *scriptedStream) CloseSend() error {
	s.closedSend = true
	return nil
}

type scriptedServer struct{ stream *scriptedStream }

func (s scriptedServer) Connect(context.Context, ...grpc.CallOption) (grpc.BidiStreamingClient[pb.ConnectRequest, pb.ConnectResponse], error) {
	return s.stream, nil
}

func welcome(resumed ...string) *pb.ConnectResponse {
	return &pb.ConnectResponse{Message: &pb.ConnectResponse_Welcome{Welcome: &pb.Welcome{ResumedGameIds: resumed}}}
}

// Issue 7 (session 1 note): "the Go, TS and Java clients don't forget games that ended while they were
// disconnected, so with --games N such a game is never counted". The Welcome after a reconnect lists
// the games still in progress; the others ended while we were away and get no GameOver.
func TestWelcomeForgetsGamesThatEndedWhileDisconnected(t *testing.T) {
	c := NewClient(Config{Games: 2, Queues: []string{"classic-4"}})
	c.started = 2
	c.games["ended"] = &Game{ID: "ended"}
	c.games["running"] = &Game{ID: "running"}
	stream := &scriptedStream{replies: []*pb.ConnectResponse{welcome("running")}}
	if _, err := c.session(context.Background(), scriptedServer{stream}); err == nil {
		t.Fatal("the stream ended, yet the session reported no error")
	}
	if c.games["ended"] != nil || c.games["running"] == nil {
		t.Fatalf("games after the Welcome: %v, want only the resumed one", c.games)
	}
	if c.done() {
		t.Fatal("done while the resumed game is still being played")
	}
	c.gameOver(&pb.GameOver{GameId: "running"})
	if !c.done() {
		t.Fatal("not done after both games ended")
	}
}

func TestWelcomeWithNothingResumedEndsAFinishedRun(t *testing.T) {
	c := NewClient(Config{Games: 1, Queues: []string{"classic-4"}})
	c.started = 1
	c.games["ended"] = &Game{ID: "ended"}
	stream := &scriptedStream{replies: []*pb.ConnectResponse{welcome()}}
	welcomed, err := c.session(context.Background(), scriptedServer{stream})
	if !welcomed || err != nil || !stream.closedSend {
		t.Fatalf("session = (%v, %v), closed %v; want the stream closed cleanly after the Welcome", welcomed, err, stream.closedSend)
	}
	for _, m := range stream.sent {
		if m.GetJoinQueue() != nil {
			t.Fatalf("joined a queue after all its games were played: %v", m)
		}
	}
}

func started(id string) *pb.ConnectResponse {
	return &pb.ConnectResponse{Message: &pb.ConnectResponse_GameStarted{GameStarted: &pb.GameStarted{GameId: id}}}
}

func over(id string) *pb.ConnectResponse {
	return &pb.ConnectResponse{Message: &pb.ConnectResponse_GameOver{GameOver: &pb.GameOver{GameId: id}}}
}

// joins lists the JoinQueue.games of every JoinQueue the client sent.
func joins(sent []*pb.ConnectRequest) []int32 {
	games := []int32{}
	for _, m := range sent {
		if j := m.GetJoinQueue(); j != nil {
			games = append(games, j.GetGames())
		}
	}
	return games
}

// bot.proto, JoinQueue.games: "Seat this bot in at most this many more games of the queue, then leave it
// (0: no limit)". With -games 1 and capacity 2 the kit used to join without a limit, was seated in two
// games and abandoned the second when it stopped.
func TestJoinQueueAsksForTheGamesToPlay(t *testing.T) {
	for _, games := range []int{0, 1, 3} {
		c := NewClient(Config{Games: games, Capacity: 2, Queues: []string{"classic-4"}})
		stream := &scriptedStream{replies: []*pb.ConnectResponse{welcome()}}
		c.session(context.Background(), scriptedServer{stream})
		if got := joins(stream.sent); len(got) != 1 || got[0] != int32(games) {
			t.Errorf("-games %d: JoinQueue.games sent %v, want [%d]", games, got, games)
		}
	}
}

// The server seats the last game of the limit (QueueStatus joined=false) before that game's GameStarted
// reaches us; a game ending in between must not join again, or a game more than asked would start.
func TestNoJoinQueueWhenAGameEnds(t *testing.T) {
	c := NewClient(Config{Games: 2, Capacity: 2, Queues: []string{"classic-4"}})
	left := &pb.ConnectResponse{Message: &pb.ConnectResponse_QueueStatus{QueueStatus: &pb.QueueStatus{Queue: "classic-4"}}}
	stream := &scriptedStream{replies: []*pb.ConnectResponse{welcome(), started("a"), left, over("a"), started("b"), over("b")}}
	if _, err := c.session(context.Background(), scriptedServer{stream}); err != nil || !stream.closedSend {
		t.Fatalf("session ended with %v, closed %v; want a clean close after both games", err, stream.closedSend)
	}
	if got := joins(stream.sent); len(got) != 1 || got[0] != 2 {
		t.Fatalf("JoinQueue.games sent %v, want [2]", got)
	}
}

// After a reconnect the kit joins again (membership does not survive a disconnect) for the games left:
// -games minus those started, whether they finished, are resumed, or ended while we were away.
func TestJoinQueueAfterAReconnectAsksForTheGamesLeft(t *testing.T) {
	c := NewClient(Config{Games: 4, Queues: []string{"classic-4"}})
	stream := &scriptedStream{replies: []*pb.ConnectResponse{welcome(), started("finished"), over("finished"), started("running")}}
	c.session(context.Background(), scriptedServer{stream})
	stream = &scriptedStream{replies: []*pb.ConnectResponse{welcome("running"), started("running")}}
	c.session(context.Background(), scriptedServer{stream})
	if got := joins(stream.sent); len(got) != 1 || got[0] != 2 {
		t.Fatalf("JoinQueue.games sent after the reconnect %v, want [2] (4 games, 2 started)", got)
	}
	// A resumed game we never saw start (seated as the connection dropped) counts too.
	stream = &scriptedStream{replies: []*pb.ConnectResponse{welcome("running", "unseen"), started("running"), started("unseen")}}
	c.session(context.Background(), scriptedServer{stream})
	if got := joins(stream.sent); len(got) != 1 || got[0] != 1 {
		t.Fatalf("JoinQueue.games sent after the second reconnect %v, want [1] (4 games, 3 started)", got)
	}
	if c.started != 3 {
		t.Fatalf("started = %d after the unseen game's GameStarted, want 3", c.started)
	}
}

// Issue 20's review: "A Welcome can list a game that does not resume ... the SDK keeps waiting for it
// forever ... the bot must be told": Error{not_resumed} for a game the Welcome listed ends the wait.
func TestNotResumedStopsWaitingForTheGame(t *testing.T) {
	c := NewClient(Config{Games: 1, Queues: []string{"classic-4"}})
	c.started = 1
	c.games["gone"] = &Game{ID: "gone"}
	notResumed := &pb.ConnectResponse{Message: &pb.ConnectResponse_Error{Error: &pb.Error{Code: "not_resumed", GameId: "gone"}}}
	stream := &scriptedStream{replies: []*pb.ConnectResponse{welcome("gone"), notResumed}}
	if _, err := c.session(context.Background(), scriptedServer{stream}); err != nil || !stream.closedSend {
		t.Fatalf("session ended with %v, closed %v; want a clean close once the game is not resumed", err, stream.closedSend)
	}
	if !c.done() {
		t.Fatal("still waiting for a game the server will not resume")
	}
}
