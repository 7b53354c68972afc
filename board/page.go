package board

import (
	"embed"
	"net/http"
	"strconv"
	"strings"
)

// static holds the page: HTML, script and style, served as they are (no build step, nothing
// fetched from elsewhere).
//
//go:embed static/index.html static/board.js static/board.css
var static embed.FS

// securityHeaders keep the page to its own files: no inline script, no other origin, no
// framing by another site.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

// page serves the board page, its <html lang> set from Accept-Language; the script then
// follows navigator.languages.
func (b *board) page(w http.ResponseWriter, r *http.Request) {
	html, err := static.ReadFile("static/index.html")
	if err != nil {
		b.notFound(w, r)
		return
	}
	body := strings.Replace(string(html), `<html lang="en">`, `<html lang="`+language(r.Header.Get("Accept-Language"))+`">`, 1)
	securityHeaders(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write([]byte(body))
}

// asset serves the page's script and style.
func (b *board) asset(w http.ResponseWriter, r *http.Request) {
	file := r.PathValue("file")
	types := map[string]string{"board.js": "text/javascript; charset=utf-8", "board.css": "text/css; charset=utf-8"}
	ct, ok := types[file]
	if !ok {
		b.notFound(w, r)
		return
	}
	data, err := static.ReadFile("static/" + file)
	if err != nil {
		b.notFound(w, r)
		return
	}
	securityHeaders(w.Header())
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}

// language picks the page's language from an Accept-Language header: "zh" when the
// preferred language the page speaks is Chinese, else "en".
func language(accept string) string {
	best, bestQ := "en", -1.0
	for _, part := range strings.Split(accept, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			q = f
		}
		tag = strings.ToLower(strings.TrimSpace(tag))
		var lang string
		switch {
		case tag == "zh" || strings.HasPrefix(tag, "zh-"):
			lang = "zh"
		case tag == "en" || strings.HasPrefix(tag, "en-"):
			lang = "en"
		default:
			continue
		}
		if q > bestQ && q > 0 {
			best, bestQ = lang, q
		}
	}
	return best
}
