//go:build !unix

package redisstore_test

import "errors"

func (s *redisServer) pause() error  { return errors.New("pausing a process needs SIGSTOP") }
func (s *redisServer) resume() error { return nil }
