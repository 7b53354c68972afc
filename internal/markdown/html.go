package markdown

import "strings"

// The HTML blocks of CommonMark: how each of the seven kinds starts and ends. Inside one,
// nothing is a step or a heading.

// htmlBlockTags are the tag names that start an HTML block of kind 6.
var htmlBlockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "base": true, "basefont": true,
	"blockquote": true, "body": true, "caption": true, "center": true, "col": true,
	"colgroup": true, "dd": true, "details": true, "dialog": true, "dir": true, "div": true,
	"dl": true, "dt": true, "fieldset": true, "figcaption": true, "figure": true,
	"footer": true, "form": true, "frame": true, "frameset": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "head": true, "header": true, "hr": true,
	"html": true, "iframe": true, "legend": true, "li": true, "link": true, "main": true,
	"menu": true, "menuitem": true, "meta": true, "nav": true, "noframes": true, "ol": true,
	"optgroup": true, "option": true, "p": true, "param": true, "search": true,
	"section": true, "summary": true, "table": true, "tbody": true, "td": true,
	"tfoot": true, "th": true, "thead": true, "title": true, "tr": true, "track": true,
	"ul": true,
}

// htmlStart returns the kind (1 to 7) of the HTML block that line s, starting with "<",
// opens, or 0. Kind 7 cannot interrupt a paragraph.
func htmlStart(s string, hasNL, afterPara bool) int {
	for _, tag := range [...]string{"script", "pre", "style", "textarea"} {
		if len(s) > len(tag) && strings.EqualFold(s[1:1+len(tag)], tag) {
			r := s[1+len(tag):]
			if r == "" || strings.IndexByte("\t\f\r >", r[0]) >= 0 || strings.HasPrefix(r, "/>") {
				return 1
			}
		}
	}
	switch {
	case strings.HasPrefix(s, "<!--"):
		return 2
	case strings.HasPrefix(s, "<?"):
		return 3
	case len(s) > 2 && s[1] == '!' && s[2] >= 'A' && s[2] <= 'Z':
		return 4
	case strings.HasPrefix(s, "<![CDATA["):
		return 5
	}
	// lineEnd reports whether r is the rest of the line: nothing, or "\r" before "\n".
	lineEnd := func(r string) bool { return r == "" || r == "\r" && hasNL }
	i := 1
	closing := false
	if i < len(s) && s[i] == '/' {
		i++
		closing = i == len(s) || s[i] != ' '
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	j := i
	for i < len(s) && (isASCIILetter(s[i]) || i > j && (s[i] >= '0' && s[i] <= '9' || s[i] == '-')) {
		i++
	}
	if i == j {
		return 0
	}
	tag := strings.ToLower(s[j:i])
	if end, attrs := htmlTagRest(s, i); end >= 0 && lineEnd(s[end:]) {
		switch {
		case htmlBlockTags[tag]:
			return 6
		case tag != "script" && tag != "style" && tag != "pre" && !afterPara && !(closing && attrs):
			return 7
		}
	}
	if r := s[i:]; htmlBlockTags[tag] && (lineEnd(r) || r[0] == ' ' || r[0] == '>' || strings.HasPrefix(r, "/>")) {
		return 6
	}
	return 0
}

// htmlTagRest matches the attributes and the end of a tag alone on its line from s[i]: it
// returns where the trailing spaces after ">" or "/>" end, or -1, and whether there were
// attributes.
func htmlTagRest(s string, i int) (end int, attrs bool) {
	isWS := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for {
		k := i
		for k < len(s) && isWS(s[k]) {
			k++
		}
		if k == i || k >= len(s) || !(isASCIILetter(s[k]) || s[k] == '_' || s[k] == ':') {
			break
		}
		k++
		for k < len(s) && (isASCIILetter(s[k]) || s[k] >= '0' && s[k] <= '9' || strings.IndexByte(":._-", s[k]) >= 0) {
			k++
		}
		i, attrs = k, true
		// An optional value; without a valid one the attribute ends at its name.
		for k < len(s) && isWS(s[k]) {
			k++
		}
		if k >= len(s) || s[k] != '=' {
			continue
		}
		k++
		for k < len(s) && isWS(s[k]) {
			k++
		}
		switch {
		case k >= len(s):
		case s[k] == '\'' || s[k] == '"':
			if q := strings.IndexByte(s[k+1:], s[k]); q >= 0 {
				i = k + q + 2
			}
		default:
			v := k
			for v < len(s) && s[v] > ' ' && strings.IndexByte("\"'=<>`", s[v]) < 0 {
				v++
			}
			if v > k {
				i = v
			}
		}
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	switch {
	case strings.HasPrefix(s[i:], ">"):
		i++
	case strings.HasPrefix(s[i:], "/>"):
		i += 2
	default:
		return -1, attrs
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i, attrs
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// htmlEnds reports whether line s holds the end condition of an HTML block of kind 1 to 5.
func htmlEnds(kind int, s string) bool {
	switch kind {
	case 1:
		for i := strings.Index(s, "</"); i >= 0; {
			r := s[i+2:]
			for _, tag := range [...]string{"script>", "pre>", "style>", "textarea>"} {
				if len(r) >= len(tag) && strings.EqualFold(r[:len(tag)], tag) {
					return true
				}
			}
			k := strings.Index(r, "</")
			if k < 0 {
				break
			}
			i += 2 + k
		}
		return false
	case 2:
		return strings.Contains(s, "-->")
	case 3:
		return strings.Contains(s, "?>")
	case 4:
		return strings.IndexByte(s, '>') >= 0
	case 5:
		return strings.Contains(s, "]]>")
	}
	return false
}
