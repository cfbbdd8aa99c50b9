package htmlreport

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// voidElements are HTML's elements without an end tag.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// tagPattern is a start or end tag: its slash, name, attributes and
// self-closing slash.
var tagPattern = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(/?)>`)

// externalRef finds an attribute or a CSS url() that reaches outside
// the file: src, href, xlink:href, action or url() with a scheme or a
// protocol-relative //.
var externalRef = regexp.MustCompile(`(?i)(?:\b(?:src|href|action|srcset|poster|data)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|//))|url\(\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|//)|@import`)

// Check reports whether doc is a self-contained report: its elements
// nest (each start tag closed in order, HTML's void elements and SVG's
// self-closed ones aside; script and style read as text), it reaches
// nothing outside itself (no src, href or url() with a scheme or a
// "//", no @import, no <link>, <img>, <iframe>, <object>), and every
// table sorts (class "sortable", with a header row).
func Check(doc string) error {
	if m := externalRef.FindString(doc); m != "" {
		return fmt.Errorf("htmlreport: check: reaches outside the file: %q", m)
	}
	var stack []string
	tables, sortable := 0, 0
	rest := doc
	for {
		loc := tagPattern.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		closing := rest[loc[2]:loc[3]] == "/"
		name := strings.ToLower(rest[loc[4]:loc[5]])
		attrs := rest[loc[6]:loc[7]]
		selfClosed := rest[loc[8]:loc[9]] == "/"
		rest = rest[loc[1]:]
		switch name {
		case "link", "img", "iframe", "object", "embed", "base":
			return fmt.Errorf("htmlreport: check: <%s> not allowed in a one-file report", name)
		}
		switch {
		case closing:
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return fmt.Errorf("htmlreport: check: </%s> closes %s", name, open(stack))
			}
			stack = stack[:len(stack)-1]
		case voidElements[name] || selfClosed:
		case name == "script" || name == "style":
			end := strings.Index(strings.ToLower(rest), "</"+name+">")
			if end < 0 {
				return fmt.Errorf("htmlreport: check: <%s> not closed", name)
			}
			rest = rest[end+len(name)+3:]
		default:
			if name == "table" {
				tables++
				if strings.Contains(attrs, `class="sortable"`) {
					sortable++
				}
			}
			stack = append(stack, name)
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("htmlreport: check: %s not closed", open(stack))
	}
	if sortable != tables {
		return fmt.Errorf("htmlreport: check: %d of %d tables do not sort", tables-sortable, tables)
	}
	if !strings.Contains(doc, "<thead>") && tables > 0 {
		return errors.New("htmlreport: check: a table without a header row")
	}
	return nil
}

func open(stack []string) string {
	if len(stack) == 0 {
		return "nothing"
	}
	return "<" + stack[len(stack)-1] + ">"
}
