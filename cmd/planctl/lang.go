package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// lang is the language planctl speaks to people in. English is the zero value, so a
// locale that names no language, or none at all (C, POSIX, unset), gets English.
type lang int

const (
	langEN lang = iota
	langZH
)

// parseLang reads -lang: "en" or "zh" in any case; ok is false for anything else.
func parseLang(value string) (l lang, ok bool) {
	switch strings.ToLower(value) {
	case "en":
		return langEN, true
	case "zh":
		return langZH, true
	}
	return langEN, false
}

// localeLang is the language the environment asks for, as POSIX programs read it: the
// first of LC_ALL, LC_MESSAGES and LANG that is set decides, Chinese when it starts with
// "zh" (zh_CN.UTF-8, zh_TW, zh), English otherwise.
func localeLang() lang {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc := os.Getenv(v); loc != "" {
			if strings.HasPrefix(strings.ToLower(loc), "zh") {
				return langZH
			}
			return langEN
		}
	}
	return langEN
}

// placeholderRE matches a placeholder of a message: {name}.
var placeholderRE = regexp.MustCompile(`\{[a-z_]+\}`)

// placeholderNames are the distinct placeholders of text, in the order they first appear.
func placeholderNames(text string) []string {
	var names []string
	for _, p := range placeholderRE.FindAllString(text, -1) {
		if !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	return names
}

// t is the message key in l, its placeholders filled with vals: the i-th value fills the
// i-th distinct placeholder of the English text, so a translation may put them in any
// order. Values are written as fmt.Sprint writes them; a value is never read for
// placeholders itself.
func (l lang) t(key string, vals ...any) string {
	en, ok := messagesEN[key]
	if !ok {
		return key
	}
	text := en
	if l == langZH {
		text = messagesZH[key]
	}
	names := placeholderNames(en)
	if len(names) == 0 {
		return text
	}
	pairs := make([]string, 0, 2*len(names))
	for i, n := range names {
		if i < len(vals) {
			pairs = append(pairs, n, fmt.Sprint(vals[i]))
		}
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// word is the message prefix+value in l, for a value the library names (an action, a step
// state); a value l has no word for stays as it is.
func (l lang) word(prefix, value string) string {
	if _, ok := messagesEN[prefix+value]; !ok {
		return value
	}
	return l.t(prefix + value)
}

// t is the message key in the language of this command line.
func (c *cli) t(key string, vals ...any) string { return c.l.t(key, vals...) }

// say prints the message key to standard output.
func (c *cli) say(key string, vals ...any) {
	fmt.Fprint(c.stdout, c.t(key, vals...))
}

// sayErr prints the message key to standard error.
func (c *cli) sayErr(key string, vals ...any) {
	fmt.Fprint(c.stderr, c.t(key, vals...))
}
