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
