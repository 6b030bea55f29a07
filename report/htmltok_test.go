package report

import (
	"fmt"
	"html"
	"slices"
	"strings"
)

// A small HTML tokenizer for tests: golang.org/x/net/html is not a
// dependency of the module, and html/template output is regular enough for
// this. It knows comments, doctype, raw-text elements (style, script), void
// elements and quoted or bare attribute values.

type htmlNode struct {
	Tag   string            // lower-case element name
	Attrs map[string]string // values unescaped
	Text  string            // raw text for style/script
	Line  int
	// The element's content: the character data of htmlDoc.Text from
	// TextStart to TextEnd, and the elements inside it, from its own index
	// + 1 to End.
	TextStart, TextEnd, End int
}

type htmlDoc struct {
	Elements []htmlNode
	Text     strings.Builder // all character data, unescaped
}

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
}

// parseHTML tokenizes src and checks that every non-void element is closed in
// order; it returns an error that says where.
func parseHTML(src string) (*htmlDoc, error) {
	d := &htmlDoc{}
	var stack []htmlNode
	var open []int // indexes in d.Elements of stack
	var newlines []int
	for i := range len(src) {
		if src[i] == '\n' {
			newlines = append(newlines, i)
		}
	}
	line := func(i int) int { n, _ := slices.BinarySearch(newlines, i); return n + 1 }
	i := 0
	for i < len(src) {
		lt := strings.IndexByte(src[i:], '<')
		if lt < 0 {
			d.Text.WriteString(html.UnescapeString(src[i:]))
			break
		}
		d.Text.WriteString(html.UnescapeString(src[i : i+lt]))
		i += lt
		switch {
		case strings.HasPrefix(src[i:], "<!--"):
			end := strings.Index(src[i:], "-->")
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated comment", line(i))
			}
			i += end + 3
			continue
		case strings.HasPrefix(src[i:], "<!"):
			end := strings.IndexByte(src[i:], '>')
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated doctype", line(i))
			}
			i += end + 1
			continue
		case strings.HasPrefix(src[i:], "</"):
			end := strings.IndexByte(src[i:], '>')
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated end tag", line(i))
			}
			name := strings.ToLower(strings.TrimSpace(src[i+2 : i+end]))
			if len(stack) == 0 || stack[len(stack)-1].Tag != name {
				open := "nothing"
				if len(stack) > 0 {
					open = fmt.Sprintf("<%s> from line %d", stack[len(stack)-1].Tag, stack[len(stack)-1].Line)
				}
				return nil, fmt.Errorf("line %d: </%s> closes %s", line(i), name, open)
			}
			e := &d.Elements[open[len(open)-1]]
			e.TextEnd, e.End = d.Text.Len(), len(d.Elements)
			stack, open = stack[:len(stack)-1], open[:len(open)-1]
			i += end + 1
			continue
		}
		// Start tag.
		j := i + 1
		for j < len(src) && !strings.ContainsRune(" \t\n\r/>", rune(src[j])) {
			j++
		}
		n := htmlNode{Tag: strings.ToLower(src[i+1 : j]), Attrs: map[string]string{}, Line: line(i)}
		if n.Tag == "" {
			return nil, fmt.Errorf("line %d: bare '<' in text", line(i))
		}
		for {
			for j < len(src) && strings.ContainsRune(" \t\n\r", rune(src[j])) {
				j++
			}
			if j >= len(src) {
				return nil, fmt.Errorf("line %d: unterminated <%s>", n.Line, n.Tag)
			}
			if src[j] == '>' {
				j++
				break
			}
			if strings.HasPrefix(src[j:], "/>") {
				j += 2
				break
			}
			k := j
			for k < len(src) && !strings.ContainsRune(" \t\n\r=/>", rune(src[k])) {
				k++
			}
			name := strings.ToLower(src[j:k])
			val := ""
			j = k
			if j < len(src) && src[j] == '=' {
				j++
				if j < len(src) && (src[j] == '"' || src[j] == '\'') {
					q := src[j]
					end := strings.IndexByte(src[j+1:], q)
					if end < 0 {
						return nil, fmt.Errorf("line %d: unterminated attribute %s", n.Line, name)
					}
					val = src[j+1 : j+1+end]
					j += end + 2
				} else {
					k := j
					for k < len(src) && !strings.ContainsRune(" \t\n\r>", rune(src[k])) {
						k++
					}
					val = src[j:k]
					j = k
				}
			}
			if _, dup := n.Attrs[name]; dup {
				return nil, fmt.Errorf("line %d: duplicate attribute %s on <%s>", n.Line, name, n.Tag)
			}
			n.Attrs[name] = html.UnescapeString(val)
		}
		i = j
		if n.Tag == "style" || n.Tag == "script" {
			end := strings.Index(strings.ToLower(src[i:]), "</"+n.Tag)
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated <%s>", n.Line, n.Tag)
			}
			n.Text = src[i : i+end]
			d.Elements = append(d.Elements, n)
			i += end
			gt := strings.IndexByte(src[i:], '>')
			i += gt + 1
			continue
		}
		n.TextStart, n.TextEnd, n.End = d.Text.Len(), d.Text.Len(), len(d.Elements)+1
		d.Elements = append(d.Elements, n)
		if !voidElements[n.Tag] {
			stack = append(stack, n)
			open = append(open, len(d.Elements)-1)
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, fmt.Errorf("<%s> from line %d is never closed", top.Tag, top.Line)
	}
	return d, nil
}

// ids returns the ids of the elements with the given tag, in document order.
func (d *htmlDoc) ids(tag string) []string {
	var out []string
	for _, e := range d.Elements {
		if e.Tag == tag && e.Attrs["id"] != "" {
			out = append(out, e.Attrs["id"])
		}
	}
	return out
}

// references lists every URL the page could load or follow: src, href,
// srcset, poster, action and data attributes, and url(...) in styles.
func (d *htmlDoc) references() []string {
	var out []string
	for _, e := range d.Elements {
		for _, a := range []string{"src", "href", "srcset", "poster", "action", "data", "formaction", "xlink:href"} {
			if v, ok := e.Attrs[a]; ok {
				out = append(out, v)
			}
		}
		out = append(out, cssURLs(e.Text)...)
		out = append(out, cssURLs(e.Attrs["style"])...)
		if e.Tag == "style" && strings.Contains(strings.ToLower(e.Text), "@import") {
			out = append(out, "@import")
		}
	}
	return out
}

// cssURLs extracts the arguments of url(...) in CSS text.
func cssURLs(css string) []string {
	var out []string
	lower := strings.ToLower(css)
	for i := 0; ; {
		k := strings.Index(lower[i:], "url(")
		if k < 0 {
			return out
		}
		start := i + k + 4
		end := strings.IndexByte(css[start:], ')')
		if end < 0 {
			return append(out, css[start:])
		}
		out = append(out, strings.Trim(strings.TrimSpace(css[start:start+end]), `"'`))
		i = start + end
	}
}

// inner returns the text content of element i.
func (d *htmlDoc) inner(i int) string {
	e := d.Elements[i]
	return d.Text.String()[e.TextStart:e.TextEnd]
}
