package main

func (c *cmd) verify(args []string) int {
	return c.errorf(exitUsage, "verify: not implemented yet")
}
