package htmlreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Figure is a plot drawn inline as SVG, with its caption.
type Figure struct {
	Caption string
	// svg is the checked <svg> element.
	svg template.HTML
}

// NewFigure is the SVG document doc (as gonum/plot's vgsvg writes it: an
// XML declaration and a comment before the <svg> element) as an inline
// figure. doc must be well-formed SVG that fetches nothing: no script,
// no foreignObject, no href or src but a fragment ("#id").
func NewFigure(doc []byte, caption string) (*Figure, error) {
	start := bytes.Index(doc, []byte("<svg"))
	if start < 0 {
		return nil, errors.New("htmlreport: figure: no <svg> element")
	}
	body := bytes.TrimSpace(doc[start:])
	if err := checkSVG(body); err != nil {
		return nil, fmt.Errorf("htmlreport: figure: %w", err)
	}
	return &Figure{Caption: caption, svg: template.HTML(body)}, nil
}

// ReadFigure reads the SVG file path as a figure (see [NewFigure]).
func ReadFigure(path, caption string) (*Figure, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("htmlreport: figure: %w", err)
	}
	f, err := NewFigure(doc, caption)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, filepath.Base(path))
	}
	return f, nil
}

// checkSVG checks that body is one well-formed <svg> element that runs
// and fetches nothing.
func checkSVG(body []byte) error {
	d := xml.NewDecoder(bytes.NewReader(body))
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not well-formed: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if t.Name.Local != "svg" || roots > 1 {
					return fmt.Errorf("want one <svg> element, found <%s>", t.Name.Local)
				}
			}
			depth++
			switch strings.ToLower(t.Name.Local) {
			case "script", "foreignobject", "iframe", "image":
				return fmt.Errorf("<%s> not allowed in an inline figure", t.Name.Local)
			}
			for _, a := range t.Attr {
				name := strings.ToLower(a.Name.Local)
				if (name == "href" || name == "src") && !strings.HasPrefix(a.Value, "#") {
					return fmt.Errorf("<%s %s=%q>: a figure links to nothing outside itself", t.Name.Local, a.Name.Local, a.Value)
				}
				if strings.HasPrefix(name, "on") {
					return fmt.Errorf("<%s %s>: no event handlers in a figure", t.Name.Local, a.Name.Local)
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	if roots == 0 {
		return errors.New("no <svg> element")
	}
	return nil
}
