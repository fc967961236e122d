package migrate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestProgressBar(t *testing.T) {
	assert.Equal(t, "[###############...............] 15/30  14 exchanged  1 failed  10s left", progressBar(15, 30, 14, 1, 10*time.Second))
	assert.Equal(t, "[..............................] 0/70000  0 exchanged  0 failed  ? left", progressBar(0, 70000, 0, 0, 0))
	assert.Equal(t, "[##############################] 0/0  0 exchanged  0 failed  ? left", progressBar(0, 0, 0, 0, 0))
}
