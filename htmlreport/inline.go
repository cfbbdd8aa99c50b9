package htmlreport

import (
	"html/template"
	"strings"
)

// Inline is Markdown inline text as HTML: `code`, **strong**, <br>, and
// links [text](target) shown as their text with the target after it in
// parentheses (a report links to nothing: it is one file, opened
// anywhere). Everything else is text, escaped.
func Inline(md string) template.HTML {
	var b strings.Builder
	inline(&b, md)
	return template.HTML(b.String())
}

func inline(b *strings.Builder, s string) {
	for len(s) > 0 {
		switch {
		case s[0] == '\\' && len(s) > 1 && strings.ContainsRune("\\`*_[]()|#-!<>", rune(s[1])):
			b.WriteString(template.HTMLEscapeString(s[1:2]))
			s = s[2:]
		case s[0] == '`':
			end := strings.IndexByte(s[1:], '`')
			if end < 0 {
				b.WriteString("`")
				s = s[1:]
				continue
			}
			b.WriteString("<code>" + template.HTMLEscapeString(s[1:1+end]) + "</code>")
			s = s[end+2:]
		case strings.HasPrefix(s, "**"):
			end := strings.Index(s[2:], "**")
			if end <= 0 {
				b.WriteString("**")
				s = s[2:]
				continue
			}
			b.WriteString("<strong>")
			inline(b, s[2:2+end])
			b.WriteString("</strong>")
			s = s[end+4:]
		case strings.HasPrefix(s, "<br>"):
			b.WriteString("<br>")
			s = s[4:]
		case s[0] == '[':
			text, target, rest, ok := link(s)
			if !ok {
				b.WriteString("[")
				s = s[1:]
				continue
			}
			inline(b, text)
			b.WriteString(` <span class="target">(` + template.HTMLEscapeString(target) + ")</span>")
			s = rest
		default:
			n := strings.IndexAny(s, "\\`*<[")
			if n == 0 {
				n = 1
			} else if n < 0 {
				n = len(s)
			}
			b.WriteString(template.HTMLEscapeString(s[:n]))
			s = s[n:]
		}
	}
}

// link splits "[text](target)rest".
func link(s string) (text, target, rest string, ok bool) {
	close := strings.Index(s, "](")
	if close < 0 {
		return "", "", "", false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", "", false
	}
	return s[1:close], s[close+2 : close+2+end], s[close+3+end:], true
}
