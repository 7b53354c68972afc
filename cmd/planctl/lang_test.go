//go:build unix

package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// langDir is a plans folder with plan ship, approved at revision 1 by alice.
func langDir(t *testing.T) string {
	t.Helper()
	dir, store := proofDir(t, "# Ship\n- [ ] Build (uses deploy)\n- [ ] Test\n- [ ] Tag\n")
	_, err := store.Approve(context.Background(), "ship", 1, "alice")
	require.NoError(t, err)
	return dir
}

// Under a Chinese locale, or with -lang zh, planctl says everything in Chinese: help, show,
// list, budget, comment and its errors, with the board's words. The error codes scripts
// read stay as they are.
func TestPeopleReadChineseUnderAChineseLocaleOrLangZh(t *testing.T) {
	ways := map[string]struct {
		env  []string
		args []string
	}{
		"LANG=zh_CN.UTF-8":                  {env: []string{"LANG=zh_CN.UTF-8"}},
		"LC_MESSAGES=zh_CN over LANG=en_US": {env: []string{"LANG=en_US.UTF-8", "LC_MESSAGES=zh_CN.UTF-8"}},
		"-lang zh under LANG=C.UTF-8":       {env: []string{"LANG=C.UTF-8"}, args: []string{"-lang", "zh"}},
	}
	for name, way := range ways {
		t.Run(name, func(t *testing.T) {
			dir := langDir(t)
			run := func(args ...string) result {
				return runBuiltWith(t, way.env, append(append([]string{"-dir", dir}, way.args...), args...)...)
			}

			r := run("-h")
			assert.Equal(t, exitOK, r.code)
			assert.Contains(t, r.stdout, "用法：planctl")
			assert.Contains(t, r.stdout, "批准第 N 版")
			assert.NotContains(t, r.stdout, "Usage:")
			assert.NotContains(t, r.stdout, "Commands:")

			r = run("show", "ship")
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Contains(t, r.stdout, "ship：Ship\n状态：  draft\n版本：  2\n批准：  已由 alice 批准（第 1 版），")
			assert.Contains(t, r.stdout, "进度：  [----------] 0/3（0%），下一步：第 1 步，Build (uses deploy)\n")
			assert.Contains(t, r.stdout, "工具：  第 1 步：deploy；其他步骤：无\n")
			assert.Contains(t, r.stdout, "- [ ] Build (uses deploy)\n", "the plan's own text stays as written")
			for _, en := range []string{"status:", "revision:", "approval:", "approved at", "progress:", "other steps"} {
				assert.NotContains(t, r.stdout, en)
			}

			r = run("list")
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Regexp(t, `^名称\s+标题\s+状态\s+进度\s+版本\s+批准\s+更新时间\n`, r.stdout)
			assert.Regexp(t, `\nship\s+Ship\s+draft\s+\[----------\] 0/3\s+2\s+第 1 版，alice\s+\d{4}-`, r.stdout)
			assert.NotContains(t, r.stdout, "NAME")
			assert.NotContains(t, r.stdout, "r1 by alice")

			r = run("budget", "ship", "2", "20k tokens")
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Equal(t, "ship：第 2 步（Test (budget 20k tokens)）预算 20k tokens，第 3 版，仍已批准\n", r.stdout)

			r = run("comment", "ship", "3", "Tag from main", "-by", "bob")
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Regexp(t, `^ship：bob 对第 3 步添加了评论 \S+；第 4 版\n$`, r.stdout)
			r = run("show", "ship")
			assert.Regexp(t, `\n评论：  \S+ bob 对第 3 步（第 3 版，[^\n]*）：Tag from main \[等待回复\]\n`, r.stdout)
			assert.NotContains(t, r.stdout, "comment:")

			r = run("approve", "ship", "-rev", "1")
			assert.Equal(t, exitConflict, r.code)
			assert.Equal(t, "planctl: revision_conflict: ship 的第 1 版已由 alice 批准；未做任何更改（计划当前为第 4 版）\n", r.stderr)

			r = run("show", "nosuch")
			assert.Equal(t, exitNotFound, r.code)
			assert.Contains(t, r.stderr, "planctl: not_found: "+dir+" 中没有名为 nosuch 的计划；`planctl list` 列出那里的计划\n")
			assert.NotContains(t, r.stderr, "no plan named")

			r = run("budget", "ship", "x", "1h")
			assert.Equal(t, exitUsage, r.code)
			assert.Equal(t, "planctl: x 不是步骤编号：步骤从 1 开始编号，见 `planctl show ship`\n", r.stderr)

			r = run("frobnicate")
			assert.Equal(t, exitUsage, r.code)
			assert.Contains(t, r.stderr, "planctl: 未知命令 \"frobnicate\"\n\n用法：")
		})
	}
}

// English is what people read unless -lang or the locale asks for Chinese: under C, POSIX,
// an English locale or none, and when LC_ALL names a locale other than Chinese.
func TestPeopleReadEnglishUnlessAskedForChinese(t *testing.T) {
	dir := langDir(t)
	for _, env := range [][]string{
		{"LANG="},
		{"LANG=C.UTF-8"},
		{"LANG=POSIX"},
		{"LANG=en_US.UTF-8"},
		{"LANG=zh_CN.UTF-8", "LC_ALL=C"},
		{"LANG=zh_CN.UTF-8", "LC_MESSAGES=en_GB.UTF-8"},
	} {
		r := runBuiltWith(t, env, "-dir", dir, "show", "ship")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "ship: Ship\nstatus:   draft\nrevision: 2\napproval: approved at r1 by alice, ", env)
	}
	r := runBuiltWith(t, []string{"LANG=zh_CN.UTF-8"}, "-dir", dir, "show", "ship", "-lang", "en")
	assert.Contains(t, r.stdout, "status:   draft\n", "-lang en wins over the locale")
	assert.NotContains(t, r.stdout, "状态")

	r = runBuiltWith(t, []string{"LANG=zh_CN.UTF-8"}, "-dir", dir, "-lang", "fr", "list")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "planctl: -lang 只能是 en 或 zh，不能是 fr\n")
}

// What scripts read is the same in either language: JSON output, exit statuses and the
// error code after "planctl: ".
func TestMachineReadableOutputIsTheSameInEitherLanguage(t *testing.T) {
	dir := langDir(t)
	for _, args := range [][]string{
		{"show", "ship", "-json"},
		{"list", "-json"},
		{"log", "ship", "-json"},
		{"check", "-json"},
		{"export", "ship", "-"},
	} {
		en := runBuiltWith(t, []string{"LANG=C.UTF-8"}, append([]string{"-dir", dir}, args...)...)
		zh := runBuiltWith(t, []string{"LANG=zh_CN.UTF-8"}, append([]string{"-dir", dir}, args...)...)
		assert.Equal(t, en, zh, "%v", args)
		assert.NotEmpty(t, en.stdout, "%v", args)
	}
	en := runBuiltWith(t, nil, "-dir", dir, "approve", "ship", "-rev", "9")
	zh := runBuiltWith(t, nil, "-dir", dir, "-lang", "zh", "approve", "ship", "-rev", "9")
	assert.Equal(t, exitConflict, en.code)
	assert.Equal(t, en.code, zh.code)
	assert.Contains(t, en.stderr, "planctl: revision_conflict: ship is at revision 2, not 9")
	assert.Contains(t, zh.stderr, "planctl: revision_conflict: ship 当前为第 2 版，而不是第 9 版")
}
