//go:build unix

package redisstore_test

import "syscall"

// pause stops redis-server with SIGSTOP, as a hung server or a lost network
// would: connections stay open and connects succeed (the kernel queues
// them), but nothing is answered until resume.
func (s *redisServer) pause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd.Process.Signal(syscall.SIGSTOP)
}

// resume continues a paused redis-server.
func (s *redisServer) resume() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd.Process.Signal(syscall.SIGCONT)
}
