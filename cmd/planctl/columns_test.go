package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Columns line up on a terminal whatever language their cells are in: a Chinese character
// takes two columns, as the terminal shows it.
func TestColumnsLineUpChineseText(t *testing.T) {
	var out strings.Builder
	c := newColumns(&out)
	c.Write([]byte("名称\t标题\t版本\n"))
	c.Write([]byte("ship\t发布 2.0\t3\n"))
	c.Write([]byte("a-very-long-name\tx\t12\n"))
	assert.NoError(t, c.Flush())
	assert.Equal(t, ""+
		"名称              标题      版本\n"+
		"ship              发布 2.0  3\n"+
		"a-very-long-name  x         12\n", out.String())

	assert.Equal(t, "计划看…", clipColumns("计划看板的标题", 7))
	assert.Equal(t, "abcdef", clipColumns("abcdef", 6))
	assert.Equal(t, "abcd…", clipColumns("abcdefg", 5))
}
